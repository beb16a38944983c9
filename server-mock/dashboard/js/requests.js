// Requests: the gateway's request log (GET /v1/requests), newest first: who sent each request,
// the model that answered, its status, timings, tokens and credits. Filters by status class,
// model, token or key and agent session live in the address
// (#/requests?status=5xx&model=…&token_id=…&session_id=…&page=2, and request=… for the one open);
// a request's detail opens below the list with its timings as a waterfall. Above the filters, the
// workspace's choice of keeping request and answer bodies (request-bodies.js).

import { api, resource } from './api.js';
import { count, credits, millis } from './format.js';
import { bodiesSetting } from './request-bodies.js';
import { content, detailBody, statusCell, who } from './request-detail.js';
import {
  el, emptyState, formError, listError, loading, pager, replace, restoreFocus, sectionError, sectionHeader, table, td,
  timeCell,
} from './ui.js';

const PER_PAGE = 50;
const STATUSES = [['', 'All'], ['2xx', '2xx answered'], ['4xx', '4xx refused'], ['5xx', '5xx failed']];
const COLUMNS = ['Time', 'Request ID', 'Who', 'Model', 'Status', 'TTFT', 'Total', 'Tokens', 'Credits'];

/** The query parameter for a credential id: key_id for an API key, else token_id. */
function credentialParam(id) {
  return id.startsWith('key_') ? 'key_id' : 'token_id';
}

/** The filters as query parameters (empty ones left out). */
function query(state) {
  const params = {};
  if (state.status) params.status = state.status;
  if (state.model) params.model = state.model;
  if (state.credential) params[credentialParam(state.credential)] = state.credential;
  if (state.session) params.session_id = state.session;
  return params;
}

/** Keeps the filters, the page and the open request in the address, without re-rendering. */
function remember(state) {
  const params = new URLSearchParams(query(state));
  if (state.page > 1) params.set('page', String(state.page));
  if (state.open) params.set('request', state.open);
  const text = params.toString();
  history.replaceState(null, '', `#/requests${text ? `?${text}` : ''}`);
}

function tokensCell(entry) {
  if (entry.prompt_tokens == null && entry.completion_tokens == null) return el('span', { class: 'muted' }, '—');
  const shown = (n) => (n == null ? '—' : count(n));
  const cached = entry.cached_tokens ? `, ${count(entry.cached_tokens)} of the prompt cached` : '';
  return el('span', { class: 'figure', title: `Prompt / completion tokens${cached}` },
    `${shown(entry.prompt_tokens)} / ${shown(entry.completion_tokens)}`);
}

function modelCell(entry) {
  const answered = entry.routed_model || entry.model;
  const named = entry.routed_model && entry.model && entry.model !== entry.routed_model ? entry.model : null;
  return el('div', { class: 'cell-stack' },
    answered ? el('code', { class: 'nowrap' }, answered) : el('span', { class: 'muted' }, '—'),
    named ? el('span', { class: 'muted small' }, `named ${named}`) : null,
    entry.stream ? el('span', { class: 'chip' }, 'stream') : null);
}

