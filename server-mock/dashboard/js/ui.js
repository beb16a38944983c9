// DOM helpers. Text always goes in through textContent / text nodes and attributes through
// setAttribute: names, URLs and messages come from users and the API, never as HTML.

import { clockTime, longTime, relativeTime, shortDate } from './format.js';

const SVG_NS = 'http://www.w3.org/2000/svg';

function apply(node, attrs) {
  if (!attrs) return;
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === 'dataset') {
      for (const [key, data] of Object.entries(value)) {
        if (data !== undefined && data !== null) node.dataset[key] = String(data);
      }
    } else if (/^on[A-Z]/.test(name) && typeof value === 'function') {
      node.addEventListener(name.slice(2).toLowerCase(), value);
    } else if (name === 'text') {
      node.textContent = String(value);
    } else {
      node.setAttribute(name === 'className' ? 'class' : name, value === true ? '' : String(value));
    }
  }
}

function append(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** el('button', {class: 'btn', onClick: fn}, 'Label', otherNode) */
export function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  apply(node, attrs);
  append(node, children);
  return node;
}

/** The same for SVG elements. */
export function svg(tag, attrs, ...children) {
  const node = document.createElementNS(SVG_NS, tag);
  apply(node, attrs);
  append(node, children);
  return node;
}

/** Replaces every child of `node`. */
export function replace(node, ...children) {
  node.replaceChildren();
  append(node, children);
  return node;
}

/** Shows or hides with the `hidden` attribute. */
export function show(node, visible) {
  if (visible) node.removeAttribute('hidden');
  else node.setAttribute('hidden', '');
}

// ---- Alerts and toasts -------------------------------------------------------------------

/** Shows an error (or notice) in the page's #alert region, which has role=alert. */
export function showAlert(message, kind = 'error') {
  const region = document.getElementById('alert');
  if (!region) return;
  region.className = `alert alert-${kind}`;
  replace(
    region,
    el('p', { class: 'alert-text' }, message),
    el('button', {
      type: 'button',
      class: 'btn btn-small btn-ghost',
      id: 'alert-dismiss',
      'aria-label': 'Dismiss message',
      onClick: () => clearAlert(),
    }, 'Dismiss'),
  );
  show(region, true);
}

export function clearAlert() {
  const region = document.getElementById('alert');
  if (!region) return;
  region.replaceChildren();
  show(region, false);
}

/** A short confirmation that goes away by itself. */
export function toast(message) {
  const region = document.getElementById('toasts');
  if (!region) return;
  const item = el('div', { class: 'toast' }, message);
  region.append(item);
  setTimeout(() => item.remove(), 5000);
}

/** An inline error box for a form: <div id="form-error" role="alert">. */
export function formError(id = 'form-error') {
  const box = el('div', { id, class: 'form-error', role: 'alert', hidden: true });
  return {
    node: box,
    set(message) {
      replace(box, message || '');
      show(box, Boolean(message));
    },
  };
}

// ---- Buttons -------------------------------------------------------------------------------

/** Disables a button while `work` runs, showing `busyLabel`. */
export async function busy(button, busyLabel, work) {
  const label = button.textContent;
  button.disabled = true;
  button.setAttribute('aria-busy', 'true');
  if (busyLabel) button.textContent = busyLabel;
  try {
    return await work();
  } finally {
    if (button.isConnected) {
      button.disabled = false;
      button.removeAttribute('aria-busy');
      button.textContent = label;
    }
  }
}

// ---- Dialogs -------------------------------------------------------------------------------

let confirmParts = null;

function confirmDialog() {
  if (confirmParts && confirmParts.dialog.isConnected) return confirmParts;
  const title = el('h2', { id: 'confirm-title', class: 'dialog-title' });
  const body = el('div', { id: 'confirm-body', class: 'dialog-body' });
  const cancel = el('button', { type: 'button', id: 'confirm-cancel', class: 'btn' }, 'Cancel');
  const ok = el('button', { type: 'button', id: 'confirm-ok', class: 'btn btn-danger' }, 'Confirm');
  const dialog = el('dialog', {
    id: 'confirm-dialog',
    class: 'dialog',
    'aria-labelledby': 'confirm-title',
    'aria-describedby': 'confirm-body',
  }, title, body, el('div', { class: 'dialog-actions' }, cancel, ok));
  document.body.append(dialog);
  confirmParts = { dialog, title, body, cancel, ok };
  return confirmParts;
}

/**
 * Asks to confirm a destructive action. Resolves true on confirm, false on cancel or Escape;
 * `onConfirm` runs synchronously inside the confirm click.
 * Focus goes back to what had it (or to `fallbackFocus()` when that element is gone).
 */
