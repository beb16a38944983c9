// Webhooks: create (signing secret shown once), list, delete, send a test, delivery log.

import { api, resource } from './api.js';
import {
  badge, clearAlert, confirm, el, emptyState, formError, loading, pager, replace, sectionError,
  sectionHeader, show, showAlert, showSecret, table, td, timeCell, toast,
} from './ui.js';

const PER_PAGE = 25;

const EVENTS = [
  ['token.rotated', 'A token’s secret was rotated.'],
  ['token.expiring', 'A token expires in 7 days, and again 1 day before.'],
];

export function render(root, ctx) {
  const state = { page: 1, seq: 0, open: null, deliveryPage: 1, deliverySeq: 0 };
  const canWrite = ctx.holds('webhooks:write');

  const openButton = el('button', {
    type: 'button', class: 'btn btn-primary', id: 'webhook-create-open',
    'aria-expanded': 'false', 'aria-controls': 'webhook-form-slot',
    disabled: !canWrite, title: canWrite ? null : 'Your key does not hold webhooks:write',
  }, 'New endpoint');
  const header = sectionHeader('webhooks-title', 'Webhooks',
    'Endpoints that receive signed events when tokens rotate or are about to expire.', openButton);
  const secretSlot = el('div', { id: 'webhook-secret-slot' });
  const formSlot = el('div', { id: 'webhook-form-slot', hidden: true });
  const listSlot = el('div', { id: 'webhook-list', 'aria-live': 'polite' });
  const deliverySlot = el('div', { id: 'webhook-deliveries-slot' });
  const missingWrite = canWrite ? null : el('p', { class: 'muted small' },
    'Your key does not hold webhooks:write, so it cannot add, test or delete endpoints.');
  replace(root, header, missingWrite, secretSlot, formSlot, listSlot, deliverySlot);
  const heading = () => root.querySelector('h1');

  // ---- Create form ------------------------------------------------------------------------
  const url = el('input', {
    type: 'url', id: 'webhook-url', name: 'url', placeholder: 'https://example.com/hooks/tokctl',
    autocomplete: 'off', spellcheck: 'false', inputmode: 'url', 'aria-describedby': 'webhook-url-hint',
  });
  const eventList = el('ul', { class: 'scope-list' }, EVENTS.map(([name, description]) => {
    const id = `webhook-event-${name.replace('.', '-')}`;
    return el('li', { class: 'scope-item' },
      el('input', { type: 'checkbox', name: 'event', value: name, id, 'aria-describedby': `${id}-desc` }),
      el('label', { for: id }, el('code', { class: 'scope-name' }, name), el('span', { class: 'scope-desc', id: `${id}-desc` }, description)));
  }));
  const error = formError();
  const submit = el('button', { type: 'submit', class: 'btn btn-primary', id: 'webhook-create-submit' }, 'Add endpoint');
  const cancel = el('button', { type: 'button', class: 'btn', id: 'webhook-create-cancel' }, 'Cancel');
  const form = el('form', { class: 'card form', id: 'webhook-create-form', novalidate: true, 'aria-label': 'New webhook endpoint' },
    el('h2', { class: 'card-title' }, 'New webhook endpoint'),
    el('div', { class: 'field' },
      el('label', { for: 'webhook-url' }, 'Payload URL'), url,
      el('p', { class: 'field-hint', id: 'webhook-url-hint' },
        'An http or https URL. Each event is POSTed as JSON with an x-service-signature header (HMAC-SHA256).')),
    el('fieldset', { class: 'field scopes' }, el('legend', null, 'Events'), eventList),
    error.node,
    el('div', { class: 'form-actions' }, submit, cancel));
  formSlot.append(form);

  function closeForm() {
    show(formSlot, false);
    openButton.setAttribute('aria-expanded', 'false');
    openButton.focus();
  }
  openButton.addEventListener('click', () => {
    if (!formSlot.hidden) {
      closeForm();
      return;
    }
    show(formSlot, true);
    openButton.setAttribute('aria-expanded', 'true');
    url.focus();
  });
  cancel.addEventListener('click', closeForm);
  form.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') {
      event.preventDefault();
      closeForm();
    }
  });
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    error.set('');
    url.removeAttribute('aria-invalid');
    const events = [...eventList.querySelectorAll('input[name="event"]:checked')].map((box) => box.value);
    if (!url.value.trim()) {
      url.setAttribute('aria-invalid', 'true');
      error.set('Enter the URL that should receive the events.');
      return;
    }
    if (events.length === 0) {
      error.set('Choose at least one event.');
      return;
    }
    submit.disabled = true;
    root.dataset.loaded = 'false';
    try {
      const endpoint = await api.post('/v1/webhooks', { url: url.value.trim(), events });
      form.reset();
      show(formSlot, false);
      openButton.setAttribute('aria-expanded', 'false');
      showSecret(secretSlot, {
        title: 'Endpoint added: copy its signing secret',
        intro: `Events for ${endpoint.url} are signed with this secret. Check each request's x-service-signature with it.`,
        secret: endpoint.secret,
        onDismiss: () => openButton.focus(),
      });
      state.page = 1;
      await load();
    } catch (err) {
      if (/url/i.test(err.message)) url.setAttribute('aria-invalid', 'true');
      error.set(`Could not add the endpoint: ${err.message}`);
      root.dataset.loaded = 'true';
    } finally {
      submit.disabled = false;
    }
  });

  // ---- Row actions ------------------------------------------------------------------------
  async function sendTest(endpoint, button) {
    clearAlert();
    button.disabled = true;
    try {
      const event = await api.post(resource('/v1/webhooks', endpoint.id, '/test'));
      toast(`Test event ${event.id} queued for ${endpoint.url}.`);
      if (state.open && state.open.id === endpoint.id) {
        setTimeout(() => loadDeliveries(), 1500);
      } else {
        openDeliveries(endpoint, { quiet: true });
      }
    } catch (err) {
      showAlert(`Could not send a test event to ${endpoint.url}: ${err.message}`);
    } finally {
      if (button.isConnected) button.disabled = false;
    }
  }

  async function remove(endpoint) {
    const ok = await confirm({
      title: 'Delete this webhook endpoint?',
      body: [el('p', null, 'No more events will be sent to ', el('code', null, endpoint.url), '.'),
        'Deliveries still waiting for a retry are dropped. This cannot be undone.'],
      confirmLabel: 'Delete endpoint',
      fallbackFocus: heading,
      onConfirm: () => {
        root.dataset.loaded = 'false';
      },
    });
    if (!ok) return;
    clearAlert();
    root.dataset.loaded = 'false';
    try {
      await api.del(resource('/v1/webhooks', endpoint.id));
      toast(`Endpoint ${endpoint.url} deleted.`);
      if (state.open && state.open.id === endpoint.id) closeDeliveries();
      await load();
    } catch (err) {
      if (root.isConnected) showAlert(`Could not delete ${endpoint.url}: ${err.message}`);
      root.dataset.loaded = 'true';
    }
  }

  function rowButton(action, label, endpoint, enabled, why, handler, extra = {}) {
    if (action !== 'deliveries' && !canWrite) return null;
    const button = el('button', {
      type: 'button', class: action === 'delete' ? 'btn btn-small btn-danger-outline' : 'btn btn-small',
      dataset: { action }, disabled: !enabled, title: enabled ? null : why,
      'aria-label': `${label}: ${endpoint.url}`, ...extra,
    }, label);
    if (enabled) button.addEventListener('click', () => handler(endpoint, button));
    return button;
  }

  function row(endpoint) {
    const active = endpoint.status === 'active';
    return el('tr', { dataset: { webhookId: endpoint.id, status: endpoint.status } },
      td('URL', el('div', { class: 'name-cell' },
        el('span', { class: 'name break' }, endpoint.url),
        el('code', { class: 'muted small id' }, endpoint.id))),
      td('Events', el('ul', { class: 'chips' }, (endpoint.events || []).map((e) => el('li', { class: 'chip' }, e)))),
      td('Status', badge(endpoint.status)),
      td('Created', timeCell(endpoint.created_at)),
      td('Actions', el('div', { class: 'row-actions' },
        rowButton('deliveries', 'Deliveries', endpoint, true, null, (e) => openDeliveries(e),
          { 'aria-controls': 'webhook-deliveries-slot' }),
        rowButton('test', 'Send test', endpoint, active, 'The endpoint is disabled (its receiver answered 410 Gone)', sendTest),
        rowButton('delete', 'Delete', endpoint, true, null, remove))));
  }

  async function load() {
    const seq = ++state.seq;
    root.dataset.loaded = 'false';
    if (!listSlot.firstChild) listSlot.append(loading('webhook endpoints'));
    try {
      const answer = await api.get('/v1/webhooks', { page: state.page, per_page: PER_PAGE });
      if (seq !== state.seq || !root.isConnected) return;
      if (answer.data.length === 0 && state.page > 1 && answer.meta.total > 0) {
        state.page = 1;
        load();
        return;
      }
      if (answer.data.length === 0) {
        replace(listSlot, canWrite
          ? emptyState('No webhook endpoints yet. Add one to hear about rotated and expiring tokens.',
            el('button', { type: 'button', class: 'btn btn-primary', onClick: () => openButton.click() }, 'Add an endpoint'))
          : emptyState('No webhook endpoints yet. Ask someone whose key holds webhooks:write to add one.'));
      } else {
        replace(listSlot,
          table({ id: 'webhook-table', caption: 'Webhook endpoints', columns: ['URL', 'Events', 'Status', 'Created', 'Actions'], rows: answer.data.map(row) }),
          pager('webhook', answer.meta, 'endpoints', (page) => {
            state.page = page;
            load();
          }));
      }
      root.dataset.loaded = 'true';
    } catch (err) {
      if (seq !== state.seq || !root.isConnected) return;
      replace(listSlot, sectionError('Could not load webhook endpoints', err, load));
      root.dataset.loaded = 'error';
    }
  }

  // ---- Delivery log -----------------------------------------------------------------------
  function closeDeliveries() {
    state.open = null;
    state.deliverySeq += 1;
    deliverySlot.replaceChildren();
  }

  function openDeliveries(endpoint, { quiet = false } = {}) {
    state.open = endpoint;
    state.deliveryPage = 1;
    const title = el('h2', { id: 'deliveries-title', tabindex: '-1' }, 'Delivery log');
    const refresh = el('button', { type: 'button', class: 'btn btn-small', id: 'deliveries-refresh' }, 'Refresh');
    const close = el('button', { type: 'button', class: 'btn btn-small btn-ghost', id: 'deliveries-close' }, 'Close');
    refresh.addEventListener('click', () => loadDeliveries());
    close.addEventListener('click', () => {
      const id = endpoint.id;
      closeDeliveries();
      const back = root.querySelector(`tr[data-webhook-id="${CSS.escape(id)}"] [data-action="deliveries"]`);
      if (back) back.focus();
      else heading().focus();
    });
    deliverySlot.replaceChildren(el('section', { class: 'card deliveries', 'aria-labelledby': 'deliveries-title', dataset: { webhookId: endpoint.id } },
      el('div', { class: 'card-header' },
        el('div', null, title, el('p', { class: 'muted small break' }, `Attempts to deliver events to ${endpoint.url}, newest first.`)),
        el('div', { class: 'section-actions' }, refresh, close)),
      el('div', { id: 'deliveries-body', 'aria-live': 'polite' }, loading('deliveries'))));
    if (!quiet) title.focus();
    loadDeliveries();
  }

  function outcome(attempt) {
    if (attempt.status_code !== null && attempt.status_code !== undefined) {
      const ok = attempt.status_code >= 200 && attempt.status_code < 300;
      return el('span', { class: `badge badge-${ok ? 'success' : 'danger'}` }, `HTTP ${attempt.status_code}`);
    }
    return el('span', { class: 'badge badge-danger', title: attempt.error || '' }, 'No answer');
  }

  function deliveryRow(a) {
    return el('tr', { dataset: { eventId: a.event_id, attempt: a.attempt } },
      td('Time', timeCell(a.created_at, { relative: true })),
      td('Event', el('div', { class: 'name-cell' }, el('span', null, a.type), el('code', { class: 'muted small id' }, a.event_id))),
      td('Attempt', String(a.attempt)),
      td('Result', el('div', { class: 'name-cell' }, outcome(a), a.error ? el('span', { class: 'muted small break' }, a.error) : null)),
      td('Duration', `${a.duration_ms} ms`),
      td('Next retry', a.next_retry_at ? timeCell(a.next_retry_at, { relative: true }) : el('span', { class: 'muted' }, '—')));
  }

  async function loadDeliveries() {
    const endpoint = state.open;
    if (!endpoint) return;
    const seq = ++state.deliverySeq;
    const body = deliverySlot.querySelector('#deliveries-body');
    try {
      const answer = await api.get(resource('/v1/webhooks', endpoint.id, '/deliveries'),
        { page: state.deliveryPage, per_page: PER_PAGE });
      if (seq !== state.deliverySeq || !body.isConnected) return;
      if (answer.data.length === 0) {
        replace(body,
          table({ id: 'deliveries', caption: 'Delivery attempts', columns: ['Time', 'Event', 'Attempt', 'Result', 'Duration', 'Next retry'], rows: [] }),
          emptyState(canWrite
            ? 'No deliveries yet. Send a test event to check that the endpoint answers, then refresh.'
            : 'No deliveries yet. Events appear here when tokens rotate or are about to expire.'));
      } else {
        replace(body,
          table({ id: 'deliveries', caption: 'Delivery attempts', columns: ['Time', 'Event', 'Attempt', 'Result', 'Duration', 'Next retry'], rows: answer.data.map(deliveryRow) }),
          pager('deliveries', answer.meta, 'attempts', (page) => {
            state.deliveryPage = page;
            loadDeliveries();
          }));
      }
      body.dataset.loaded = 'true';
    } catch (err) {
      if (seq !== state.deliverySeq || !body.isConnected) return;
      replace(body, sectionError('Could not load the delivery log', err, loadDeliveries));
      body.dataset.loaded = 'error';
    }
  }

  load();
}