export function render(root, ctx, params) {
  const credential = (params.get('token_id') || params.get('key_id') || '').trim();
  const state = {
    status: (params.get('status') || '').trim().toLowerCase(),
    model: (params.get('model') || '').trim(),
    credential,
    session: (params.get('session_id') || '').trim(),
    page: Math.max(1, Number.parseInt(params.get('page') || '1', 10) || 1),
    open: (params.get('request') || '').trim() || null,
    seq: 0,
    detailSeq: 0,
  };

  const canRead = ctx.holds('requests:read');
  const refresh = el('button', { type: 'button', class: 'btn', id: 'requests-refresh' }, 'Refresh');
  const header = sectionHeader('requests-title', 'Requests',
    'Every request through the chat gateway, newest first: who sent it, the model that answered, its status, timings, tokens and credits.',
    ...(canRead ? [refresh] : []));
  if (!canRead) {
    replace(root, header, el('p', { class: 'muted', id: 'requests-missing-scope' },
      'Your key does not hold requests:read, so it cannot list the gateway’s requests. Sign in with an API key that holds it.'));
    root.dataset.loaded = 'true';
    return;
  }

  const statusSelect = el('select', { id: 'requests-status', name: 'status' },
    STATUSES.map(([value, label]) => el('option', { value, selected: value === state.status }, label)));
  if (state.status && !STATUSES.some(([value]) => value === state.status)) {
    // One status from the address (e.g. 429): kept as an option of its own.
    statusSelect.append(el('option', { value: state.status, selected: true }, state.status));
  }
  const input = (id, name, value, placeholder) => el('input', {
    type: 'text', id, name, value, placeholder, autocomplete: 'off', spellcheck: 'false',
  });
  const modelInput = input('requests-model', 'model', state.model, 'auto, gpt-4o-mini…');
  const credentialInput = input('requests-credential', 'credential', state.credential, 'tok_… or key_…');
  const sessionInput = input('requests-session', 'session_id', state.session, 'Agent session ID');
  const apply = el('button', { type: 'submit', class: 'btn btn-primary', id: 'requests-apply' }, 'Apply filters');
  const reset = el('button', { type: 'button', class: 'btn', id: 'requests-reset' }, 'Clear');
  const error = formError();
  const field = (id, label, control) => el('div', { class: 'field-inline' }, el('label', { for: id }, label), control);
  const filters = el('form', { class: 'toolbar', id: 'requests-filters', role: 'search', 'aria-label': 'Filter the requests', novalidate: true },
    field('requests-status', 'Status', statusSelect),
    field('requests-model', 'Model', modelInput),
    field('requests-credential', 'Token or API key ID', credentialInput),
    field('requests-session', 'Session ID', sessionInput),
    el('div', { class: 'toolbar-buttons' }, apply, reset),
    error.node);
  const listSlot = el('div', { id: 'requests-list', 'aria-live': 'polite' });
  const detailSlot = el('div', { id: 'request-detail-slot' });
  root.append(header, bodiesSetting(ctx), filters, listSlot, detailSlot);

  function markOpen() {
    for (const tr of listSlot.querySelectorAll('tr[data-request-id]')) {
      if (tr.dataset.requestId === state.open) tr.setAttribute('data-open', 'true');
      else tr.removeAttribute('data-open');
    }
  }

  function opener(id) {
    return listSlot.querySelector(`tr[data-request-id="${CSS.escape(id)}"] [data-action="detail"]`);
  }

  function closeDetail() {
    const id = state.open;
    state.open = null;
    state.detailSeq += 1;
    detailSlot.replaceChildren();
    markOpen();
    remember(state);
    restoreFocus(id && opener(id), () => root.querySelector('h1'));
  }

  /** Opens the detail of request `id`: from `entry` when known, else read from the API. */
  function openDetail(id, entry, { focus = true } = {}) {
    state.open = id;
    const seq = ++state.detailSeq;
    remember(state);
    markOpen();
    const title = el('h2', { id: 'request-detail-title', tabindex: '-1' }, 'Request ', el('code', { class: 'break' }, id));
    const close = el('button', { type: 'button', class: 'btn btn-small btn-ghost', id: 'request-detail-close' }, 'Close');
    close.addEventListener('click', closeDetail);
    const body = el('div', { id: 'request-detail-body', class: 'stack' });
    const panel = el('section', {
      class: 'card request-detail', id: 'request-detail', 'aria-labelledby': 'request-detail-title',
      dataset: { requestId: id, loaded: 'false' },
    },
    el('div', { class: 'card-header' },
      el('div', null, title, el('p', { class: 'muted small' }, 'As the gateway logged it. Escape closes.')),
      el('div', { class: 'section-actions' }, close)),
    body);
    panel.addEventListener('keydown', (event) => {
      if (event.key === 'Escape') {
        event.preventDefault();
        closeDetail();
      }
    });
    detailSlot.replaceChildren(panel);
    if (entry) {
      // Shown at once from the row; a listing carries no bodies, so the request is read for them.
      replace(body, ...detailBody(entry, { pending: true }));
      const unread = (why) => el('p', { class: 'muted small', id: 'request-content' }, why);
      const shown = api.get(resource('/v1/requests', id)).then(
        (found) => (found.created_at === entry.created_at ? content(found)
          // The API answers the newest request with this id, when a client chose it twice.
          : unread('Its bodies cannot be shown: a newer request has the same ID.')),
        (err) => unread(`Could not read its kept bodies: ${err.message}`));
      shown.then((part) => {
        if (seq !== state.detailSeq || !panel.isConnected) return;
        body.querySelector('#request-content').replaceWith(part);
        panel.dataset.loaded = 'true';
      });
    } else {
      body.append(loading('the request'));
      api.get(resource('/v1/requests', id)).then((found) => {
        if (seq !== state.detailSeq || !panel.isConnected) return;
        replace(body, ...detailBody(found));
        panel.dataset.loaded = 'true';
      }).catch((err) => {
        if (seq !== state.detailSeq || !panel.isConnected) return;
        replace(body, sectionError('Could not load the request', err, () => openDetail(id, null)));
        panel.dataset.loaded = 'error';
      });
    }
    if (focus) title.focus();
  }

  function row(entry) {
    const open = el('button', {
      type: 'button', class: 'link-button mono small break', dataset: { action: 'detail' },
      'aria-controls': 'request-detail-slot', title: 'Show this request in full',
    }, entry.id);
    open.addEventListener('click', () => openDetail(entry.id, entry));
    const credentialId = entry.token_id || entry.key_id;
    const tr = el('tr', { class: 'request-row', dataset: { requestId: entry.id, status: entry.status, stream: String(Boolean(entry.stream)) } },
      td('Time', timeCell(entry.created_at, { relative: true })),
      td('Request ID', open),
      td('Who', el('span', { class: 'break', title: credentialId || null }, who(entry))),
      td('Model', modelCell(entry)),
      td('Status', statusCell(entry)),
      td('TTFT', entry.stream ? el('span', { class: 'figure' }, millis(entry.time_to_first_token_ms))
        : el('span', { class: 'muted', title: 'Not streamed' }, '—')),
      td('Total', el('span', { class: 'figure' }, millis(entry.duration_ms))),
      td('Tokens', tokensCell(entry)),
      td('Credits', entry.credits == null ? el('span', { class: 'muted' }, '—')
        : el('span', { class: 'mono', dataset: { credits: credits(entry.credits) } }, credits(entry.credits))));
    // The whole row opens the detail too (the button is its keyboard way).
    tr.addEventListener('click', (event) => {
      if (event.target.closest('a, button, input, select')) return;
      if (window.getSelection && String(window.getSelection()).length) return;
      openDetail(entry.id, entry);
    });
    return tr;
  }

  async function load() {
    const seq = ++state.seq;
    root.dataset.loaded = 'false';
    error.set('');
    remember(state);
    if (!listSlot.firstChild) listSlot.append(loading('the requests'));
    try {
      const answer = await api.get('/v1/requests', { ...query(state), page: state.page, per_page: PER_PAGE });
      if (seq !== state.seq || !root.isConnected) return;
      if (answer.data.length === 0 && state.page > 1 && answer.meta.total > 0) {
        state.page = 1;
        load();
        return;
      }
      const filtered = Object.keys(query(state)).length > 0;
      if (answer.data.length === 0) {
        replace(listSlot, filtered
          ? emptyState('No requests match these filters. Check the values, or clear the filters to see every request.',
            el('button', { type: 'button', class: 'btn', onClick: clearFilters }, 'Clear filters'))
          : emptyState('No gateway requests yet. Send one (POST /v1/chat/completions, /v1/messages or /v1/responses) with a token that holds chat:write, and it is listed here.',
            el('a', { class: 'btn', href: '#/tokens' }, 'Create a token')));
      } else {
        replace(listSlot,
          table({ id: 'requests-table', caption: 'Gateway requests, newest first', columns: COLUMNS, className: 'requests-table', rows: answer.data.map(row) }),
          pager('requests', answer.meta, 'requests', (page) => {
            state.page = page;
            load();
          }));
        markOpen();
      }
      root.dataset.loaded = 'true';
    } catch (err) {
      if (seq !== state.seq || !root.isConnected) return;
      listError(listSlot, error, 'Could not load the requests', err, load);
      root.dataset.loaded = 'error';
    }
  }

  function fromInputs() {
    state.status = statusSelect.value;
    state.model = modelInput.value.trim();
    state.credential = credentialInput.value.trim();
    state.session = sessionInput.value.trim();
    state.page = 1;
  }

  function clearFilters() {
    statusSelect.value = '';
    modelInput.value = '';
    credentialInput.value = '';
    sessionInput.value = '';
    credentialInput.removeAttribute('aria-invalid');
    fromInputs();
    load();
    modelInput.focus();
  }

  filters.addEventListener('submit', (event) => {
    event.preventDefault();
    const id = credentialInput.value.trim();
    if (id && !/^(tok|key)_[0-9a-z]+$/i.test(id)) {
      error.set('A token ID starts with tok_ and an API key ID with key_ (copy one from the Tokens or API keys list).');
      credentialInput.setAttribute('aria-invalid', 'true');
      credentialInput.focus();
      return;
    }
    credentialInput.removeAttribute('aria-invalid');
    fromInputs();
    load();
  });
  statusSelect.addEventListener('change', () => {
    fromInputs();
    load();
  });
  reset.addEventListener('click', clearFilters);
  refresh.addEventListener('click', load);

  load();
  if (state.open) openDetail(state.open, null, { focus: false });
}