export function confirm({ title, body, confirmLabel = 'Confirm', danger = true, fallbackFocus, onConfirm }) {
  const parts = confirmDialog();
  const opener = document.activeElement;
  parts.title.textContent = title;
  replace(parts.body, ...(Array.isArray(body) ? body : [body]).map((p) =>
    typeof p === 'string' ? el('p', null, p) : p));
  parts.ok.textContent = confirmLabel;
  parts.ok.className = danger ? 'btn btn-danger' : 'btn btn-primary';
  return new Promise((resolve) => {
    let answer = false;
    const finish = (value) => {
      answer = value;
      if (parts.dialog.open) parts.dialog.close();
    };
    const onOk = () => {
      // Runs in the click itself, so a test sees the section busy before the dialog closes.
      if (onConfirm) onConfirm();
      finish(true);
    };
    const onCancel = () => finish(false);
    const onClose = () => {
      parts.ok.removeEventListener('click', onOk);
      parts.cancel.removeEventListener('click', onCancel);
      parts.dialog.removeEventListener('close', onClose);
      restoreFocus(opener, fallbackFocus);
      resolve(answer);
    };
    parts.ok.addEventListener('click', onOk);
    parts.cancel.addEventListener('click', onCancel);
    parts.dialog.addEventListener('close', onClose);
    parts.dialog.showModal();
    parts.cancel.focus();
  });
}

/** Focuses `node` if it is still in the page, else what `fallback` returns. */
export function restoreFocus(node, fallback) {
  if (node && node.isConnected && typeof node.focus === 'function' && !node.disabled) {
    node.focus();
    return;
  }
  const other = typeof fallback === 'function' ? fallback() : null;
  if (other && other.isConnected) other.focus();
}

// ---- Secrets -------------------------------------------------------------------------------

/** Copies `text` to the clipboard; falls back to selecting `node` and execCommand. */
export async function copyText(text, node) {
  if (navigator.clipboard && window.isSecureContext) {
    try {
      await navigator.clipboard.writeText(text);
      return true;
    } catch {
      // fall through to the selection fallback
    }
  }
  if (node) {
    const range = document.createRange();
    range.selectNodeContents(node);
    const selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
    try {
      if (document.execCommand('copy')) return true;
    } catch {
      // the text stays selected for Ctrl+C
    }
  }
  return false;
}

/** A button that copies `text` and says so. */
export function copyButton(text, target, attrs = {}) {
  const button = el('button', { type: 'button', class: 'btn btn-small', ...attrs }, 'Copy');
  button.addEventListener('click', async () => {
    const done = await copyText(text, target);
    button.textContent = done ? 'Copied' : 'Press Ctrl+C';
    toast(done ? 'Copied to the clipboard.' : 'Copying was blocked: the secret is selected, press Ctrl+C (⌘C) to copy it.');
    setTimeout(() => {
      if (button.isConnected) button.textContent = 'Copy';
    }, 2500);
  });
  return button;
}

/**
 * Shows a newly issued secret once, in `slot` (replacing any other secret panel on the page).
 * `onDismiss` runs when the person says they have copied it.
 */
export function showSecret(slot, { title, intro, secret, usage, onDismiss }) {
  const existing = document.getElementById('secret-panel');
  if (existing) existing.remove();
  const value = el('code', { id: 'secret-value', class: 'secret-value' }, secret);
  const heading = el('h2', { id: 'secret-title', tabindex: '-1' }, title);
  const dismiss = el('button', { type: 'button', id: 'secret-dismiss', class: 'btn' }, 'Done, I have copied it');
  const panel = el('section', { id: 'secret-panel', class: 'secret-panel', 'aria-labelledby': 'secret-title' },
    heading,
    intro ? el('p', null, intro) : null,
    el('div', { class: 'secret-row' }, value, copyButton(secret, value, { id: 'secret-copy', class: 'btn btn-primary' })),
    el('p', { class: 'secret-warning', id: 'secret-note' },
      el('strong', null, 'You will not see it again. '),
      'Copy it now and store it somewhere safe, such as your CI system’s secret store. ',
      'If it is lost, rotate or create a new one.'),
    usage ? el('p', { class: 'muted small' }, usage) : null,
    el('div', { class: 'secret-actions' }, dismiss),
  );
  dismiss.addEventListener('click', () => {
    panel.remove();
    if (onDismiss) onDismiss();
  });
  slot.replaceChildren(panel);
  heading.focus();
  return panel;
}

// ---- Small building blocks ------------------------------------------------------------------

const STATUS_KIND = {
  active: 'success',
  expired: 'warning',
  revoked: 'neutral',
  disabled: 'danger',
};

/** A status badge: active / expired / revoked / disabled. */
export function badge(status, kind) {
  return el('span', { class: `badge badge-${kind || STATUS_KIND[status] || 'neutral'}`, dataset: { status } }, status);
}

/**
 * A <time>: the local date, under it the local time of day (or, with `relative`, "in 6 days"),
 * the full date and time as its title.
 */
