// Models: the chat gateway's catalogue and how each model is doing on the server that answered
// (GET /v1/models): its circuit (closed; open until a time, and why; half-open), its recent
// errors, and its time to first token, observed or the catalogue's. Read again every few seconds
// while the section is on screen and the tab is visible; render() returns what stops that.

import { api } from './api.js';
import { clockSeconds, count, longTime, plural } from './format.js';
import { el, emptyState, loading, replace, sectionError, sectionHeader, table, td } from './ui.js';

/** How often the list is read again while the section is shown. */
const REFRESH_MS = 5000;

const STATES = {
  closed: { label: 'closed', kind: 'success' },
  open: { label: 'open', kind: 'warning' },
  half_open: { label: 'half-open', kind: 'info' },
};

const PROVIDERS = {
  openai: 'OpenAI-compatible upstream', simulated: 'Simulated', anthropic: 'Anthropic', gemini: 'Gemini',
  groq: 'Groq', deepseek: 'DeepSeek', mistral: 'Mistral', together: 'Together AI', xai: 'xAI',
  fireworks: 'Fireworks AI', openrouter: 'OpenRouter', azure: 'Azure OpenAI', bedrock: 'Amazon Bedrock',
};

const COLUMNS = ['Model', 'State', 'Time to first token', 'Output speed', 'Recent errors', 'Credits per 1k tokens'];

/** "312 ms", "1.25 s" (never broken across lines). */
function duration(ms) {
  if (typeof ms !== 'number' || !Number.isFinite(ms)) return '—';
  if (ms < 1000) return `${count(Math.round(ms))}\u00a0ms`;
  return `${(ms / 1000).toFixed(ms < 10000 ? 2 : 1)}\u00a0s`;
}

/** "40 %", "2.5 %". */
function percent(rate) {
  const value = Math.round(rate * 1000) / 10;
  return `${Number.isInteger(value) ? value : value.toFixed(1)} %`;
}

function stateCell(h) {
  const known = STATES[h.state] || { label: String(h.state), kind: 'neutral' };
  const parts = [el('span', {
    class: `badge badge-${known.kind}`, 'data-testid': 'model-state', dataset: { state: h.state },
  }, known.label)];
  if (h.state === 'open' && h.open_until) {
    parts.push(el('span', { class: 'nowrap', 'data-testid': 'model-until' }, 'until ',
      el('time', { datetime: h.open_until, title: longTime(h.open_until) }, clockSeconds(h.open_until))));
  }
  if (h.state === 'half_open') {
    parts.push(el('span', { class: 'muted small' }, 'The next request to it is the probe'));
  }
  if (h.opened_after && h.state !== 'closed') {
    parts.push(el('span', { class: 'muted small', 'data-testid': 'model-why' }, `opened after ${h.opened_after}`));
  } else if (h.failures_in_a_row > 0) {
    parts.push(el('span', { class: 'muted small' }, `${plural(h.failures_in_a_row, 'failure')} in a row`));
  }
  return el('div', { class: 'cell-stack' }, parts);
}

/** What auto-fast routes on, saying whether it was observed or is the catalogue's figure. */
function firstTokenCell(model, h) {
  let how;
  if (h.first_token_observed) {
    how = `observed over ${plural(h.samples, 'answer')}`;
    if (typeof h.first_token_ms_p50 === 'number') how += ` · p50 ${duration(h.first_token_ms_p50)}`;
  } else if (model.provider === 'simulated') {
    how = 'catalogue figure';
  } else if (h.samples > 0) {
    how = `catalogue figure until 3 answers are in (${h.samples} so far`;
    if (typeof h.first_token_ms_p50 === 'number') how += `, p50 ${duration(h.first_token_ms_p50)}`;
    how += ')';
  } else {
    how = 'catalogue figure · no answers observed yet';
  }
  return el('div', { class: 'cell-stack', 'data-testid': 'model-first-token', dataset: { observed: String(!!h.first_token_observed) } },
    el('span', { class: 'figure' }, duration(h.first_token_ms)),
    el('span', { class: 'muted small' }, how));
}

function speedCell(h) {
  if (typeof h.tokens_per_second !== 'number') return el('span', { class: 'muted' }, '—');
  return el('span', { class: 'figure' }, `${h.tokens_per_second.toFixed(1)}\u00a0tokens/s`);
}

