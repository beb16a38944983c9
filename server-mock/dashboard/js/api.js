// The dashboard's only way to the server: same-origin fetch, the session cookie sent by the
// browser, the per-session CSRF token in a header. Never an Authorization header, and the API
// key is never kept anywhere in the browser.

let csrfToken = null;
let unauthorizedHandler = null;
let csrfRefresher = null;

/** An error the API answered (or a network failure, status 0), with its message in words. */
export class ApiError extends Error {
  constructor(message, status, code) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code || '';
  }
}

/** Sets the CSRF token every request carries (null after signing out). */
export function setCsrfToken(token) {
  csrfToken = token || null;
}

/**
 * Called on a 403 for a stale CSRF token (another tab signed in again and replaced the cookie):
 * resolves true when the app has the current session's token, so the request is sent again
 * (the server refused it before doing anything).
 */
export function onStaleCsrf(refresher) {
  csrfRefresher = refresher;
}

/** Called once per 401 from /v1: the session has ended, the app goes back to sign-in. */
export function onUnauthorized(handler) {
  unauthorizedHandler = handler;
}

// Credits are exact decimals on the wire (JSON numbers such as 0.0102). Keep their text as
// written, so nothing is shown rounded or as 0.010199999999999999.
/** Fields that hold credit amounts: kept as the API wrote them (exact decimal text). */
const AMOUNTS = new Set(['credits', 'credit_limit', 'spent', 'reserved', 'remaining']);

function parseJson(text) {
  return JSON.parse(text, function revive(key, value, context) {
    if (AMOUNTS.has(key) && typeof value === 'number') {
      if (context && typeof context.source === 'string') return context.source;
      return plainDecimal(value);
    }
    return value;
  });
}

/** A number as plain decimal text (no exponent), for browsers without JSON source access. */
export function plainDecimal(value) {
  const text = String(value);
  if (!/e/i.test(text)) return text;
  return value.toFixed(9).replace(/\.?0+$/, '');
}

const REASONS = {
  400: 'Bad request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not found',
  409: 'Conflict',
  422: 'Unprocessable entity',
  429: 'Too many requests',
  500: 'Internal server error',
  502: 'Bad gateway',
  503: 'Service unavailable',
  504: 'Gateway timeout',
};

function withQuery(path, query) {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== '') params.set(name, String(value));
  }
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

async function send(method, path, { body, query, isSession = false, retried = false } = {}) {
  const headers = { Accept: 'application/json' };
  if (csrfToken) headers['X-CSRF-Token'] = csrfToken;
  const init = { method, headers, credentials: 'same-origin', cache: 'no-store', redirect: 'error' };
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(withQuery(path, query), init);
  } catch {
    throw new ApiError(
      'Could not reach the server. Check that tokctl-server is running and try again.',
      0,
      'network',
    );
  }
  let text = '';
  try {
    text = await response.text();
  } catch {
    text = '';
  }
  let data = null;
  if (text) {
    try {
      data = parseJson(text);
    } catch {
      data = null;
    }
  }
  if (!response.ok) {
    // The gateway's paths (/v1/models, /v1/chat/...) answer in OpenAI's envelope:
    // {"error": {"message", "type", "code"}}; the token API's body is {"error", "message"}.
    const envelope = data && data.error && typeof data.error === 'object' ? data.error : null;
    const said = envelope ? envelope.message : data && data.message;
    let message = typeof said === 'string' && said.trim();
    if (!message) {
      const reason = REASONS[response.status] || response.statusText || 'Error';
      message = `The server answered ${response.status} ${reason}.`;
    }
    if (response.status === 429) {
      const wait = response.headers.get('Retry-After');
      if (wait && !/\d+\s*s/.test(message)) message += ` Try again in ${wait} s.`;
    }
    if (response.status === 403 && !isSession && !retried && csrfRefresher && /csrf/i.test(message)) {
      if (await csrfRefresher()) return send(method, path, { body, query, isSession, retried: true });
    }
    const code = envelope ? envelope.code || envelope.type : data && data.error;
    const error = new ApiError(message, response.status, code);
    if (response.status === 401 && !isSession && unauthorizedHandler) unauthorizedHandler(error);
    throw error;
  }
  return data;
}

/** The public token API (paths start with /v1). */
export const api = {
  get: (path, query) => send('GET', path, { query }),
  post: (path, body) => send('POST', path, { body: body === undefined ? {} : body }),
  put: (path, body) => send('PUT', path, { body }),
  patch: (path, body) => send('PATCH', path, { body }),
  del: (path) => send('DELETE', path),
};

/**
 * Every page of a list (per_page 100), up to `maxPages`. Returns
 * { items, total, complete, first } where `first` is the first page's whole answer.
 */
export async function fetchAll(path, query = {}, maxPages = 20) {
  const items = [];
  let first = null;
  let total = 0;
  for (let page = 1; page <= maxPages; page += 1) {
    const answer = await api.get(path, { ...query, page, per_page: 100 });
    if (!first) first = answer;
    const data = Array.isArray(answer && answer.data) ? answer.data : [];
    total = answer && answer.meta ? Number(answer.meta.total) || 0 : data.length;
    items.push(...data);
    if (data.length === 0 || items.length >= total) {
      return { items, total, complete: true, first };
    }
  }
  return { items, total, complete: items.length >= total, first };
}

/** Dashboard sign-in endpoints (outside /v1). A 401 here is an answer, not a lost session. */
export const session = {
  current: () => send('GET', '/session', { isSession: true }),
  signIn: (key) => send('POST', '/session', { body: { key }, isSession: true }),
  signOut: () => send('DELETE', '/session', { isSession: true }),
};

/** The path of one resource, its id escaped. */
export function resource(base, id, suffix = '') {
  return `${base}/${encodeURIComponent(id)}${suffix}`;
}
