// The dashboard shell: decides signed in or not (GET /session), draws the top bar and the
// navigation, and routes on location.hash (#/tokens, #/audit, #/webhooks, #/usage, #/requests,
// #/models, #/settings/keys, #/settings/x402) to the section modules. A section's render() may return a function, called
// when the section is left (another route, signing out), to stop what it keeps running.

import { api, onStaleCsrf, onUnauthorized, session, setCsrfToken } from './api.js';
import * as audit from './audit.js';
import * as keys from './keys.js';
import * as models from './models.js';
import * as requests from './requests.js';
import { renderSignIn } from './signin.js';
import * as tokens from './tokens.js';
import { clearAlert, el, replace, showAlert } from './ui.js';
import * as usage from './usage.js';
import * as webhooks from './webhooks.js';
import * as x402 from './x402.js';

const ROUTES = [
  { path: '/tokens', label: 'Tokens', section: 'section-tokens', module: tokens },
  { path: '/audit', label: 'Audit log', section: 'section-audit', module: audit },
  { path: '/webhooks', label: 'Webhooks', section: 'section-webhooks', module: webhooks },
  { path: '/usage', label: 'Usage', section: 'section-usage', module: usage },
  { path: '/requests', label: 'Requests', section: 'section-requests', module: requests },
  { path: '/models', label: 'Models', section: 'section-models', module: models },
  { path: '/settings/keys', label: 'API keys', section: 'section-keys', module: keys, group: 'Settings' },
  { path: '/settings/x402', label: 'x402 payments', section: 'section-x402', module: x402, group: 'Settings' },
];
const DEFAULT_PATH = '/tokens';
const ALIASES = { '': DEFAULT_PATH, '/': DEFAULT_PATH, '/settings': '/settings/keys', '/keys': '/settings/keys' };

const app = document.getElementById('app');

/** What every section gets: the session, the scopes it holds, the scope list (cached). */
const ctx = {
  session: null,
  held: new Set(),
  scopeList: null,
  holds(scope) {
    return this.held.has(scope);
  },
  scopes() {
    if (!this.scopeList) {
      this.scopeList = api.get('/v1/scopes').then((answer) => answer.data).catch((err) => {
        this.scopeList = null;
        throw err;
      });
    }
    return this.scopeList;
  },
};

let shell = null;
let leaveSection = null;

/** Lets the section on screen stop its timers before another replaces it. */
function leaveCurrentSection() {
  const leave = leaveSection;
  leaveSection = null;
  if (leave) leave();
}

