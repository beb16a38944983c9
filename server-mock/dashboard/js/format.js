// Formatting of times and numbers for display. Everything returns plain text.

const dateTime = new Intl.DateTimeFormat(undefined, {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
});

const dateOnly = new Intl.DateTimeFormat(undefined, { year: 'numeric', month: 'short', day: 'numeric' });
const timeOnly = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });
const timeSeconds = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });

const fullDateTime = new Intl.DateTimeFormat(undefined, {
  dateStyle: 'full',
  timeStyle: 'long',
});

const integer = new Intl.NumberFormat();

const relativeFormat =
  typeof Intl.RelativeTimeFormat === 'function'
    ? new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' })
    : null;

/** Parses an RFC 3339 timestamp; null when absent or unreadable. */
export function parseTime(iso) {
  if (!iso) return null;
  const at = new Date(iso);
  return Number.isNaN(at.getTime()) ? null : at;
}

/** "Jan 5, 2025, 14:03" in the viewer's time zone. */
export function shortTime(iso) {
  const at = parseTime(iso);
  return at ? dateTime.format(at) : '';
}

/** "Jan 5, 2025". */
export function shortDate(iso) {
  const at = parseTime(iso);
  return at ? dateOnly.format(at) : '';
}

/** "14:03" (or "2:03 PM"). */
export function clockTime(iso) {
  const at = parseTime(iso);
  return at ? timeOnly.format(at) : '';
}

/** "14:03:22" (or "2:03:22 PM"): for times a few seconds or minutes away. */
export function clockSeconds(iso) {
  const at = parseTime(iso);
  return at ? timeSeconds.format(at) : '';
}

/** The long form, for a title attribute. */
export function longTime(iso) {
  const at = parseTime(iso);
  return at ? fullDateTime.format(at) : '';
}

const UNITS = [
  ['year', 365 * 24 * 3600],
  ['month', 30 * 24 * 3600],
  ['week', 7 * 24 * 3600],
  ['day', 24 * 3600],
  ['hour', 3600],
  ['minute', 60],
  ['second', 1],
];

/** "3 hours ago", "in 6 days". */
export function relativeTime(iso, now = Date.now()) {
  const at = parseTime(iso);
  if (!at) return '';
  const seconds = Math.round((at.getTime() - now) / 1000);
  const size = Math.abs(seconds);
  // A few seconds ahead is clock skew between server and browser, not the future.
  if (size < 45) return seconds < 10 ? 'just now' : 'in a few seconds';
  for (const [unit, length] of UNITS) {
    if (size >= length || unit === 'second') {
      const amount = Math.round(seconds / length);
      if (relativeFormat) return relativeFormat.format(amount, unit);
      const plural = Math.abs(amount) === 1 ? unit : `${unit}s`;
      return amount < 0 ? `${-amount} ${plural} ago` : `in ${amount} ${plural}`;
    }
  }
  return '';
}

/** A whole number with the viewer's digit grouping. */
export function count(value) {
  const n = Number(value);
  return Number.isFinite(n) ? integer.format(n) : String(value ?? '');
}

/** Milliseconds as "0.4 ms", "38 ms", "1,204 ms" (never broken across lines); "—" when unknown. */
export function millis(value) {
  const n = typeof value === 'number' ? value : Number.NaN;
  if (!Number.isFinite(n)) return '—';
  const shown = n < 10 ? Number(n.toFixed(1)).toString() : integer.format(Math.round(n));
  return `${shown}\u00a0ms`;
}

/** "1 token", "3 tokens". */
export function plural(n, one, many = `${one}s`) {
  return `${count(n)} ${n === 1 ? one : many}`;
}

// Exact credit arithmetic: amounts are decimal text with at most 9 decimals (nano-credits).
const NANO = 1000000000n;

/** Credits text ("0.0102") as integer nano-credits; null when unreadable. */
export function toNanos(text) {
  let s = String(text ?? '').trim();
  if (/e/i.test(s)) {
    const n = Number(s);
    if (!Number.isFinite(n)) return null;
    s = n.toFixed(9);
  }
  const match = /^(\d+)(?:\.(\d*))?$/.exec(s);
  if (!match) return null;
  const fraction = (match[2] || '').padEnd(9, '0').slice(0, 9);
  return BigInt(match[1]) * NANO + BigInt(fraction || '0');
}

/** Integer nano-credits as decimal text without trailing zeros. */
export function fromNanos(nanos) {
  const whole = nanos / NANO;
  const fraction = nanos % NANO;
  if (fraction === 0n) return whole.toString();
  return `${whole}.${fraction.toString().padStart(9, '0').replace(/0+$/, '')}`;
}

/** Credits as the API wrote them (never rounded). */
export function credits(text) {
  const nanos = toNanos(text);
  return nanos === null ? String(text ?? '') : fromNanos(nanos);
}

/** UTC calendar day "YYYY-MM-DD" of a Date. */
export function utcDay(at) {
  return at.toISOString().slice(0, 10);
}

/** The UTC day `n` days after "YYYY-MM-DD". */
export function addDays(day, n) {
  const at = new Date(`${day}T00:00:00Z`);
  at.setUTCDate(at.getUTCDate() + n);
  return utcDay(at);
}

const dayLabel = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' });
const dayLong = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' });

/** "Jan 5" for "2025-01-05". */
export function shortDay(day) {
  return dayLabel.format(new Date(`${day}T00:00:00Z`));
}

/** "Jan 5, 2025" for "2025-01-05". */
export function longDay(day) {
  return dayLong.format(new Date(`${day}T00:00:00Z`));
}
