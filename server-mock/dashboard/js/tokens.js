// Tokens: list (status filter, search by name, pages), create, rotate (with an optional
// overlap), change the spending limit (limits.js), revoke.

import { api, fetchAll, resource } from './api.js';
import { credentialForm, scopeChips } from './forms.js';
import { editLimit, limitFields, spendCell } from './limits.js';
import {
  badge, clearAlert, confirm, el, emptyState, loading, pager, replace, sectionError,
  sectionHeader, show, showAlert, showSecret, table, td, timeCell, toast,
} from './ui.js';

const PER_PAGE = 25;
/** How long a rotation may leave the old secret working ("" at once, the API's default). */
const OVERLAPS = [['', 'At once'], ['10m', 'In 10 minutes'], ['1h', 'In 1 hour'], ['24h', 'In 24 hours']];

export function render(root, ctx) {
  const state = { status: '', search: '', page: 1, seq: 0, all: null };
  const canWrite = ctx.holds('tokens:write');
  const canRotate = ctx.holds('tokens:rotate');
  const canRevoke = ctx.holds('tokens:revoke');

  const openButton = el('button', {
    type: 'button', class: 'btn btn-primary', id: 'token-create-open',
    'aria-expanded': 'false', 'aria-controls': 'token-form-slot',
    disabled: !canWrite,
    title: canWrite ? null : 'Your key does not hold tokens:write',
  }, 'New token');
  const header = sectionHeader('tokens-title', 'Tokens',
    'Access tokens for CI jobs, services and people. Each holds a subset of your scopes.', openButton);
  const secretSlot = el('div', { id: 'token-secret-slot' });
  const formSlot = el('div', { id: 'token-form-slot', hidden: true });

  const statusSelect = el('select', { id: 'token-filter-status' },
    el('option', { value: '' }, 'All'),
    el('option', { value: 'active' }, 'Active'),
    el('option', { value: 'expired' }, 'Expired'),
    el('option', { value: 'revoked' }, 'Revoked'));
  const search = el('input', {
    type: 'search', id: 'token-search', placeholder: 'Filter by name', autocomplete: 'off', spellcheck: 'false',
  });
  const toolbar = el('div', { class: 'toolbar', role: 'search', 'aria-label': 'Filter tokens' },
    el('div', { class: 'field-inline' }, el('label', { for: 'token-filter-status' }, 'Status'), statusSelect),
    el('div', { class: 'field-inline grow' }, el('label', { for: 'token-search' }, 'Search'), search));
  const listSlot = el('div', { id: 'token-list', 'aria-live': 'polite' });
  const cannot = [
    canWrite ? null : 'create (tokens:write)',
    canRotate ? null : 'rotate (tokens:rotate)',
    canRevoke ? null : 'revoke (tokens:revoke)',
  ].filter(Boolean);
  const missing = cannot.length === 0 ? null : el('p', { class: 'muted small', id: 'token-missing-scopes' },
    `Your key cannot ${cannot.join(', ').replace(/, ([^,]*)$/, ' or $1')} tokens.`);
  replace(root, header, missing, secretSlot, formSlot, toolbar, listSlot);

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
          prefix: 'token',
          noun: 'token',
          namePlaceholder: 'e.g. ci-deploy',
          nameHint: 'Unique among your live tokens. 1 to 100 characters.',
          scopes,
          held: ctx.held,
          submitLabel: 'Create token',
          submit: create,
          cancel: closeForm,
          extra: limitFields('token'),
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
      const token = await api.post('/v1/tokens', body);
      show(formSlot, false);
      openButton.setAttribute('aria-expanded', 'false');
      showSecret(secretSlot, {
        title: `Token “${token.name}” created`,
        intro: 'This is the token’s secret. Send it as a Bearer credential: Authorization: Bearer <secret>.',
        secret: token.token,
        onDismiss: () => openButton.focus(),
      });
      state.page = 1;
      state.all = null;
      await load();
    } catch (err) {
      root.dataset.loaded = 'true';
      throw err;
    }
  }

  async function rotate(token) {
    const overlap = el('select', { id: 'token-rotate-overlap' },
      OVERLAPS.map(([value, label]) => el('option', { value }, label)));
    const ok = await confirm({
      title: `Rotate “${token.name}”?`,
      body: [
        'A new secret replaces the current one. The new secret is shown once.',
        el('div', { class: 'field' },
          el('label', { for: 'token-rotate-overlap' }, 'The old secret stops working'),
          overlap,
          el('p', { class: 'field-hint' },
            'Keep it working for a while so every machine can switch first. A later rotation ends it.')),
      ],
      confirmLabel: 'Rotate secret',
      fallbackFocus: heading,
      onConfirm: () => {
        root.dataset.loaded = 'false';
      },
    });
    if (!ok) return;
    clearAlert();
    root.dataset.loaded = 'false';
    try {
      const body = overlap.value ? { previous_secret_expires_in: overlap.value } : undefined;
      const rotated = await api.post(resource('/v1/tokens', token.id, '/rotate'), body);
      const until = rotated.previous_secret_expires_at;
      showSecret(secretSlot, {
        title: `New secret for “${rotated.name}”`,
        intro: until
          ? `The previous secret works until ${new Date(until).toLocaleString()}. Update every place that used it before then.`
          : 'The previous secret no longer works. Update every place that used it.',
        secret: rotated.token,
        onDismiss: () => heading().focus(),
      });
      state.all = null;
      await load();
    } catch (err) {
      if (root.isConnected) showAlert(`Could not rotate “${token.name}”: ${err.message}`);
      root.dataset.loaded = 'true';
    }
  }

  async function revoke(token) {
    const ok = await confirm({
      title: `Revoke “${token.name}”?`,
      body: [
        'The token stops working immediately, for every job and service that uses it.',
        'This cannot be undone; the token stays in the list as revoked.',
      ],
      confirmLabel: 'Revoke token',
      fallbackFocus: heading,
      onConfirm: () => {
        root.dataset.loaded = 'false';
      },
    });
    if (!ok) return;
    clearAlert();
    root.dataset.loaded = 'false';
    try {
      await api.del(resource('/v1/tokens', token.id));
      toast(`Token “${token.name}” revoked.`);
      state.all = null;
      await load();
    } catch (err) {
      if (root.isConnected) showAlert(`Could not revoke “${token.name}”: ${err.message}`);
      root.dataset.loaded = 'true';
    }
  }

  function actionButton(action, label, token, enabled, why, handler) {
    if (action === 'rotate' && !canRotate) return null;
    if (action === 'revoke' && !canRevoke) return null;
    const button = el('button', {
      type: 'button',
      class: action === 'revoke' ? 'btn btn-small btn-danger-outline' : 'btn btn-small',
      dataset: { action },
      disabled: !enabled,
      title: enabled ? null : why,
      'aria-label': `${label} ${token.name}`,
    }, label);
    if (enabled) button.addEventListener('click', () => handler(token));
    return button;
  }

  function row(token) {
    const status = token.status;
    const rotateWhy = status === 'expired' ? 'An expired token cannot be rotated; create a new token'
      : 'A revoked token cannot be rotated';
    const revokeWhy = 'Already revoked';
    return el('tr', { dataset: { tokenId: token.id, status } },
      td('Name', el('div', { class: 'name-cell' },
        el('span', { class: 'name' }, token.name),
        el('code', { class: 'muted small id' }, token.id),
        el('span', { class: 'muted small', dataset: { createdBy: token.created_by } },
          `Created by ${token.created_by === ctx.session.key.id ? 'this session’s key' : token.created_by || 'unknown'}`),
        el('span', { class: 'small row-links' },
          el('a', { href: `#/audit?token_id=${encodeURIComponent(token.id)}`, dataset: { action: 'audit' }, 'aria-label': `Audit log of ${token.name}` }, 'Audit log'),
          ' · ',
          el('a', { href: `#/usage?token_id=${encodeURIComponent(token.id)}`, dataset: { action: 'usage' }, 'aria-label': `Usage of ${token.name}` }, 'Usage')))),
      td('Status', badge(status)),
      td('Scopes', scopeChips(token.scopes)),
      td('Created', timeCell(token.created_at)),
      td('Expires', timeCell(token.expires_at, { empty: 'Never', relative: true })),
      td('Last used', timeCell(token.last_used_at, { empty: 'Never used', relative: true })),
      td('Spend', spendCell(token)),
      td('Actions', el('div', { class: 'row-actions' },
        actionButton('rotate', 'Rotate', token, canRotate && status === 'active', rotateWhy, rotate),
        canWrite && status === 'active' ? el('button', {
          type: 'button', class: 'btn btn-small', dataset: { action: 'limit' },
          'aria-label': `Spending limit of ${token.name}`,
          onClick: () => editLimit(token, { fallbackFocus: heading, onSaved: reload }),
        }, 'Limit') : null,
        actionButton('revoke', 'Revoke', token, canRevoke && status !== 'revoked', revokeWhy, revoke))));
  }

  async function reload() {
    state.all = null;
    await load();
  }

  function emptyFor(total) {
    if (state.search) {
      return emptyState(`No tokens match “${state.search}”. Check the spelling or clear the search.`);
    }
    if (state.status) {
      return emptyState(`No ${state.status} tokens. Choose “All” in Status to see every token.`);
    }
    if (total === 0 && canWrite) {
      return emptyState('No tokens yet. Create one to give a CI job access.',
        el('button', { type: 'button', class: 'btn btn-primary', onClick: openForm }, 'Create a token'));
    }
    return emptyState('No tokens yet. Ask someone whose key holds tokens:write to create one.');
  }

  function renderList(tokens, meta, note) {
    const parts = [];
    if (tokens.length === 0) {
      parts.push(emptyFor(meta.total));
    } else {
      parts.push(table({
        id: 'token-table',
        caption: 'Tokens',
        columns: ['Name', 'Status', 'Scopes', 'Created', 'Expires', 'Last used', 'Spend', 'Actions'],
        rows: tokens.map(row),
      }));
    }
    if (note) parts.push(el('p', { class: 'muted small' }, note));
    if (meta.paged && meta.total > 0) {
      parts.push(pager('token', meta, 'tokens', (page) => {
        state.page = page;
        load();
      }));
    }
    replace(listSlot, ...parts);
  }

  async function load() {
    const seq = ++state.seq;
    root.dataset.loaded = 'false';
    if (!listSlot.firstChild) listSlot.append(loading('tokens'));
    const status = state.status || undefined;
    try {
      if (state.search) {
        // Search covers every page of the current status, loaded once and kept until a change.
        if (!state.all || state.all.status !== state.status) {
          const all = await fetchAll('/v1/tokens', { status });
          state.all = { status: state.status, ...all };
        }
        if (seq !== state.seq || !root.isConnected) return;
        const needle = state.search.toLowerCase();
        const found = state.all.items.filter((t) => String(t.name).toLowerCase().includes(needle));
        const note = state.all.complete ? `${found.length} of ${state.all.total} tokens match.`
          : `Searched the newest ${state.all.items.length} of ${state.all.total} tokens.`;
        renderList(found, { total: state.all.total, paged: false }, note);
      } else {
        const answer = await api.get('/v1/tokens', { status, page: state.page, per_page: PER_PAGE });
        if (seq !== state.seq || !root.isConnected) return;
        if (answer.data.length === 0 && state.page > 1 && answer.meta.total > 0) {
          state.page = Math.max(1, Math.ceil(answer.meta.total / PER_PAGE));
          load();
          return;
        }
        renderList(answer.data, { ...answer.meta, paged: true });
      }
      root.dataset.loaded = 'true';
    } catch (err) {
      if (seq !== state.seq || !root.isConnected) return;
      replace(listSlot, sectionError('Could not load tokens', err, load));
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
  let timer = 0;
  search.addEventListener('input', () => {
    clearTimeout(timer);
    root.dataset.loaded = 'false';
    timer = setTimeout(() => {
      state.search = search.value.trim();
      state.page = 1;
      load();
    }, 200);
  });
  search.addEventListener('keydown', (event) => {
    if (event.key === 'Enter') {
      event.preventDefault();
      clearTimeout(timer);
      state.search = search.value.trim();
      load();
    }
  });

  load();
}
