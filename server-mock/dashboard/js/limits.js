// Token spending limits: the period's spend against the limit (the Spend column of Tokens), the
// limit fields of the create form, and the dialog that sets, changes or removes a limit.

import { api, resource } from './api.js';
import { credits } from './format.js';
import { confirm, el, showAlert, toast } from './ui.js';

const PERIODS = [
  ['never', 'In all (never resets)'],
  ['daily', 'Per day (from 00:00 UTC)'],
  ['weekly', 'Per week (from Monday, 00:00 UTC)'],
  ['monthly', 'Per month (from the 1st, 00:00 UTC)'],
];
const PER = { daily: 'today', weekly: 'this week', monthly: 'this month', never: 'in all' };
const AMOUNT = /^\d+(\.\d{1,9})?$/;

/** The Spend cell: a meter of the period's spend against the limit, or "No limit". */
export function spendCell(token) {
  const limits = token.limits;
  if (!limits) return el('span', { class: 'muted small', dataset: { limit: 'none' } }, 'No limit');
  const limit = Number(limits.credit_limit);
  const spent = credits(limits.spent);
  const total = credits(limits.credit_limit);
  const per = PER[limits.reset] || 'this period';
  // The meter's position only; the amounts are shown exactly as the API wrote them.
  return el('div', { class: 'spend', dataset: { limit: total, spent, reset: limits.reset } },
    el('meter', {
      min: '0', max: String(limit), value: String(Math.min(limit, Number(limits.spent))),
      low: String(limit * 0.8), high: String(limit * 0.95), optimum: '0',
      'aria-label': `Spent ${spent} of ${total} credits ${per}`,
    }),
    el('span', { class: 'small spend-text' }, `${spent} of ${total} credits ${per}`),
    limits.resets_at ? el('span', { class: 'muted small', title: new Date(limits.resets_at).toLocaleString() },
      `Resets ${new Date(limits.resets_at).toLocaleDateString()}`) : null);
}

/**
 * The limit fields: an amount (#<prefix>-credit-limit, empty for none) and its period
 * (#<prefix>-limit-reset). `read()` gives { value: {credit_limit, limit_reset} or null, error }.
 */
export function limitFields(prefix, current = null) {
  const amountId = `${prefix}-credit-limit`;
  const resetId = `${prefix}-limit-reset`;
  const amount = el('input', {
    type: 'text', id: amountId, inputmode: 'decimal', autocomplete: 'off', spellcheck: 'false',
    placeholder: 'No limit', value: current ? credits(current.credit_limit) : '',
    'aria-describedby': `${amountId}-hint`,
  });
  const reset = el('select', { id: resetId },
    PERIODS.map(([value, label]) => el('option', { value, selected: value === (current?.reset || 'never') }, label)));
  const node = el('div', { class: 'field limit-fields' },
    el('label', { for: amountId }, 'Spending limit (credits)'),
    amount,
    el('p', { class: 'field-hint', id: `${amountId}-hint` },
      'The most chat requests made with this token may spend. A request whose worst case no longer fits is refused until the period resets. Leave empty for no limit.'),
    el('label', { for: resetId }, 'Period'),
    reset);
  return {
    node,
    read() {
      const text = amount.value.trim();
      if (!text) return { value: null, error: null };
      if (!AMOUNT.test(text) || Number(text) <= 0) {
        amount.setAttribute('aria-invalid', 'true');
        return { value: null, error: 'The spending limit must be a number of credits above 0, with at most 9 decimal places (e.g. 25 or 0.5).' };
      }
      amount.removeAttribute('aria-invalid');
      return { value: { credit_limit: text, limit_reset: reset.value }, error: null };
    },
  };
}

/** Asks for a token's new limit (empty: none) and saves it; `onSaved()` once it is. */
export async function editLimit(token, { fallbackFocus, onSaved }) {
  const fields = limitFields('limit', token.limits);
  const ok = await confirm({
    title: `Spending limit of “${token.name}”`,
    body: [
      'Spend is what the token’s chat requests cost since the period began (UTC); changing the period never carries old spend over.',
      fields.node,
    ],
    confirmLabel: 'Save limit',
    danger: false,
    fallbackFocus,
  });
  if (!ok) return;
  const { value, error } = fields.read();
  if (error) {
    showAlert(error);
    return;
  }
  if (!value && !token.limits) return;
  try {
    await api.patch(resource('/v1/tokens', token.id), value || { credit_limit: null });
    toast(value ? `Limit of “${token.name}” saved.` : `Limit of “${token.name}” removed.`);
    await onSaved();
  } catch (err) {
    showAlert(`Could not change the limit of “${token.name}”: ${err.message}`);
  }
}
