import { FxCalendar } from './fx-calendar.js';
import type { StoredCandle } from './resample.js';

/** A spike is a bar's range, or its open's gap from the close before, beyond this many ATRs by default. */
export const SPIKE_ATR = 10;
/** The ATR's period, and so the bars a series shows before any spike can be found. */
export const ATR_PERIOD = 14;
/** Suspicious bars a report keeps with their times, per series, by default. */
export const FIRST_SUSPICIOUS = 10;

export const SUSPICION_REASONS = ['zero_range', 'range_spike', 'gap_spike', 'unbounded'] as const;
/**
 * - `zero_range`: open, high, low and close all equal in market hours: a feed that stalled;
 * - `range_spike`: high − low beyond N ATRs of the bars before;
 * - `gap_spike`: the open beyond N ATRs from the previous bar's close, the two adjacent;
 * - `unbounded`: a high under the open or close, or a low over them (the importer refuses these; another writer may not).
 */
export type SuspicionReason = (typeof SUSPICION_REASONS)[number];

export interface SuspiciousBar {
  time: number;
  reasons: SuspicionReason[];
  /** The ATR of the bars before (null in the warm-up), and the bar's range and gap in it. */
  atr: number | null;
  rangeAtrs: number | null;
  gapAtrs: number | null;
}

export interface SuspiciousBarsOptions {
  /** The bar's length: the next bar is adjacent when it starts less than two of them later. */
  barMs: number;
  /** N, the ATRs a range or a gap may reach (default SPIKE_ATR). */
  spikeAtr?: number;
  calendar?: FxCalendar;
}

/**
 * Finds suspicious bars in a series, a candle at a time (oldest first), in constant memory: the
 * ATR(14), Wilder's average of true ranges seeded with the mean of the first 14, is a running
 * state. A bar's true range reaches to the close before only when the two bars are adjacent
 * (less than two bar lengths apart, so never over a weekend or a hole: a gap there is not the
 * market's move); the same adjacency decides whether its open's gap is looked at. Flat bars do
 * not feed the ATR, so a stalled hour does not make the next real bar a spike.
 */
export class SuspiciousBarFinder {
  private readonly spikeAtr: number;
  private readonly calendar: FxCalendar;
  private previous: StoredCandle | undefined;
  private atr = 0;
  private seeded = 0;

  constructor(private readonly options: SuspiciousBarsOptions) {
    this.spikeAtr = options.spikeAtr ?? SPIKE_ATR;
    this.calendar = options.calendar ?? new FxCalendar();
  }

  /** The candle, if it is suspicious, with why. */
  push(candle: StoredCandle): SuspiciousBar | undefined {
    const { open, high, low, close } = candle;
    const previous = this.previous;
    this.previous = candle;
    const previousClose = previous !== undefined && candle.time - previous.time < 2 * this.options.barMs ? previous.close : undefined;
    const atr = this.seeded >= ATR_PERIOD ? this.atr : null;
    const rangeAtrs = atr === null ? null : (high - low) / atr;
    const gapAtrs = atr === null || previousClose === undefined ? null : Math.abs(open - previousClose) / atr;
    const isFlat = high === low && open === high && close === high;
    const reasons: SuspicionReason[] = [];
    if (isFlat && !this.calendar.isWeekend(candle.time)) reasons.push('zero_range');
    if (rangeAtrs !== null && rangeAtrs > this.spikeAtr) reasons.push('range_spike');
    if (gapAtrs !== null && gapAtrs > this.spikeAtr) reasons.push('gap_spike');
    if (high < Math.max(open, close) || low > Math.min(open, close)) reasons.push('unbounded');
    if (!isFlat) this.feedAtr(previousClose === undefined ? high - low : Math.max(high, previousClose) - Math.min(low, previousClose));
    return reasons.length === 0 ? undefined : { time: candle.time, reasons, atr, rangeAtrs, gapAtrs };
  }

  private feedAtr(trueRange: number): void {
    if (this.seeded < ATR_PERIOD) {
      this.seeded++;
      this.atr += (trueRange - this.atr) / this.seeded;
    } else {
      this.atr = (this.atr * (ATR_PERIOD - 1) + trueRange) / ATR_PERIOD;
    }
  }
}

/** A series' suspicious bars: how many for each reason (a bar may have several), and the first few. */
export interface SuspiciousBars {
  count: number;
  byReason: Record<SuspicionReason, number>;
  first: SuspiciousBar[];
}

/** Folds a series' pages of candles, oldest first, into its suspicious bars, keeping the first `keep` (default FIRST_SUSPICIOUS). */
export async function findSuspiciousBars(
  pages: AsyncIterable<readonly StoredCandle[]> | Iterable<readonly StoredCandle[]>,
  options: SuspiciousBarsOptions & { keep?: number },
): Promise<SuspiciousBars> {
  const finder = new SuspiciousBarFinder(options);
  const keep = options.keep ?? FIRST_SUSPICIOUS;
  const found: SuspiciousBars = { count: 0, byReason: { zero_range: 0, range_spike: 0, gap_spike: 0, unbounded: 0 }, first: [] };
  for await (const page of pages) {
    for (const candle of page) {
      const bar = finder.push(candle);
      if (bar === undefined) continue;
      found.count++;
      for (const reason of bar.reasons) found.byReason[reason]++;
      if (found.first.length < keep) found.first.push(bar);
    }
  }
  return found;
}
