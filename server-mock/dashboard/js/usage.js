// Usage: the credit ledger by UTC day and model, as a stacked bar chart (SVG built with DOM
// calls) and a table of the same numbers, for the workspace or one token (#/usage?token_id=).
// Credits are shown exactly as the API wrote them.

import { fetchAll } from './api.js';
import { addDays, count, credits, fromNanos, longDay, shortDay, toNanos, utcDay } from './format.js';
import { el, emptyState, loading, replace, sectionError, sectionHeader, svg, table, td } from './ui.js';

const SERIES = 8;
const RANGES = [['7', 'Last 7 days'], ['30', 'Last 30 days'], ['90', 'Last 90 days'], ['all', 'All time']];

/** Days shown for a range, oldest first, ending today (UTC) or at the newest data. */
function daysFor(range, rows) {
  const today = utcDay(new Date());
  const newest = rows.reduce((max, r) => (r.date > max ? r.date : max), today);
  let first;
  if (range === 'all') {
    first = rows.reduce((min, r) => (r.date < min ? r.date : min), newest);
    if (first > addDays(newest, -6)) first = addDays(newest, -6);
  } else {
    first = addDays(newest, 1 - Number(range));
  }
  const days = [];
  for (let day = first; day <= newest && days.length < 3660; day = addDays(day, 1)) days.push(day);
  return days;
}

/** Rounds up to 1, 2, 2.5 or 5 times a power of ten. */
function niceCeil(value) {
  if (!(value > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 2.5, 5, 10]) {
    if (value <= step * power * (1 + 1e-9)) return step * power;
  }
  return 10 * power;
}

/** Axis tick text (the tick values are the chart's own, so rounding them is fine). */
function tickText(value) {
  if (value === 0) return '0';
  return Number(value.toPrecision(6)).toString();
}

/**
 * The chart: one <rect class="bar"> per (day, model) with credits > 0, stacked per day, with
 * axes, labels and a <title> on each bar.
 */
function chart(days, models, byDay, width) {
  const height = 300;
  const margin = { top: 16, right: 16, bottom: 44, left: 64 };
  const plotW = Math.max(40, width - margin.left - margin.right);
  const plotH = height - margin.top - margin.bottom;
  const totals = days.map((d) => (byDay.get(d) || []).reduce((sum, r) => sum + Number(r.credits), 0));
  const top = niceCeil(Math.max(0, ...totals));
  const y = (v) => margin.top + plotH - (v / top) * plotH;
  const slot = plotW / days.length;
  const barW = Math.max(2, Math.min(48, slot * 0.7));

  const root = svg('svg', {
    id: 'usage-chart', class: 'chart', width: String(width), height: String(height),
    viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-labelledby': 'usage-chart-title usage-chart-desc',
  });
  root.append(
    svg('title', { id: 'usage-chart-title' }, 'Credits by day and model'),
    svg('desc', { id: 'usage-chart-desc' },
      `Stacked bars for ${days.length} days from ${longDay(days[0])} to ${longDay(days[days.length - 1])}; the table below lists the same numbers.`));

  const grid = svg('g', { class: 'grid' });
  const ticks = 4;
  for (let i = 0; i <= ticks; i += 1) {
    const value = (top / ticks) * i;
    const ty = y(value);
    grid.append(
      svg('line', { x1: String(margin.left), x2: String(margin.left + plotW), y1: String(ty), y2: String(ty), class: i === 0 ? 'axis-line' : 'grid-line' }),
      svg('text', { x: String(margin.left - 8), y: String(ty), class: 'tick tick-y', 'text-anchor': 'end', 'dominant-baseline': 'middle' }, tickText(value)));
  }
  grid.append(svg('text', {
    class: 'axis-title', 'text-anchor': 'middle',
    transform: `translate(14 ${margin.top + plotH / 2}) rotate(-90)`,
  }, 'Credits'));
  root.append(grid);

  const labelEvery = Math.max(1, Math.ceil(days.length / Math.max(1, Math.floor(plotW / 56))));
  const bars = svg('g', { class: 'bars' });
  const labels = svg('g', { class: 'x-labels' });
  days.forEach((day, i) => {
    const cx = margin.left + slot * i + slot / 2;
    let base = 0;
    for (const r of byDay.get(day) || []) {
      const value = Number(r.credits);
      if (!(value > 0)) continue;
      const y0 = y(base);
      const y1 = y(base + value);
      base += value;
      bars.append(svg('rect', {
        class: `bar series-${models.indexOf(r.model) % SERIES}`,
        x: String(cx - barW / 2), y: String(y1), width: String(barW), height: String(Math.max(1, y0 - y1)),
        dataset: { date: day, model: r.model, credits: credits(r.credits) },
      }, svg('title', null, `${longDay(day)} · ${r.model}: ${credits(r.credits)} credits, ${count(r.requests)} requests`)));
    }
    // Labels are counted from the newest day, so the latest day always has one.
    if ((days.length - 1 - i) % labelEvery === 0) {
      labels.append(svg('text', { x: String(cx), y: String(margin.top + plotH + 18), class: 'tick tick-x', 'text-anchor': 'middle' }, shortDay(day)));
    }
  });
  root.append(bars, labels,
    svg('text', { x: String(margin.left + plotW / 2), y: String(height - 6), class: 'axis-title', 'text-anchor': 'middle' }, 'Day (UTC)'));
  if (!totals.some((t) => t > 0)) {
    root.append(svg('text', { x: String(margin.left + plotW / 2), y: String(margin.top + plotH / 2), class: 'chart-empty', 'text-anchor': 'middle' },
      'No credits used in this period'));
  }
  return root;
}

