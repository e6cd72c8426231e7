/**
 * How the console writes numbers and times. Times are UTC, as the desk decides on UTC candles;
 * prices carry the digits a trader reads for the pair.
 */

/** Digits a price of the pair is shown with: 3 for yen pairs, 2 for gold, 5 otherwise. */
export function priceDigits(instrument: string): number {
  if (instrument.endsWith('_JPY')) return 3;
  if (instrument.startsWith('XAU_')) return 2;
  if (instrument.startsWith('XAG_')) return 3;
  return 5;
}

/** The size of one pip of the pair, in its quote currency. */
export function pipSize(instrument: string): number {
  if (instrument.endsWith('_JPY')) return 0.01;
  if (instrument.startsWith('XAU_')) return 0.1;
  if (instrument.startsWith('XAG_')) return 0.01;
  return 0.0001;
}

export function formatPrice(value: number | null | undefined, instrument: string): string {
  return value === null || value === undefined || !Number.isFinite(value) ? '—' : value.toFixed(priceDigits(instrument));
}

/** `EUR_USD` → `EUR/USD`. */
export function pairLabel(instrument: string): string {
  return instrument.replace('_', '/');
}

/** Signed distance from `price` to `level` in pips: `+12.3 pips` when the price is above it. */
export function formatPips(price: number | null | undefined, level: number | null | undefined, instrument: string): string {
  if (price === null || price === undefined || level === null || level === undefined) return '—';
  const pips = (price - level) / pipSize(instrument);
  const rounded = Math.abs(pips) < 100 ? pips.toFixed(1) : pips.toFixed(0);
  return `${pips > 0 ? '+' : ''}${rounded === '-0.0' ? '0.0' : rounded} pips`;
}

/** A %K or %D reading (0–100) with one decimal. */
export function formatOscillator(value: number | null | undefined): string {
  return value === null || value === undefined ? '—' : value.toFixed(1);
}

/** An amount of money (a decimal string or a number) with two decimals, grouped, and its currency. */
export function formatMoney(value: string | number | null | undefined, currency = ''): string {
  if (value === null || value === undefined || value === '') return '—';
  const amount = typeof value === 'number' ? value : Number(value);
  if (!Number.isFinite(amount)) return String(value);
  const text = amount.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  return currency ? `${text} ${currency}` : text;
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

function toDate(at: string | number | Date): Date {
  return at instanceof Date ? at : new Date(at);
}

/** `14:05:09` (UTC). */
export function formatClock(at: string | number | Date): string {
  const d = toDate(at);
  return `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
}

/** `14:05` (UTC). */
export function formatHourMinute(at: string | number | Date): string {
  const d = toDate(at);
  return `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}`;
}

/** `2026-01-05 14:05:09 UTC`. */
export function formatDateTime(at: string | number | Date | null | undefined): string {
  if (at === null || at === undefined) return '—';
  const d = toDate(at);
  if (Number.isNaN(d.getTime())) return '—';
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${formatClock(d)} UTC`;
}

/** Today's times as `14:05:09`, older ones with their date: what a row of a list shows. */
export function formatWhen(at: string | null | undefined, nowMs: number): string {
  if (!at) return '—';
  const d = new Date(at);
  if (Number.isNaN(d.getTime())) return '—';
  const sameDay = d.toISOString().slice(0, 10) === new Date(nowMs).toISOString().slice(0, 10);
  return sameDay ? formatClock(d) : formatDateTime(d).replace(' UTC', '');
}

/** How long ago, coarsely: `just now`, `42 s ago`, `5 min ago`, `3 h ago`, `2 d ago`. */
export function formatAgo(at: string | number | null | undefined, nowMs: number): string {
  if (at === null || at === undefined) return 'never';
  const seconds = Math.round((nowMs - toDate(at).getTime()) / 1000);
  if (seconds < 2) return 'just now';
  if (seconds < 60) return `${seconds} s ago`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)} h ago`;
  return `${Math.floor(seconds / 86_400)} d ago`;
}

/** A duration in whole units: `45 s`, `12 min`, `3 h 20 min`, `1 d 4 h`. */
export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return minutes % 60 ? `${hours} h ${minutes % 60} min` : `${hours} h`;
  const days = Math.floor(hours / 24);
  return hours % 24 ? `${days} d ${hours % 24} h` : `${days} d`;
}

/**
 * How long a backtest's trade was held: from its entry (the open of the candle it entered on) to
 * its exit time (the open of the candle it left in; it left at that open at the soonest). One that
 * left within its entry candle held less than a candle: `< 5 min` on M5.
 */
export function formatHeld(entryTime: string, exitTime: string, candleSeconds: number): string {
  const heldMs = Date.parse(exitTime) - Date.parse(entryTime);
  return heldMs > 0 ? formatDuration(heldMs) : `< ${formatDuration(candleSeconds * 1000)}`;
}

/** A machine word for people: `partially_filled` → `partially filled`. */
export function humanize(word: string): string {
  return word.replace(/_/g, ' ');
}