function errorsCell(h) {
  if (!h.recent_requests) return el('span', { class: 'muted', 'data-testid': 'model-errors' }, 'no recent requests');
  return el('div', { class: 'cell-stack', 'data-testid': 'model-errors' },
    el('span', { class: h.recent_failures > 0 ? 'figure errors-some' : 'figure' }, percent(h.error_rate)),
    el('span', { class: 'muted small' }, `${count(h.recent_failures)} failed of ${plural(h.recent_requests, 'request')}`));
}

function row(model) {
  const h = model.health;
  const name = el('div', { class: 'cell-stack' },
    el('code', { class: 'name' }, model.id),
    el('span', { class: 'muted small' }, PROVIDERS[model.provider] || model.provider));
  const price = el('div', { class: 'cell-stack nowrap' },
    el('span', null, `${model.prompt_price} prompt`),
    el('span', null, `${model.completion_price} completion`));
  if (!h) {
    const none = () => el('span', { class: 'muted' }, '—');
    return el('tr', { dataset: { model: model.id } },
      td('Model', name), td('State', none()), td('Time to first token', duration(model.latency_ms)),
      td('Output speed', none()), td('Recent errors', none()), td('Credits per 1k tokens', price));
  }
  return el('tr', { dataset: { model: model.id, state: h.state } },
    td('Model', name),
    td('State', stateCell(h)),
    td('Time to first token', firstTokenCell(model, h)),
    td('Output speed', speedCell(h)),
    td('Recent errors', errorsCell(h)),
    td('Credits per 1k tokens', price));
}

/** One deployment of a model, on a row under it: its own circuit, speed, errors and prices. */
function deploymentRow(model, d) {
  const h = d.health || {};
  const limits = [d.rpm ? `${count(d.rpm)} requests/min` : '', d.tpm ? `${count(d.tpm)} tokens/min` : '']
    .filter(Boolean).join(' · ');
  const name = el('div', { class: 'cell-stack deployment' },
    el('span', null, '↳ ', el('code', { class: 'name' }, d.name), ` · weight ${d.weight}`),
    el('span', { class: 'muted small' }, [PROVIDERS[d.provider] || d.provider, limits].filter(Boolean).join(' · ')));
  const price = el('div', { class: 'cell-stack nowrap' },
    el('span', null, `${d.prompt_price} prompt`),
    el('span', null, `${d.completion_price} completion`));
  return el('tr', { class: 'deployment-row', dataset: { model: model.id, deployment: d.name, state: h.state } },
    td('Deployment', name),
    td('State', stateCell(h)),
    td('Time to first token', firstTokenCell(d, h)),
    td('Output speed', speedCell(h)),
    td('Recent errors', errorsCell(h)),
    td('Credits per 1k tokens', price));
}

/** One line on the whole: which models routing passes over now. */
function summary(models) {
  const named = (list) => list.map((m) => m.id).join(', ');
  const open = models.filter((m) => m.health && m.health.state === 'open');
  const probing = models.filter((m) => m.health && m.health.state === 'half_open');
  const lines = [];
  if (open.length) {
    const one = open.length === 1;
    lines.push(`${open.length} of ${plural(models.length, 'model')} ${one ? 'is' : 'are'} open (${named(open)}): `
      + `routing passes over ${one ? 'it' : 'them'}, and a request naming ${one ? 'it' : 'one'} gets 503 until the cooldown ends.`);
  }
  if (probing.length) {
    lines.push(`Half-open (${named(probing)}): the next request is let through as the probe; its success closes the circuit.`);
  }
  if (!lines.length) {
    return el('p', { id: 'models-summary', class: 'muted', dataset: { open: '0' } },
      models.length === 1 ? 'The model is taking requests.' : `All ${models.length} models are taking requests.`);
  }
  return el('div', { id: 'models-summary', class: `alert ${open.length ? 'alert-warning' : 'alert-info'}`, dataset: { open: String(open.length) } },
    el('div', { class: 'alert-text' }, lines.map((line) => el('p', null, line))));
}

