// Settings > API keys: list, create (secret shown once), revoke. The key this session signed in
// with cannot be revoked from here (the server answers 409 anyway).

import { api, resource } from './api.js';
import { credentialForm, scopeChips } from './forms.js';
import {
  badge, clearAlert, confirm, el, emptyState, loading, pager, replace, sectionError,
  sectionHeader, show, showAlert, showSecret, table, td, timeCell, toast,
} from './ui.js';

const PER_PAGE = 25;

export function render(root, ctx) {
  const state = { status: '', page: 1, seq: 0 };
  const canWrite = ctx.holds('keys:write');
  const currentId = ctx.session.key.id;

  const openButton = el('button', {
    type: 'button', class: 'btn btn-primary', id: 'key-create-open',
    'aria-expanded': 'false', 'aria-controls': 'key-form-slot',
    disabled: !canWrite,
    title: canWrite ? null : 'Your key does not hold keys:write',
  }, 'New API key');
  const header = sectionHeader('keys-title', 'API keys',
    'Workspace credentials for the tokctl API, the CLI and this dashboard. A key can grant only scopes it holds.',
    openButton);
  const secretSlot = el('div', { id: 'key-secret-slot' });
  const formSlot = el('div', { id: 'key-form-slot', hidden: true });
  const statusSelect = el('select', { id: 'key-filter-status' },
    el('option', { value: '' }, 'All'),
    el('option', { value: 'active' }, 'Active'),
    el('option', { value: 'expired' }, 'Expired'),
    el('option', { value: 'revoked' }, 'Revoked'));
  const toolbar = el('div', { class: 'toolbar', role: 'search', 'aria-label': 'Filter API keys' },
    el('div', { class: 'field-inline' }, el('label', { for: 'key-filter-status' }, 'Status'), statusSelect));
  const listSlot = el('div', { id: 'key-list', 'aria-live': 'polite' });
  const missingWrite = canWrite ? null : el('p', { class: 'muted small' },
    'Your key does not hold keys:write, so it cannot create or revoke API keys.');
  replace(root, el('p', { class: 'breadcrumb muted small' }, 'Settings'), header, missingWrite,
    secretSlot, formSlot, toolbar, listSlot);

  const heading = () => root.querySelector('h1');
  let form = null;

  function closeForm() {
    show(formSlot, false);
    openButton.setAttribute('aria-expanded', 'false');
    openButton.focus();
  }

  async function openForm() {
    if (!form) {
      try {
        const scopes = await ctx.scopes();
        form = credentialForm({
          prefix: 'key',
          noun: 'API key',
          namePlaceholder: 'e.g. ci-admin',
          nameHint: 'Unique among your live API keys. 1 to 100 characters.',
          scopes,
          held: ctx.held,
          submitLabel: 'Create API key',
          submit: create,
          cancel: closeForm,
        });
        formSlot.replaceChildren(form.node);
      } catch (err) {
        showAlert(`Could not load the scope list: ${err.message}`);
        return;
      }
    }
    show(formSlot, true);
    openButton.setAttribute('aria-expanded', 'true');
    form.focus();
  }

  async function create(body) {
    root.dataset.loaded = 'false';
    try {
      const key = await api.post('/v1/keys', body);
      show(formSlot, false);
      openButton.setAttribute('aria-expanded', 'false');
      showSecret(secretSlot, {
        title: `API key “${key.name}” created`,
        intro: 'Use it with the CLI or API as a Bearer credential, or paste it to sign in here.',
        secret: key.key,
        onDismiss: () => openButton.focus(),
      });
      state.page = 1;
      await load();
    } catch (err) {
      root.dataset.loaded = 'true';
      throw err;
    }
  }

  async function revoke(key) {
    const ok = await confirm({
      title: `Revoke “${key.name}”?`,
      body: [
        'The key stops working immediately, for the CLI, scripts and any dashboard session signed in with it.',
        'Tokens it created keep working. This cannot be undone.',
      ],
      confirmLabel: 'Revoke API key',
      fallbackFocus: heading,
      onConfirm: () => {
        root.dataset.loaded = 'false';
      },
    });
    if (!ok) return;
    clearAlert();
    root.dataset.loaded = 'false';
    try {
      await api.del(resource('/v1/keys', key.id));
      toast(`API key “${key.name}” revoked.`);
      await load();
    } catch (err) {
      if (root.isConnected) showAlert(`Could not revoke “${key.name}”: ${err.message}`);
      root.dataset.loaded = 'true';
    }
  }

  function revokeCell(key) {
    const isCurrent = key.id === currentId;
    const audit = el('a', { href: `#/audit?key_id=${encodeURIComponent(key.id)}`, class: 'btn btn-small btn-ghost', dataset: { action: 'audit' }, 'aria-label': `Audit log of ${key.name}` }, 'Audit');
    if (!canWrite) return el('div', { class: 'row-actions' }, audit);
    let why = null;
    if (isCurrent) why = 'You are signed in with this key. To revoke it, sign in with another one.';
    else if (key.status === 'revoked') why = 'Already revoked.';
    const whyId = `key-why-${key.id}`;
    const button = el('button', {
      type: 'button',
      class: 'btn btn-small btn-danger-outline',
      dataset: { action: 'revoke' },
      disabled: Boolean(why),
      title: why,
      'aria-label': `Revoke ${key.name}`,
      'aria-describedby': isCurrent ? whyId : null,
    }, 'Revoke');
    if (!why) button.addEventListener('click', () => revoke(key));
    return el('div', { class: 'name-cell' },
      el('div', { class: 'row-actions' }, button, audit),
      isCurrent ? el('span', { class: 'muted small why', id: whyId }, why) : null);
  }

  function createdBy(value) {
    if (value === 'admin') return 'the server admin command';
    if (value === currentId) return 'this session’s key';
    return value || 'unknown';
  }

  function row(key) {
    const isCurrent = key.id === currentId;
    return el('tr', { dataset: { keyId: key.id, status: key.status, current: isCurrent ? 'true' : null } },
      td('Name', el('div', { class: 'name-cell' },
        el('span', { class: 'name' }, key.name,
          isCurrent ? el('span', { class: 'badge badge-accent', 'data-testid': 'this-session' }, 'this session') : null),
        el('code', { class: 'muted small id' }, key.id),
        el('span', { class: 'muted small', dataset: { createdBy: key.created_by } }, `Created by ${createdBy(key.created_by)}`))),
      td('Status', badge(key.status)),
      td('Scopes', scopeChips(key.scopes)),
      td('Created', timeCell(key.created_at)),
      td('Expires', timeCell(key.expires_at, { empty: 'Never', relative: true })),
      td('Last used', timeCell(key.last_used_at, { empty: 'Never used', relative: true })),
      td('Actions', revokeCell(key)));
  }

  async function load() {
    const seq = ++state.seq;
    root.dataset.loaded = 'false';
    if (!listSlot.firstChild) listSlot.append(loading('API keys'));
    try {
      const answer = await api.get('/v1/keys', { status: state.status || undefined, page: state.page, per_page: PER_PAGE });
      if (seq !== state.seq || !root.isConnected) return;
      if (answer.data.length === 0 && state.page > 1 && answer.meta.total > 0) {
        state.page = Math.max(1, Math.ceil(answer.meta.total / PER_PAGE));
        load();
        return;
      }
      const parts = [];
      if (answer.data.length === 0) {
        parts.push(state.status
          ? emptyState(`No ${state.status} API keys. Choose “All” in Status to see every key.`)
          : emptyState('No API keys to show. Create one for the CLI or a script.'));
      } else {
        parts.push(table({
          id: 'key-table',
          caption: 'API keys',
          columns: ['Name', 'Status', 'Scopes', 'Created', 'Expires', 'Last used', 'Actions'],
          rows: answer.data.map(row),
        }));
        parts.push(pager('key', answer.meta, 'API keys', (page) => {
          state.page = page;
          load();
        }));
      }
      replace(listSlot, ...parts);
      root.dataset.loaded = 'true';
    } catch (err) {
      if (seq !== state.seq || !root.isConnected) return;
      replace(listSlot, sectionError('Could not load API keys', err, load));
      root.dataset.loaded = 'error';
    }
  }

  openButton.addEventListener('click', () => {
    if (formSlot.hidden) openForm();
    else closeForm();
  });
  statusSelect.addEventListener('change', () => {
    state.status = statusSelect.value;
    state.page = 1;
    load();
  });

  load();
}