function parseHash() {
  let raw = location.hash.replace(/^#/, '');
  try {
    raw = decodeURI(raw);
  } catch {
    // keep it as written
  }
  const [pathPart, query = ''] = raw.split('?');
  const path = pathPart.replace(/\/+$/, '') || '';
  return { path: ALIASES[path] ?? path, params: new URLSearchParams(query) };
}

// ---- Signed out -------------------------------------------------------------------------------

function showSignIn(notice, noticeKind) {
  leaveCurrentSection();
  ctx.session = null;
  ctx.held = new Set();
  ctx.scopeList = null;
  shell = null;
  setCsrfToken(null);
  const dialog = document.getElementById('confirm-dialog');
  if (dialog) dialog.remove();
  document.title = 'Sign in · tokctl';
  renderSignIn(app, { notice, noticeKind, onSignedIn: (answer) => signedIn(answer, true) });
}

function signedIn(answer, fresh) {
  ctx.session = answer;
  ctx.held = new Set((answer.key && answer.key.scopes) || []);
  ctx.scopeList = null;
  setCsrfToken(answer.csrf_token);
  renderShell();
  route({ focus: fresh });
}

async function signOut(button) {
  button.disabled = true;
  try {
    try {
      await session.signOut();
    } catch (err) {
      if (err.status !== 403) throw err;
      // Another tab signed in again and replaced the cookie: sign out of that session.
      const current = await session.current();
      setCsrfToken(current.csrf_token);
      await session.signOut();
    }
  } catch (err) {
    if (err.status !== 401) {
      button.disabled = false;
      showAlert(`Could not sign out: ${err.message}`);
      return;
    }
  }
  showSignIn('You have signed out. The session has ended on the server as well.');
}

// ---- Shell ------------------------------------------------------------------------------------

function navLink(route) {
  return el('li', null, el('a', { href: `#${route.path}`, class: 'nav-link', dataset: { path: route.path } }, route.label));
}

function renderShell() {
  const s = ctx.session;
  const keyName = (s.key && s.key.name) || (s.key && s.key.id) || 'unknown key';
  const workspace = (s.workspace && (s.workspace.name || s.workspace.id)) || 'unknown workspace';
  const signout = el('button', { type: 'button', id: 'signout', class: 'btn btn-small' }, 'Sign out');
  signout.addEventListener('click', () => signOut(signout));

  const main = ROUTES.filter((r) => !r.group);
  const settings = ROUTES.filter((r) => r.group === 'Settings');
  const nav = el('nav', { class: 'sidenav', id: 'nav', 'aria-label': 'Sections' },
    el('ul', { class: 'nav-list' }, main.map(navLink)),
    el('p', { class: 'nav-group', id: 'nav-settings' }, 'Settings'),
    el('ul', { class: 'nav-list', 'aria-labelledby': 'nav-settings' }, settings.map(navLink)));

  const whoami = el('p', { id: 'whoami', class: 'whoami', title: `Signed in with API key ${s.key ? s.key.id : ''}` },
    el('span', { class: 'whoami-label' }, 'Signed in as '),
    el('strong', { class: 'whoami-key', 'data-testid': 'whoami-key' }, keyName),
    el('span', { class: 'whoami-sep' }, ' · '),
    el('span', { class: 'whoami-label' }, 'workspace '),
    el('strong', { class: 'whoami-workspace', 'data-testid': 'whoami-workspace' }, workspace));

  const view = el('div', { id: 'view' });
  const mainEl = el('main', { id: 'main', class: 'main', tabindex: '-1' },
    el('div', { id: 'alert', class: 'alert', role: 'alert', hidden: true }),
    view);

  replace(app,
    el('a', { href: '#main', class: 'skip-link', id: 'skip-link' }, 'Skip to content'),
    el('div', { class: 'shell' },
      el('header', { class: 'topbar' },
        el('a', { href: `#${DEFAULT_PATH}`, class: 'brand', 'aria-label': 'tokctl dashboard home' },
          el('img', { src: '/favicon.svg', alt: '', width: '24', height: '24' }),
          el('span', { class: 'brand-name' }, 'tokctl')),
        el('span', { class: 'workspace-pill', title: 'Workspace' }, workspace),
        el('div', { class: 'topbar-right' }, whoami, signout)),
      nav,
      mainEl));
  app.removeAttribute('aria-busy');
  // The skip link must not change the route.
  app.querySelector('#skip-link').addEventListener('click', (event) => {
    event.preventDefault();
    mainEl.focus();
  });
  shell = { view, nav };
}

function route({ focus = false } = {}) {
  if (!ctx.session || !shell) return;
  const { path, params } = parseHash();
  const found = ROUTES.find((r) => r.path === path);
  if (!found) {
    location.replace(`#${DEFAULT_PATH}`);
    return;
  }
  clearAlert();
  for (const link of shell.nav.querySelectorAll('a.nav-link')) {
    if (link.dataset.path === found.path) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  const current = shell.nav.querySelector('a[aria-current="page"]');
  if (current && typeof current.scrollIntoView === 'function') current.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  document.title = `${found.group ? `${found.group}: ` : ''}${found.label} · tokctl`;
  const root = el('section', { id: found.section, class: 'section', dataset: { loaded: 'false' } });
  leaveCurrentSection();
  shell.view.replaceChildren(root);
  try {
    const leave = found.module.render(root, ctx, params);
    if (typeof leave === 'function') leaveSection = leave;
  } catch (err) {
    root.dataset.loaded = 'error';
    showAlert(`This section failed to load: ${err.message}`);
  }
  const heading = root.querySelector('h1');
  if (heading) {
    root.setAttribute('aria-labelledby', heading.id);
    if (focus) heading.focus({ preventScroll: false });
  }
  window.scrollTo(0, 0);
}

// ---- Start ------------------------------------------------------------------------------------

let ending = false;
onUnauthorized((err) => {
  if (!ctx.session || ending) return;
  ending = true;
  setTimeout(() => {
    ending = false;
  }, 0);
  const said = err && err.message && err.status ? err.message : 'Your dashboard session has ended; sign in again';
  showSignIn(`${said.replace(/\.$/, '')}.`, 'warning');
});

// Another tab signed in again (new cookie): take that session's CSRF token, or, when it is a
// different key, redraw the page for it.
onStaleCsrf(async () => {
  if (!ctx.session) return false;
  try {
    const answer = await session.current();
    if (answer.key && ctx.session.key && answer.key.id === ctx.session.key.id) {
      ctx.session = answer;
      setCsrfToken(answer.csrf_token);
      return true;
    }
    signedIn(answer, false);
    showAlert(`You signed in as ${answer.key ? answer.key.name : 'another key'} in another tab; this page now uses that session.`, 'info');
    return false;
  } catch (err) {
    if (err.status === 401) showSignIn('Your dashboard session has ended; sign in again.', 'warning');
    return false;
  }
});

window.addEventListener('hashchange', () => route({ focus: true }));

window.addEventListener('unhandledrejection', (event) => {
  const reason = event.reason;
  showAlert(`Something went wrong: ${reason && reason.message ? reason.message : String(reason)}`);
});

async function start() {
  try {
    const answer = await session.current();
    signedIn(answer, false);
  } catch (err) {
    if (err.status === 401) showSignIn();
    else showSignIn(`Could not check your session: ${err.message}`, 'error');
  }
}

start();
