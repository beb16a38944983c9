// One gateway request in full (the Requests section's detail panel): every field of the
// request log's entry, and its timings as a waterfall of plain divs whose widths are
// percentages of the whole duration (a stream: waiting for the first token, then streaming).

import { clockSeconds, count, credits, longTime, millis, shortDate } from './format.js';
import { el } from './ui.js';

/** The badge kind of an HTTP status: 2xx success, 4xx warning, 5xx danger. */
export function statusKind(status) {
  if (status >= 200 && status < 300) return 'success';
  if (status >= 400 && status < 500) return 'warning';
  if (status >= 500) return 'danger';
  return 'neutral';
}

/** The status badge, and the error code beside it when there is one. */
export function statusCell(entry) {
  return el('span', { class: 'request-status' },
    el('span', { class: `badge badge-${statusKind(entry.status)}`, 'data-testid': 'request-status' }, String(entry.status)),
    entry.error ? el('code', { class: 'small request-error', 'data-testid': 'request-error' }, entry.error) : null);
}

/** Who sent it: the token's or key's name, else its id. */
export function who(entry) {
  return entry.credential_name || entry.token_id || entry.key_id || '—';
}

/** A width in percent of `whole`, kept within 0..100. */
function share(part, whole) {
  if (!(whole > 0) || !(part > 0)) return 0;
  return Math.min(100, (part / whole) * 100);
}

/** A segment of the bar, `percent` wide, with its value inside when there is room for it. */
function segment(name, kind, percent, label, title) {
  const node = el('div', {
    class: `waterfall-segment segment-${kind}`, dataset: { segment: name }, title,
  }, el('span', { class: 'waterfall-value', 'aria-hidden': 'true' }, label));
  // Through the CSSOM: the Content-Security-Policy refuses style attributes.
  node.style.width = `${percent}%`;
  return node;
}

function legendItem(kind, label, value) {
  return el('li', null,
    el('span', { class: `swatch segment-${kind}`, 'aria-hidden': 'true' }),
    `${label} `, el('strong', { class: 'figure' }, value));
}

/**
 * The timings as a waterfall: a stream with a first token in two segments (`first-token`,
 * then `streaming`); anything else in one (`whole`).
 */
export function waterfall(entry) {
  const total = Number(entry.duration_ms) || 0;
  const first = typeof entry.time_to_first_token_ms === 'number' ? entry.time_to_first_token_ms : null;
  const bar = el('div', { class: 'waterfall-bar' });
  const legend = el('ul', { class: 'waterfall-legend' });
  let said;
  if (entry.stream && first !== null) {
    const waiting = Math.min(first, total);
    const streaming = Math.max(0, total - waiting);
    const waitShare = share(waiting, total);
    bar.append(
      segment('first-token', 'wait', waitShare, millis(waiting), `Waiting for the first token: ${millis(waiting)}`),
      segment('streaming', 'stream', total > 0 ? 100 - waitShare : 0, millis(streaming), `Streaming: ${millis(streaming)}`));
    legend.append(
      legendItem('wait', 'Waiting for the first token', millis(waiting)),
      legendItem('stream', 'Streaming', millis(streaming)),
      el('li', null, 'Total ', el('strong', { class: 'figure' }, millis(total))));
    said = `First token after ${millis(waiting)}, then streamed for ${millis(streaming)}; ${millis(total)} in all.`;
  } else {
    const what = entry.stream ? 'No token streamed; ended after' : 'Answered in';
    bar.append(segment('whole', entry.stream ? 'wait' : 'whole', 100, millis(total), `${what} ${millis(total)}`));
    legend.append(legendItem(entry.stream ? 'wait' : 'whole', what, millis(total)));
    said = `${what} ${millis(total)}.`;
  }
  bar.setAttribute('role', 'img');
  bar.setAttribute('aria-label', said);
  return el('figure', {
    id: 'request-waterfall', class: 'waterfall',
    dataset: { durationMs: String(total), firstTokenMs: first === null ? null : String(first) },
  },
  el('figcaption', { class: 'subheading' }, 'Timing'),
  el('div', { class: 'waterfall-scale muted small', 'aria-hidden': 'true' },
    el('span', null, '0 ms'), el('span', null, millis(total))),
  bar, legend);
}