function legend(shown, all) {
  return el('ul', { class: 'legend', id: 'usage-legend', 'aria-label': 'Models' },
    shown.map((model) => el('li', { dataset: { model } },
      el('span', { class: `swatch series-${all.indexOf(model) % SERIES}`, 'aria-hidden': 'true' }), model)));
}

function summary(totals, token) {
  const card = (label, value, id) => el('div', { class: 'stat' },
    el('dt', { class: 'muted small' }, label), el('dd', { id }, value));
  return el('dl', { class: 'stats', id: 'usage-totals', 'aria-label': token ? 'All-time totals for this token' : 'All-time totals for this workspace' },
    card(token ? 'Credits used by this token, all time' : 'Credits used, all time', credits(totals.credits ?? '0'), 'usage-total-credits'),
    card('Requests', count(totals.requests ?? 0), 'usage-total-requests'),
    card('Prompt tokens', count(totals.prompt_tokens ?? 0), 'usage-total-prompt'),
    card('Completion tokens', count(totals.completion_tokens ?? 0), 'usage-total-completion'),
    // Settled by agents' x402 payments: the token's smallest units, as the API writes them.
    totals.x402_settled ? card('Settled by x402 (token units)', totals.x402_settled, 'usage-total-x402') : null);
}

function usageTable(rows) {
  const paid = rows.some((r) => r.x402_settled);
  let settled = 0n;
  let nanos = 0n;
  let requests = 0;
  let prompt = 0;
  let completion = 0;
  for (const r of rows) {
    nanos += toNanos(r.credits) ?? 0n;
    requests += Number(r.requests) || 0;
    prompt += Number(r.prompt_tokens) || 0;
    completion += Number(r.completion_tokens) || 0;
    settled += BigInt(r.x402_settled || 0);
  }
  const node = table({
    id: 'usage-table',
    caption: 'Credits by day and model',
    columns: ['Day (UTC)', 'Model', 'Requests', 'Prompt tokens', 'Completion tokens', 'Credits',
      ...(paid ? ['x402 settled (token units)'] : [])],
    className: 'numeric-table',
    stack: false,
    rows: rows.map((r) => el('tr', { dataset: { date: r.date, model: r.model } },
      td('Day (UTC)', el('time', { datetime: r.date }, r.date)),
      td('Model', el('code', null, r.model)),
      td('Requests', count(r.requests)),
      td('Prompt tokens', count(r.prompt_tokens)),
      td('Completion tokens', count(r.completion_tokens)),
      td('Credits', el('span', { class: 'mono', dataset: { credits: credits(r.credits) } }, credits(r.credits))),
      paid ? td('x402 settled (token units)', el('span', { class: 'mono' }, r.x402_settled || '0')) : null)),
  });
  node.querySelector('table').append(el('tfoot', null, el('tr', null,
    el('th', { scope: 'row', colspan: '2', 'data-label': 'Total' }, 'Total for this period'),
    td('Requests', count(requests)),
    td('Prompt tokens', count(prompt)),
    td('Completion tokens', count(completion)),
    td('Credits', el('span', { class: 'mono', id: 'usage-period-credits' }, fromNanos(nanos))),
    paid ? td('x402 settled (token units)', el('span', { class: 'mono', id: 'usage-period-x402' }, settled.toString())) : null)));
  return node;
}