/** What changed since the last read, in words (for the live region). */
function changes(before, models) {
  const said = [];
  for (const m of models) {
    const h = m.health;
    const was = before.get(m.id);
    if (!h || was === undefined || was === h.state) continue;
    if (h.state === 'open') {
      const until = h.open_until ? ` until ${clockSeconds(h.open_until)}` : '';
      said.push(`${m.id} is open${until}${h.opened_after ? `, after ${h.opened_after}` : ''}.`);
    } else if (h.state === 'half_open') {
      said.push(`${m.id} is half-open: the next request is the probe.`);
    } else {
      said.push(`${m.id} is closed again and taking requests.`);
    }
  }
  return said.join(' ');
}

export function render(root) {
  const state = { seq: 0, timer: 0, reads: 0, shown: null, states: new Map(), stopped: false };
  const refresh = el('button', { type: 'button', class: 'btn', id: 'models-refresh' }, 'Refresh');
  const header = sectionHeader('models-title', 'Models',
    'The chat gateway’s models and how each is doing on this server: its circuit breaker, recent errors and time to first token. Each server instance keeps its own figures.',
    refresh);
  const updated = el('p', { id: 'models-updated', class: 'muted small' });
  const announced = el('p', { id: 'models-changes', class: 'small', role: 'status', 'aria-live': 'polite' });
  const body = el('div', { id: 'models-body', class: 'stack' }, loading('models'));
  root.append(header, el('div', { class: 'models-status' }, updated, announced), body);

  function stopTimer() {
    clearTimeout(state.timer);
    state.timer = 0;
  }

  function schedule() {
    stopTimer();
    if (state.stopped || document.hidden) return;
    state.timer = setTimeout(() => load(false), REFRESH_MS);
  }

  function draw(models) {
    // Redrawn only when something shown changed. The API works open_until out afresh on each
    // read, a few microseconds apart; the page shows whole seconds.
    const key = JSON.stringify(models, (name, value) =>
      (name === 'open_until' && typeof value === 'string' ? value.slice(0, 19) : value));
    if (key !== state.shown) {
      state.shown = key;
      if (!models.length) {
        replace(body, emptyState('The gateway has no models. Start the server with a catalogue (--models FILE) to list them here.'));
      } else {
        replace(body, summary(models), table({
          id: 'models-table', caption: 'Models and their health on this server', columns: COLUMNS, className: 'models-table',
          rows: models.flatMap((m) => [row(m), ...(m.deployments || []).map((d) => deploymentRow(m, d))]),
        }));
      }
    }
    const said = changes(state.states, models);
    if (said) announced.textContent = `${clockSeconds(new Date().toISOString())}: ${said}`;
    state.states = new Map(models.filter((m) => m.health).map((m) => [m.id, m.health.state]));
  }

  async function load(manual) {
    stopTimer();
    const seq = ++state.seq;
    if (manual) root.dataset.loaded = 'false';
    try {
      const answer = await api.get('/v1/models');
      if (seq !== state.seq || state.stopped) return;
      const models = Array.isArray(answer && answer.data) ? answer.data.filter((m) => m && m.id) : [];
      draw(models);
      state.reads += 1;
      root.dataset.updated = String(state.reads);
      updated.className = 'muted small';
      updated.textContent = `Updated ${clockSeconds(new Date().toISOString())} · refreshes every ${REFRESH_MS / 1000} s while shown`;
      root.dataset.loaded = 'true';
    } catch (err) {
      if (seq !== state.seq || state.stopped) return;
      if (state.shown === null) {
        replace(body, sectionError('Could not load the models', err, () => load(true)));
        root.dataset.loaded = 'error';
      } else {
        updated.className = 'small models-stale';
        updated.textContent = `Could not refresh at ${clockSeconds(new Date().toISOString())}: ${err.message} `
          + `The figures below are from the last read; trying again in ${REFRESH_MS / 1000} s.`;
        root.dataset.loaded = 'true';
      }
      if (err.status === 401) return;
    }
    schedule();
  }

  function onVisibility() {
    if (state.stopped) return;
    if (document.hidden) {
      stopTimer();
      updated.textContent = 'Paused while this tab is hidden.';
    } else {
      load(false);
    }
  }

  document.addEventListener('visibilitychange', onVisibility);
  refresh.addEventListener('click', () => load(true));
  load(true);

  return function leave() {
    state.stopped = true;
    stopTimer();
    document.removeEventListener('visibilitychange', onVisibility);
  };
}