function optional(value, shown = (v) => String(v)) {
  return value === null || value === undefined || value === ''
    ? el('span', { class: 'muted' }, '—')
    : shown(value);
}

const code = (value) => el('code', { class: 'break' }, value);

/** Every field of the entry, in words, as pairs of <dt>/<dd>. */
function fields(entry) {
  const credential = entry.token_id || entry.key_id;
  const rows = [
    ['Request ID', code(entry.id)],
    ['Time', el('time', { datetime: entry.created_at, title: longTime(entry.created_at) },
      `${shortDate(entry.created_at)}, ${clockSeconds(entry.created_at)}`)],
    ['Endpoint', el('span', null, 'POST ', code(entry.endpoint))],
    [entry.key_id ? 'API key' : 'Token', el('span', { class: 'cell-stack' },
      el('span', null, entry.credential_name || '—'), optional(credential, (id) => el('code', { class: 'small muted' }, id)))],
    ['Model named', optional(entry.model, code)],
    ['Answered by', optional(entry.routed_model, code)],
    ['Deployment', optional(entry.deployment, code)],
    ['Why this model', optional(entry.route_reason), 'wide'],
    ['Status', statusCell(entry)],
    ['Error', optional(entry.error, code)],
    ['Streamed', entry.stream ? 'yes' : 'no'],
    ['Time to first token', entry.stream ? millis(entry.time_to_first_token_ms) : el('span', { class: 'muted' }, 'not streamed')],
    ['Duration', millis(entry.duration_ms)],
    ['Prompt tokens', optional(entry.prompt_tokens, count)],
    ['Of them cached', optional(entry.cached_tokens, count)],
    ['Completion tokens', optional(entry.completion_tokens, count)],
    ['Credits', optional(entry.credits, (c) => el('span', { class: 'mono', dataset: { credits: credits(c) } }, credits(c)))],
    ['Settled by x402 (token units)', optional(entry.x402_settled, (v) => el('span', { class: 'mono' }, v))],
    ['Agent session', optional(entry.session_id, code)],
  ];
  return el('dl', { class: 'request-fields', id: 'request-fields' },
    rows.map(([label, value, wide]) => el('div', { class: wide ? 'request-field request-field-wide' : 'request-field' },
      el('dt', { class: 'muted small' }, label), el('dd', null, value))));
}

/** A kept body: its heading and the text as the server kept it (secrets already redacted). */
function body(id, label, text) {
  return el('div', { class: 'request-body', id },
    el('h4', { class: 'small' }, label),
    el('pre', { class: 'mono small' }, text));
}

/**
 * The kept bodies, or why there are none, in `#request-content`. A listing carries no bodies, so
 * a detail opened from a row says `pending` until the request itself has been read.
 */
export function content(entry, { pending = false } = {}) {
  const parts = [];
  if (pending) {
    parts.push(el('p', { class: 'muted small', role: 'status' }, 'Looking for its kept bodies…'));
  } else if (entry.request_body || entry.response_body) {
    if (entry.request_body) parts.push(body('request-body', 'Request body (secrets redacted)', entry.request_body));
    if (entry.response_body) parts.push(body('response-body', 'Answer (secrets redacted)', entry.response_body));
  } else {
    parts.push(el('p', { class: 'muted small', id: 'request-content-note' },
      'Message content is not stored for this request: the workspace was not keeping bodies when it arrived (“Keep request and answer bodies”, above the filters).'));
  }
  return el('div', { class: 'stack', id: 'request-content' }, parts);
}

/** The panel's body for `entry`: the waterfall, the fields, and the bodies when the server keeps them. */
export function detailBody(entry, { pending = false } = {}) {
  return [waterfall(entry), fields(entry), content(entry, { pending })];
}