export function render(root, ctx, params) {
  const state = { range: '30', data: null, seq: 0, width: 0, token: (params?.get('token_id') || '').trim() };
  const rangeSelect = el('select', { id: 'usage-range' },
    RANGES.map(([value, label]) => el('option', { value, selected: value === state.range }, label)));
  const tokenSelect = el('select', { id: 'usage-token' },
    el('option', { value: '' }, 'Every credential'),
    state.token ? el('option', { value: state.token, selected: true }, state.token) : null);
  const refresh = el('button', { type: 'button', class: 'btn', id: 'usage-refresh' }, 'Refresh');
  const header = sectionHeader('usage-title', 'Usage',
    'Credits consumed through the chat gateway, by UTC day and model.',
    el('div', { class: 'field-inline' }, el('label', { for: 'usage-token' }, 'Token'), tokenSelect),
    el('div', { class: 'field-inline' }, el('label', { for: 'usage-range' }, 'Period'), rangeSelect), refresh);
  const body = el('div', { id: 'usage-body', class: 'stack', 'aria-live': 'polite' }, loading('usage'));
  root.append(header, body);

  function draw() {
    const { rows, totals, complete, total } = state.data;
    const days = daysFor(state.range, rows);
    const shown = new Set(days);
    const inRange = rows.filter((r) => shown.has(r.date))
      .sort((a, b) => (a.date === b.date ? a.model.localeCompare(b.model) : a.date < b.date ? 1 : -1));
    const models = [...new Set(rows.map((r) => r.model))].sort();
    const byDay = new Map();
    for (const r of [...inRange].sort((a, b) => models.indexOf(a.model) - models.indexOf(b.model))) {
      if (!byDay.has(r.date)) byDay.set(r.date, []);
      byDay.get(r.date).push(r);
    }
    const chartWrap = el('div', { class: 'chart-wrap' });
    const parts = [summary(totals, state.token)];
    const card = el('section', { class: 'card', 'aria-labelledby': 'usage-chart-heading' },
      el('h2', { id: 'usage-chart-heading', class: 'card-title' }, 'Credits per day'),
      chartWrap,
      inRange.length ? legend(models.filter((m) => inRange.some((r) => r.model === m)), models) : null);
    parts.push(card);
    if (rows.length === 0) {
      parts.push(emptyState('No usage recorded yet. Send a chat completion through the gateway (POST /v1/chat/completions) with a token that holds chat:write, and its credits show up here.',
        el('a', { class: 'btn', href: '#/tokens' }, 'Create a token')));
    } else if (inRange.length === 0) {
      parts.push(emptyState('No usage in this period. Choose a longer period to see older days.'));
    }
    if (inRange.length) {
      parts.push(el('section', { 'aria-labelledby': 'usage-table-heading' },
        el('h2', { id: 'usage-table-heading', class: 'subheading' }, 'By day and model'),
        usageTable(inRange)));
    }
    if (!complete) {
      parts.push(el('p', { class: 'muted small' }, `Showing the newest ${rows.length} of ${total} day-and-model rows.`));
    }
    replace(body, ...parts);
    state.width = Math.floor(chartWrap.clientWidth) || 640;
    chartWrap.append(chart(days, models, byDay, Math.max(300, state.width)));
  }

  async function load() {
    const seq = ++state.seq;
    root.dataset.loaded = 'false';
    try {
      const all = await fetchAll('/v1/usage', state.token ? { token_id: state.token } : {}, 50);
      if (seq !== state.seq || !root.isConnected) return;
      const rows = all.items.filter((r) => r && r.date && r.model);
      state.data = { rows, totals: (all.first && all.first.totals) || {}, complete: all.complete, total: all.total };
      draw();
      root.dataset.loaded = 'true';
    } catch (err) {
      if (seq !== state.seq || !root.isConnected) return;
      replace(body, sectionError('Could not load usage', err, load));
      root.dataset.loaded = 'error';
    }
  }

  rangeSelect.addEventListener('change', () => {
    state.range = rangeSelect.value;
    if (state.data) draw();
  });
  refresh.addEventListener('click', load);
  tokenSelect.addEventListener('change', () => {
    state.token = tokenSelect.value;
    history.replaceState(null, '', `#/usage${state.token ? `?token_id=${encodeURIComponent(state.token)}` : ''}`);
    load();
  });
  // The tokens to narrow to, by name (a key without tokens:read keeps the id it was given).
  if (!ctx || ctx.holds('tokens:read')) {
    fetchAll('/v1/tokens').then((all) => {
      if (!root.isConnected) return;
      const options = all.items.map((t) => el('option', { value: t.id, selected: t.id === state.token },
        `${t.name}${t.status === 'active' ? '' : ` (${t.status})`}`));
      tokenSelect.replaceChildren(el('option', { value: '' }, 'Every credential'), ...options);
      tokenSelect.value = state.token;
    }).catch(() => {});
  }

  // Redraw the chart at its new width (text stays at its real size, unlike a scaled viewBox).
  if (typeof ResizeObserver === 'function') {
    let timer = 0;
    const observer = new ResizeObserver(() => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        if (!root.isConnected) {
          observer.disconnect();
          return;
        }
        const wrap = root.querySelector('.chart-wrap');
        if (state.data && wrap && Math.abs(Math.floor(wrap.clientWidth) - state.width) > 8) draw();
      }, 150);
    });
    observer.observe(root);
  }

  load();
}
