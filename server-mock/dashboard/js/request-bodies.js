// The Requests section's switch for the workspace's `store_bodies` setting (GET and
// PUT /v1/settings): whether the request log keeps each new request's body and its answer,
// secrets redacted and cut at the server's cap. Shown with its saved value; a change is saved at
// once, and a refusal (e.g. a key without settings:write) is said in the API's words while the
// switch goes back to what is saved. Without settings:read there is no value to show: the switch
// is left out and the reason given instead, as other sections do for a scope the key lacks.

import { api } from './api.js';
import { clockTime, longTime, shortDate } from './format.js';
import { el, formError, replace, sectionError } from './ui.js';

const ID = 'requests-store-bodies';

/** When the setting was last changed, in words (`null`: never, the server's default applies). */
function since(settings, justSaved) {
  if (justSaved) return 'Saved just now.';
  if (!settings.updated_at) return 'The server’s default: this workspace has not chosen yet.';
  return el('span', null, 'Changed ',
    el('time', { datetime: settings.updated_at, title: longTime(settings.updated_at) },
      `${shortDate(settings.updated_at)}, ${clockTime(settings.updated_at)}`), '.');
}

/**
 * The card: `#requests-bodies[data-loaded]` ("false" while read or saved, "true" once shown,
 * "error" when the setting could not be read), the switch `#requests-store-bodies`, its saved
 * state `#requests-store-bodies-state[data-state="on"|"off"]`, the API's refusal in
 * `#requests-bodies-error`.
 */
export function bodiesSetting(ctx) {
  const card = el('section', {
    class: 'card request-bodies', id: 'requests-bodies', 'aria-label': 'Request and answer bodies',
    dataset: { loaded: 'false' },
  });
  if (!ctx.holds('settings:read')) {
    card.dataset.loaded = 'true';
    return replace(card, el('p', { class: 'muted small', id: 'requests-bodies-missing-scope' },
      'Your key does not hold settings:read, so it cannot show whether request and answer bodies are kept.'));
  }

  const box = el('input', {
    type: 'checkbox', role: 'switch', id: ID, name: 'store_bodies',
    'aria-describedby': `${ID}-hint ${ID}-state`,
  });
  const state = el('p', { class: 'request-bodies-state small', id: `${ID}-state`, role: 'status' });
  const error = formError('requests-bodies-error');
  const row = el('div', { class: 'request-bodies-row' },
    box,
    el('div', { class: 'request-bodies-text' },
      el('label', { for: ID }, 'Keep request and answer bodies'),
      el('p', { class: 'field-hint', id: `${ID}-hint` },
        'Each new request’s body and answer are kept in this log, secrets redacted and cut at the server’s size cap. Applies to requests from now on; those already logged stay as they are.')),
    state);
  let saved = null;

  function showState(settings, justSaved = false) {
    saved = settings;
    box.checked = Boolean(settings.store_bodies);
    const on = box.checked;
    state.dataset.state = on ? 'on' : 'off';
    replace(state,
      el('span', { class: `badge badge-${on ? 'success' : 'neutral'}` }, on ? 'On' : 'Off'),
      ' ', el('span', { class: 'muted' }, since(settings, justSaved)));
  }

  async function save() {
    const wanted = box.checked;
    const hadFocus = document.activeElement === box;
    error.set('');
    card.dataset.loaded = 'false';
    box.disabled = true;
    card.setAttribute('aria-busy', 'true');
    replace(state, el('span', { class: 'muted' }, wanted ? 'Turning on…' : 'Turning off…'));
    try {
      const answer = await api.put('/v1/settings', { store_bodies: wanted });
      if (!card.isConnected) return;
      showState(answer, true);
    } catch (err) {
      if (!card.isConnected) return;
      // Back to what the server has.
      showState(saved);
      error.set(`Could not ${wanted ? 'turn on' : 'turn off'} keeping bodies: ${err.message}`);
    } finally {
      box.disabled = false;
      card.removeAttribute('aria-busy');
      if (hadFocus) box.focus();
      card.dataset.loaded = 'true';
    }
  }

  async function load() {
    card.dataset.loaded = 'false';
    error.set('');
    replace(card, el('p', { class: 'loading muted small', role: 'status' }, 'Loading the setting…'));
    try {
      const settings = await api.get('/v1/settings');
      if (!card.isConnected) return;
      showState(settings);
      replace(card, row, error.node);
      card.dataset.loaded = 'true';
    } catch (err) {
      if (!card.isConnected) return;
      replace(card, sectionError('Could not read whether request and answer bodies are kept', err, load));
      card.dataset.loaded = 'error';
    }
  }

  box.addEventListener('change', save);
  load();
  return card;
}
