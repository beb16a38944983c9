// Form pieces shared by Tokens and Settings > API keys: scope checkboxes, expiry, the create form.

import { el, formError, show } from './ui.js';

/** Checkbox id for a scope, e.g. token-scope-tokens-read. */
function scopeId(prefix, name) {
  return `${prefix}-scope-${name.replace(/[^a-z0-9]+/gi, '-')}`;
}

/**
 * Scope checkboxes (name="scope", value=<scope>) with descriptions; scopes the signed-in key
 * does not hold are disabled (the server refuses them: subset rule).
 */
export function scopeChecklist(prefix, scopes, held) {
  const items = scopes.map((scope) => {
    const id = scopeId(prefix, scope.name);
    const allowed = held.has(scope.name);
    const hint = allowed ? null : el('span', { class: 'scope-missing', id: `${id}-hint` },
      'Your key does not hold this scope, so it cannot grant it.');
    return el('li', { class: allowed ? 'scope-item' : 'scope-item scope-item-disabled' },
      el('input', {
        type: 'checkbox',
        name: 'scope',
        value: scope.name,
        id,
        disabled: !allowed,
        'aria-describedby': `${id}-desc${hint ? ` ${id}-hint` : ''}`,
      }),
      el('label', { for: id },
        el('code', { class: 'scope-name' }, scope.name),
        el('span', { class: 'scope-desc', id: `${id}-desc` }, scope.description || ''),
        hint));
  });
  const list = el('ul', { class: 'scope-list' }, items);
  const selectAll = el('button', { type: 'button', class: 'btn btn-small btn-ghost', id: `${prefix}-scope-all` },
    'Select all I can grant');
  const selectNone = el('button', { type: 'button', class: 'btn btn-small btn-ghost', id: `${prefix}-scope-none` },
    'Clear');
  const setAll = (checked) => {
    for (const box of list.querySelectorAll('input[name="scope"]')) {
      if (!box.disabled) box.checked = checked;
    }
  };
  selectAll.addEventListener('click', () => setAll(true));
  selectNone.addEventListener('click', () => setAll(false));
  const fieldset = el('fieldset', { class: 'field scopes', id: `${prefix}-scopes` },
    el('legend', null, 'Scopes'),
    el('p', { class: 'field-hint' }, 'Grant only what the job needs. You can grant scopes your own key holds.'),
    el('div', { class: 'scope-tools' }, selectAll, selectNone),
    list);
  return {
    node: fieldset,
    values: () => [...list.querySelectorAll('input[name="scope"]:checked')].map((box) => box.value),
  };
}

const PRESETS = [
  ['7', '7 days'],
  ['30', '30 days'],
  ['90', '90 days'],
  ['', 'Never'],
  ['custom', 'Custom date and time…'],
];

