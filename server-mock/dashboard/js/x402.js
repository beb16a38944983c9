// Settings > x402 payments: the workspace's terms (what agents naming an agent_wallet pay for
// chat completions over HTTP 402), shown, set through PUT /v1/x402 and removed through
// DELETE /v1/x402. The server checks every value and names the field it refuses.

import { api } from './api.js';
import {
  clearAlert, confirm, el, formError, loading, replace, sectionError, sectionHeader, showAlert,
  timeCell, toast,
} from './ui.js';

/** The form's fields: [name, label, hint, input attributes]. */
const FIELDS = [
  ['pay_to', 'Pay to', 'The address agents pay (0x and 40 hexadecimal digits).', { placeholder: '0x…', spellcheck: 'false' }],
  ['network', 'Network', 'CAIP-2: eip155 and the chain id, e.g. eip155:84532 (Base Sepolia), eip155:8453 (Base).', { placeholder: 'eip155:84532' }],
  ['asset', 'Token contract', 'The token agents pay in (USDC on Base Sepolia: 0x036CbD53842c5426634e7929541eC2318f3dCF7e).', { placeholder: '0x…', spellcheck: 'false' }],
  ['asset_name', 'Token EIP-712 name', 'As the token contract has it: USDC on Base Sepolia, USD Coin on Base.', { placeholder: 'USDC' }],
  ['asset_version', 'Token EIP-712 version', '2 for USDC.', { placeholder: '2' }],
  ['asset_decimals', 'Token decimals', '6 for USDC.', { type: 'number', min: '0', max: '36', placeholder: '6', inputmode: 'numeric' }],
  ['credit_price', 'Price of one credit', 'In the token’s smallest units: 10000 with 6 decimals is 0.01 a credit. Amounts round up.', { placeholder: '10000', inputmode: 'numeric' }],
  ['facilitator_url', 'Facilitator URL', 'The facilitator that verifies and settles payments (its /verify, /settle and /supported).', { type: 'url', placeholder: 'https://x402.org/facilitator', inputmode: 'url' }],
];

export function render(root, ctx) {
  const canWrite = ctx.holds('x402:write');
  const canRead = ctx.holds('x402:read');
  const header = sectionHeader('x402-title', 'x402 payments',
    'Agents naming an agent_wallet in a chat request pay for it over HTTP 402: upto (what the answer costs) or exact (its worst case), settled by your facilitator.');
  const termsSlot = el('div', { id: 'x402-terms', 'aria-live': 'polite' });
  const formSlot = el('div', { id: 'x402-form-slot' });
  const missing = [];
  if (!canRead) missing.push(el('p', { class: 'muted small' }, 'Your key does not hold x402:read, so it cannot show the terms.'));
  if (!canWrite) missing.push(el('p', { class: 'muted small' }, 'Your key does not hold x402:write, so it cannot change them.'));
  replace(root, el('p', { class: 'breadcrumb muted small' }, 'Settings'), header, ...missing, termsSlot, formSlot);
  const heading = () => root.querySelector('h1');

  const inputs = {};
  const error = formError('x402-form-error');
  const submit = el('button', { type: 'submit', class: 'btn btn-primary', id: 'x402-save' }, 'Save terms');
  const form = el('form', { class: 'card form', id: 'x402-form', novalidate: true, 'aria-label': 'x402 terms' },
    el('h2', { class: 'card-title' }, 'Terms'),
    FIELDS.map(([name, label, hint, attrs]) => {
      const id = `x402-${name.replace('_', '-')}`;
      inputs[name] = el('input', { id, name, type: 'text', autocomplete: 'off', 'aria-describedby': `${id}-hint`, ...attrs });
      return el('div', { class: 'field' }, el('label', { for: id }, label), inputs[name],
        el('p', { class: 'field-hint', id: `${id}-hint` }, hint));
    }),
    error.node,
    el('div', { class: 'form-actions' }, submit));
  if (canWrite) formSlot.append(form);

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    error.set('');
    for (const input of Object.values(inputs)) input.removeAttribute('aria-invalid');
    const body = {};
    for (const [name] of FIELDS) body[name] = inputs[name].value.trim();
    body.asset_decimals = Number(body.asset_decimals);
    submit.disabled = true;
    root.dataset.loaded = 'false';
    try {
      const terms = await api.put('/v1/x402', body);
      toast('The x402 terms are saved.');
      showTerms(terms);
      // Focus (and so scroll to) what was saved, from the form's end.
      termsSlot.querySelector('.card-title').focus();
    } catch (err) {
      const field = FIELDS.map(([name]) => name).find((name) => err.message.startsWith(name));
      if (field) inputs[field].setAttribute('aria-invalid', 'true');
      error.set(`Could not save the terms: ${err.message}`);
    } finally {
      submit.disabled = false;
      root.dataset.loaded = 'true';
    }
  });

  async function turnOff() {
    const ok = await confirm({
      title: 'Stop taking x402 payments?',
      body: ['Chat requests naming an agent_wallet are then served without payment, billed to the workspace.',
        'Payments already made are still settled.'],
      confirmLabel: 'Turn off',
      fallbackFocus: heading,
    });
    if (!ok) return;
    clearAlert();
    root.dataset.loaded = 'false';
    try {
      await api.del('/v1/x402');
      toast('x402 payments are off.');
      showTerms({ enabled: false });
    } catch (err) {
      showAlert(`Could not turn x402 off: ${err.message}`);
    } finally {
      root.dataset.loaded = 'true';
    }
  }

  function showTerms(terms) {
    if (!terms.enabled) {
      replace(termsSlot, el('p', { class: 'card', id: 'x402-state', dataset: { enabled: 'false' } },
        'Off: this workspace takes no x402 payments.', canWrite ? ' Fill in the terms below to turn them on.' : ''));
      return;
    }
    const rows = FIELDS.map(([name, label]) => [label, String(terms[name])]);
    rows.push(['Updated', timeCell(terms.updated_at)]);
    const off = canWrite
      ? el('button', { type: 'button', class: 'btn btn-danger-outline', id: 'x402-disable', onClick: turnOff }, 'Turn off')
      : null;
    replace(termsSlot, el('div', { class: 'card', id: 'x402-state', dataset: { enabled: 'true' } },
      el('h2', { class: 'card-title', tabindex: '-1' }, 'On: agents pay for their requests'),
      el('dl', { class: 'details' }, rows.flatMap(([label, value]) => [el('dt', null, label), el('dd', null, value)])),
      off));
    for (const [name] of FIELDS) inputs[name].value = String(terms[name]);
  }

  async function load() {
    if (!canRead) {
      root.dataset.loaded = 'true';
      return;
    }
    root.dataset.loaded = 'false';
    replace(termsSlot, loading('the x402 terms'));
    try {
      const terms = await api.get('/v1/x402');
      if (!root.isConnected) return;
      showTerms(terms);
    } catch (err) {
      replace(termsSlot, sectionError('the x402 terms', err, load));
    } finally {
      root.dataset.loaded = 'true';
    }
  }

  load();
}
