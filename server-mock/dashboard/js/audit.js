// Audit log: every change and every denied request, newest first; filters by token and action.

import { api } from './api.js';
import {
  el, emptyState, formError, listError, loading, pager, replace, sectionHeader, table, td, timeCell,
} from './ui.js';

const PER_PAGE = 50;

export const ACTIONS = [
  ['token.created', 'Token created'],
  ['token.rotated', 'Token rotated'],
  ['token.revoked', 'Token revoked'],
  ['token.limit_changed', 'Token limit changed'],
  ['key.created', 'API key created'],
  ['key.revoked', 'API key revoked'],
  ['session.started', 'Dashboard sign-in'],
  ['session.ended', 'Dashboard sign-out'],
  ['webhook.created', 'Webhook created'],
  ['webhook.deleted', 'Webhook deleted'],
  ['auth.denied', 'Request denied'],
];

function actionKind(action) {
  if (/denied|revoked|deleted/.test(action)) return 'danger';
  if (/created/.test(action)) return 'success';
  if (/rotated/.test(action)) return 'info';
  return 'neutral';
}

/** The query parameter for a subject id: key_id for an API key, else token_id. */
function subjectParam(id) {
  return id.startsWith('key_') ? 'key_id' : 'token_id';
}

/** Keeps the filters in the address (#/audit?token_id=...&action=...) without re-rendering. */
function remember(state) {
  const params = new URLSearchParams();
  if (state.token) params.set(subjectParam(state.token), state.token);
  if (state.action) params.set('action', state.action);
  if (state.page > 1) params.set('page', String(state.page));
  const query = params.toString();
  history.replaceState(null, '', `#/audit${query ? `?${query}` : ''}`);
}

export function render(root, ctx, params) {
  const state = {
    token: (params.get('token_id') || params.get('key_id') || '').trim(),
    action: params.get('action') || '',
    page: Math.max(1, Number.parseInt(params.get('page') || '1', 10) || 1),
    seq: 0,
  };

  const header = sectionHeader('audit-title', 'Audit log',
    'Every change to tokens, API keys and webhooks, every dashboard sign-in, and every refused request, newest first.');
  const tokenInput = el('input', {
    type: 'text', id: 'audit-token', name: 'subject', placeholder: 'tok_… or key_…', autocomplete: 'off',
    spellcheck: 'false', value: state.token,
  });
  const actionSelect = el('select', { id: 'audit-action', name: 'action' },
    el('option', { value: '' }, 'All actions'),
    ACTIONS.map(([value, label]) => el('option', { value, selected: value === state.action }, `${label} (${value})`)));
  const apply = el('button', { type: 'submit', class: 'btn btn-primary', id: 'audit-apply' }, 'Apply filters');
  const reset = el('button', { type: 'button', class: 'btn', id: 'audit-reset' }, 'Clear');
  const error = formError();
  const filters = el('form', { class: 'toolbar', id: 'audit-filters', role: 'search', 'aria-label': 'Filter the audit log', novalidate: true },
    el('div', { class: 'field-inline' }, el('label', { for: 'audit-token' }, 'Token or API key ID'), tokenInput),
    el('div', { class: 'field-inline' }, el('label', { for: 'audit-action' }, 'Action'), actionSelect),
    el('div', { class: 'toolbar-buttons' }, apply, reset),
    error.node);
  const listSlot = el('div', { id: 'audit-list', 'aria-live': 'polite' });
  root.append(header, filters, listSlot);

  function subject(entry) {
    if (entry.token_id) {
      const link = el('button', {
        type: 'button', class: 'link-button mono small', title: 'Show only entries about this token',
      }, entry.token_id);
      link.addEventListener('click', () => {
        tokenInput.value = entry.token_id;
        state.token = entry.token_id;
        state.page = 1;
        load();
      });
      return link;
    }
    if (entry.key_id) {
      const link = el('button', {
        type: 'button', class: 'link-button mono small', title: 'Show only entries about this API key',
      }, entry.key_id);
      link.addEventListener('click', () => {
        tokenInput.value = entry.key_id;
        state.token = entry.key_id;
        state.page = 1;
        load();
      });
      return link;
    }
    return el('span', { class: 'muted' }, '—');
  }

  function actor(value) {
    if (value === ctx.session.key.id) {
      return el('span', null, el('code', { class: 'small' }, value), ' ', el('span', { class: 'muted small' }, '(your key)'));
    }
    return el('code', { class: 'small' }, value || '—');
  }

  function row(entry) {
    return el('tr', { dataset: { auditId: entry.id, action: entry.action } },
      td('Time', timeCell(entry.created_at, { relative: true })),
      td('Action', el('span', { class: `badge badge-${actionKind(entry.action)}` }, entry.action)),
      td('Actor', actor(entry.actor)),
      td('Subject', subject(entry)),
      td('Request ID', entry.request_id ? el('code', { class: 'small muted' }, entry.request_id) : el('span', { class: 'muted' }, '—')));
  }

  async function load() {
    const seq = ++state.seq;
    root.dataset.loaded = 'false';
    error.set('');
    remember(state);
    if (!listSlot.firstChild) listSlot.append(loading('the audit log'));
    try {
      const answer = await api.get('/v1/audit', {
        [subjectParam(state.token)]: state.token || undefined,
        action: state.action || undefined,
        page: state.page,
        per_page: PER_PAGE,
      });
      if (seq !== state.seq || !root.isConnected) return;
      const filtered = Boolean(state.token || state.action);
      const parts = [];
      if (answer.data.length === 0) {
        if (state.page > 1 && answer.meta.total > 0) {
          state.page = 1;
          load();
          return;
        }
        parts.push(filtered
          ? emptyState('No audit entries match these filters. Check the ID, or clear the filters to see every entry.',
            el('button', { type: 'button', class: 'btn', onClick: clearFilters }, 'Clear filters'))
          : emptyState('The audit log is empty. Entries appear here when tokens, API keys or webhooks change, someone signs in, or a request is refused.',
            el('a', { class: 'btn', href: '#/tokens' }, 'Go to Tokens')));
      } else {
        parts.push(table({
          id: 'audit-table',
          caption: 'Audit log entries',
          columns: ['Time', 'Action', 'Actor', 'Subject', 'Request ID'],
          rows: answer.data.map(row),
        }));
        parts.push(pager('audit', answer.meta, 'entries', (page) => {
          state.page = page;
          load();
        }));
      }
      replace(listSlot, ...parts);
      root.dataset.loaded = 'true';
    } catch (err) {
      if (seq !== state.seq || !root.isConnected) return;
      listError(listSlot, error, 'Could not load the audit log', err, load);
      root.dataset.loaded = 'error';
    }
  }

  function clearFilters() {
    tokenInput.value = '';
    actionSelect.value = '';
    state.token = '';
    state.action = '';
    state.page = 1;
    load();
    tokenInput.focus();
  }

  filters.addEventListener('submit', (event) => {
    event.preventDefault();
    const token = tokenInput.value.trim();
    if (token && !/^(tok|key)_[0-9a-z]+$/i.test(token)) {
      error.set('A token ID starts with tok_ and an API key ID with key_ (copy one from the Tokens or API keys list).');
      tokenInput.setAttribute('aria-invalid', 'true');
      tokenInput.focus();
      return;
    }
    tokenInput.removeAttribute('aria-invalid');
    state.token = token;
    state.action = actionSelect.value;
    state.page = 1;
    load();
  });
  actionSelect.addEventListener('change', () => {
    state.action = actionSelect.value;
    state.page = 1;
    load();
  });
  reset.addEventListener('click', clearFilters);

  load();
}