/** A datetime-local value for `at` in the viewer's time zone. */
function localInputValue(at) {
  const pad = (n) => String(n).padStart(2, '0');
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}T${pad(at.getHours())}:${pad(at.getMinutes())}`;
}

/**
 * Expiry: a select (#<prefix>-expiry: "7", "30", "90" days, "" never, "custom") and a
 * datetime-local (#<prefix>-expiry-custom) shown for "custom".
 */
export function expiryField(prefix, defaultValue = '30') {
  const selectId = `${prefix}-expiry`;
  const customId = `${prefix}-expiry-custom`;
  const select = el('select', { id: selectId, 'aria-describedby': `${selectId}-hint` },
    PRESETS.map(([value, label]) => el('option', { value, selected: value === defaultValue }, label)));
  const custom = el('input', { type: 'datetime-local', id: customId });
  const customWrap = el('div', { class: 'field-inline', hidden: true },
    el('label', { for: customId }, 'Expires at (your local time)'),
    custom);
  const hint = el('p', { class: 'field-hint', id: `${selectId}-hint` });
  const describe = () => {
    const days = Number(select.value);
    if (select.value === '') hint.textContent = 'It keeps working until revoked.';
    else if (select.value === 'custom') hint.textContent = 'It stops working at the time you choose.';
    else hint.textContent = `It stops working on ${new Date(Date.now() + days * 86400000).toLocaleString()}.`;
  };
  select.addEventListener('change', () => {
    const isCustom = select.value === 'custom';
    show(customWrap, isCustom);
    if (isCustom) {
      custom.min = localInputValue(new Date());
      if (!custom.value) custom.value = localInputValue(new Date(Date.now() + 30 * 86400000));
    }
    describe();
  });
  describe();
  const node = el('div', { class: 'field' },
    el('label', { for: selectId }, 'Expiration'),
    select, hint, customWrap);
  return {
    node,
    /** { value: RFC 3339 or null, error: text or null } */
    read() {
      if (select.value === '') return { value: null, error: null };
      if (select.value === 'custom') {
        if (!custom.value) return { value: null, error: 'Choose the expiry date and time, or pick another expiration.' };
        const at = new Date(custom.value);
        if (Number.isNaN(at.getTime())) return { value: null, error: 'The expiry date is not a valid date and time.' };
        return { value: at.toISOString(), error: null };
      }
      const days = Number(select.value);
      return { value: new Date(Date.now() + days * 86400000).toISOString(), error: null };
    },
    reset() {
      select.value = defaultValue;
      custom.value = '';
      show(customWrap, false);
      describe();
    },
  };
}

/**
 * The create form for a credential (token or API key): name, scopes, expiry, and `extra`
 * fields ({node, read()}: a token's limit) whose value joins the body.
 * Ids: #<prefix>-create-form, #<prefix>-name, #<prefix>-expiry, #<prefix>-create-submit,
 * #<prefix>-create-cancel, #form-error. `submit({name, scopes, expires_at})` returns a promise;
 * its rejection's message is shown under the form.
 */
export function credentialForm({ prefix, noun, namePlaceholder, nameHint, scopes, held, submitLabel, submit, cancel, extra = null }) {
  const nameId = `${prefix}-name`;
  const name = el('input', {
    type: 'text',
    id: nameId,
    name: 'name',
    maxlength: '100',
    autocomplete: 'off',
    spellcheck: 'false',
    placeholder: namePlaceholder,
    'aria-describedby': `${nameId}-hint`,
  });
  const checklist = scopeChecklist(prefix, scopes, held);
  const expiry = expiryField(prefix);
  const error = formError();
  const submitButton = el('button', { type: 'submit', class: 'btn btn-primary', id: `${prefix}-create-submit` }, submitLabel);
  const cancelButton = el('button', { type: 'button', class: 'btn', id: `${prefix}-create-cancel` }, 'Cancel');
  const form = el('form', { class: 'card form', id: `${prefix}-create-form`, novalidate: true, 'aria-label': `New ${noun}` },
    el('h2', { class: 'card-title' }, `New ${noun}`),
    el('div', { class: 'field' },
      el('label', { for: nameId }, 'Name'),
      name,
      el('p', { class: 'field-hint', id: `${nameId}-hint` }, nameHint)),
    checklist.node,
    expiry.node,
    extra ? extra.node : null,
    error.node,
    el('div', { class: 'form-actions' }, submitButton, cancelButton));

  cancelButton.addEventListener('click', () => cancel());
  form.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') {
      event.preventDefault();
      cancel();
    }
  });
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    error.set('');
    name.removeAttribute('aria-invalid');
    const chosen = checklist.values();
    const expires = expiry.read();
    const more = extra ? extra.read() : { value: null, error: null };
    let problem = null;
    if (!name.value.trim()) {
      problem = `Give the ${noun} a name, so you can tell it apart later.`;
      name.setAttribute('aria-invalid', 'true');
    } else if (chosen.length === 0) {
      problem = 'Choose at least one scope.';
    } else if (expires.error) {
      problem = expires.error;
    } else if (more.error) {
      problem = more.error;
    }
    if (problem) {
      error.set(problem);
      return;
    }
    const body = { name: name.value.trim(), scopes: chosen };
    if (expires.value) body.expires_at = expires.value;
    if (more.value) Object.assign(body, more.value);
    submitButton.disabled = true;
    submitButton.setAttribute('aria-busy', 'true');
    try {
      await submit(body);
      form.reset();
      expiry.reset();
    } catch (err) {
      error.set(`Could not create the ${noun}: ${err.message}`);
      if (err.status === 409 || /name/i.test(err.message)) name.setAttribute('aria-invalid', 'true');
    } finally {
      submitButton.disabled = false;
      submitButton.removeAttribute('aria-busy');
    }
  });
  return { node: form, focus: () => name.focus(), error };
}

/** A compact list of scope chips; past four, the rest fold into a "+N more" disclosure. */
export function scopeChips(scopes) {
  if (!scopes || scopes.length === 0) return el('span', { class: 'muted' }, 'none');
  const chips = (list) => el('ul', { class: 'chips', 'aria-label': 'Scopes' }, list.map((s) => el('li', { class: 'chip' }, s)));
  if (scopes.length <= 4) return chips(scopes);
  return el('div', { class: 'chips-fold' },
    chips(scopes.slice(0, 3)),
    el('details', { class: 'chips-more' },
      el('summary', null, `+${scopes.length - 3} more`),
      chips(scopes.slice(3))));
}
