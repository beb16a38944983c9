// The sign-in screen: paste an API key once; the server answers with an HttpOnly session
// cookie. The key only lives in the password field until the request is sent.

import { session } from './api.js';
import { el, replace, show } from './ui.js';

/**
 * Renders the sign-in screen into `app`. `notice` is a message shown above the form (e.g. why
 * the session ended); `onSignedIn(answer)` runs with the POST /session answer.
 */
export function renderSignIn(app, { notice, noticeKind = 'info', onSignedIn }) {
  const input = el('input', {
    type: 'password',
    id: 'signin-key',
    name: 'key',
    autocomplete: 'off',
    autocapitalize: 'off',
    spellcheck: 'false',
    required: true,
    placeholder: 'tka_…',
    'aria-describedby': 'signin-hint signin-error',
  });
  const error = el('p', { id: 'signin-error', class: 'field-error', role: 'alert', hidden: true });
  const submit = el('button', { type: 'submit', id: 'signin-submit', class: 'btn btn-primary btn-block' }, 'Sign in');
  const form = el('form', { id: 'signin-form', class: 'signin-form', novalidate: true },
    el('div', { class: 'field' },
      el('label', { for: 'signin-key' }, 'API key'),
      input,
      error,
      el('p', { id: 'signin-hint', class: 'field-hint' },
        'Paste an API key of your workspace (it starts with tka_). Token secrets cannot sign in. ',
        'The key is sent once; the browser keeps only a session cookie, for at most 12 hours.')),
    submit);

  const noticeBox = notice
    ? el('div', { id: 'signin-notice', class: `alert alert-${noticeKind}`, role: 'status' }, el('p', { class: 'alert-text' }, notice))
    : null;

  replace(app,
    el('main', { class: 'signin', id: 'main' },
      el('div', { class: 'signin-card card' },
        el('div', { class: 'signin-brand' },
          el('img', { src: '/favicon.svg', alt: '', width: '40', height: '40' }),
          el('span', { class: 'brand-name' }, 'tokctl')),
        el('h1', { class: 'signin-title' }, 'Sign in to the dashboard'),
        noticeBox,
        form),
      el('p', { class: 'signin-footer muted small' },
        'No key? The server printed an admin key on its first start (also in admin.key in its data directory), ',
        'or create one with ', el('code', null, 'tokctl-server admin create-key'), '.')));
  app.removeAttribute('aria-busy');

  const setError = (message) => {
    error.textContent = message || '';
    show(error, Boolean(message));
    if (message) input.setAttribute('aria-invalid', 'true');
    else input.removeAttribute('aria-invalid');
  };

  input.addEventListener('input', () => {
    if (!error.hidden) setError('');
  });

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const key = input.value.trim();
    if (!key) {
      setError('Paste an API key to sign in.');
      input.focus();
      return;
    }
    setError('');
    submit.disabled = true;
    submit.textContent = 'Signing in…';
    try {
      const answer = await session.signIn(key);
      input.value = '';
      onSignedIn(answer);
    } catch (err) {
      let message = err.message;
      if (err.status === 401) message = `That key was not accepted: ${err.message}`;
      else if (err.status === 429) message = `Too many sign-in attempts: ${err.message}`;
      setError(message);
      input.focus();
      input.select();
    } finally {
      if (submit.isConnected) {
        submit.disabled = false;
        submit.textContent = 'Sign in';
      }
    }
  });

  input.focus();
}