export function timeCell(iso, { empty = '—', relative = false } = {}) {
  if (!iso) return el('span', { class: 'muted nowrap' }, empty);
  return el('time', { datetime: iso, title: longTime(iso), class: 'time-stack' },
    el('span', null, shortDate(iso)),
    el('span', { class: 'muted small' }, relative ? relativeTime(iso) : clockTime(iso)));
}

/** An empty state: what is missing and what to do next. */
export function emptyState(message, ...actions) {
  return el('div', { class: 'empty-state', 'data-testid': 'empty-state' },
    el('p', null, message),
    actions.length ? el('div', { class: 'empty-actions' }, ...actions) : null);
}

/** A loading line for a list. */
export function loading(what) {
  return el('p', { class: 'loading muted', role: 'status' }, `Loading ${what}…`);
}

/**
 * An error box inside a section (e.g. the list could not be read): `what` failed because of
 * `err`; a retry button unless retrying cannot help (a missing scope).
 */
export function sectionError(what, err, retry) {
  const denied = err && err.status === 403;
  const message = denied
    ? `${what}: ${err.message}. Sign in with an API key that holds this scope to see it.`
    : `${what}: ${err && err.message ? err.message : err}`;
  return el('div', { class: 'alert alert-error section-error', role: 'alert', 'data-testid': 'section-error' },
    el('p', { class: 'alert-text' }, message.replace(/\.\./g, '.')),
    retry && !denied ? el('button', { type: 'button', class: 'btn btn-small', onClick: retry }, 'Try again') : null);
}

/**
 * What a filtered list shows when it could not be read: a filter the server refused (400, 422)
 * said next to the filters (`error`, a formError) with the list emptied, else a section error
 * in the list's place, with a retry.
 */
export function listError(slot, error, what, err, retry) {
  if (err.status === 400 || err.status === 422) {
    error.set(`The server refused these filters: ${err.message}`);
    replace(slot);
  } else {
    replace(slot, sectionError(what, err, retry));
  }
}

function singular(noun) {
  if (noun === 'entries') return 'entry';
  return noun.replace(/s$/, '');
}

/** Previous / next controls for a list envelope's meta (buttons only when there are pages). */
export function pager(prefix, meta, noun, onPage) {
  const page = Number(meta.page) || 1;
  const perPage = Number(meta.per_page) || 25;
  const total = Number(meta.total) || 0;
  const pages = Math.max(1, Math.ceil(total / perPage));
  const from = total === 0 ? 0 : (page - 1) * perPage + 1;
  const to = Math.min(total, page * perPage);
  const prev = el('button', { type: 'button', class: 'btn btn-small', id: `${prefix}-page-prev`, disabled: page <= 1 }, 'Previous');
  const next = el('button', { type: 'button', class: 'btn btn-small', id: `${prefix}-page-next`, disabled: page >= pages }, 'Next');
  prev.addEventListener('click', () => onPage(page - 1));
  next.addEventListener('click', () => onPage(page + 1));
  let info = `${from}–${to} of ${total} ${noun} · page ${page} of ${pages}`;
  if (total === 0) info = `No ${noun}`;
  else if (pages === 1 && page === 1) info = total === 1 ? `1 ${singular(noun)}` : `${total} ${noun}`;
  return el('nav', { class: 'pager', 'aria-label': `${noun} pages` },
    el('span', { class: 'muted', id: `${prefix}-page-info` }, info),
    pages > 1 || page > 1 ? el('span', { class: 'pager-buttons' }, prev, next) : null);
}

/** A table cell with the column name for the stacked phone layout. */
export function td(label, ...children) {
  return el('td', { 'data-label': label }, ...children);
}

/**
 * A table with a caption (visually hidden) and header row. On phones it becomes stacked cards,
 * or with `stack: false` scrolls sideways (for narrow numeric tables).
 */
export function table({ id, caption, columns, rows, className = '', stack = true }) {
  return el('div', { class: stack ? 'table-wrap' : 'table-wrap table-scroll', tabindex: stack ? null : '0', 'aria-label': stack ? null : caption, role: stack ? null : 'region' },
    el('table', { id, class: `table ${stack ? 'table-stack' : ''} ${className}`.replace(/\s+/g, ' ').trim() },
      el('caption', { class: 'visually-hidden' }, caption),
      el('thead', null, el('tr', null, columns.map((c) => el('th', { scope: 'col' }, c)))),
      el('tbody', null, rows)));
}

/** The heading block of a section: title, description, actions on the right. */
export function sectionHeader(id, title, description, ...actions) {
  return el('header', { class: 'section-header' },
    el('div', null,
      el('h1', { id, tabindex: '-1' }, title),
      description ? el('p', { class: 'muted' }, description) : null),
    actions.length ? el('div', { class: 'section-actions' }, ...actions) : null);
}
