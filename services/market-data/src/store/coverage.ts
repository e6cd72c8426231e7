import { STORED_GAP_MINUTES, type Timeframe } from '@fxdesk/schemas';
import type { CandleStore, SeriesRange } from './candle-store.js';
import { FxCalendar } from './fx-calendar.js';
import { timeframeMs } from './resample.js';
import { findSuspiciousBars, type SuspiciousBars } from './suspicious-bars.js';

/** Missing market time longer than this (or than one bar, for bars longer than it) is a gap. */
export const GAP_MINUTES = STORED_GAP_MINUTES;

/** Missing bars inside market hours: from the end of the bar before to the start of the bar after. */
export interface Gap {
  fromMs: number;
  toMs: number;
  /** Market minutes in it (its length less the weekends it spans). */
  openMinutes: number;
}

export interface SeriesCoverage extends SeriesRange {
  gaps: Gap[];
  suspicious: SuspiciousBars;
}

export interface CoverageOptions {
  /** N, the ATRs beyond which a bar's range or its open's gap is a spike (default SPIKE_ATR). */
  spikeAtr?: number;
  calendar?: FxCalendar;
}

/**
 * What the store holds per series (by symbol, timeframe, source): its range, and the gaps in it
 * beyond the weekend. Between two consecutive bars, the missing span runs from the end of the
 * first to the start of the next; it is a gap when its market time (the FX weekend, Friday to
 * Sunday 17:00 New York, left out) is longer than GAP_MINUTES, or than one bar. Holidays the
 * market closes for (25 December, 1 January) show as gaps. The database finds the few long steps.
 * Its suspicious bars (findSuspiciousBars) come from reading the series through, a page at a
 * time: never whole in memory.
 */
export async function coverageOf(store: CandleStore, symbol?: string, options: CoverageOptions = {}): Promise<SeriesCoverage[]> {
  const calendar = options.calendar ?? new FxCalendar();
  const ranges = (await store.ranges()).filter((r) => symbol === undefined || r.symbol === symbol);
  const covered: SeriesCoverage[] = [];
  for (const range of ranges) {
    const barMs = timeframeMs(range.timeframe);
    const gaps = await gapsOf(store, range, calendar);
    const suspicious = await findSuspiciousBars(store.read(range.id, range.firstMs, range.lastMs + 1), { barMs, spikeAtr: options.spikeAtr, calendar });
    covered.push({ ...range, gaps, suspicious });
  }
  return covered;
}

/** Missing market time longer than this is a gap: GAP_MINUTES, or one bar for bars longer than that. */
export function gapThresholdMs(timeframe: Timeframe): number {
  return Math.max(GAP_MINUTES * 60_000, timeframeMs(timeframe));
}

/**
 * The gaps of a series between its candles that start in [fromMs, toMs) (by default all of them):
 * the steps the database finds longer than a bar and the threshold, kept when their market time
 * is longer than the threshold.
 */
export async function gapsOf(
  store: CandleStore,
  series: { id: number; timeframe: Timeframe },
  calendar: FxCalendar,
  fromMs?: number,
  toMs?: number,
): Promise<Gap[]> {
  const barMs = timeframeMs(series.timeframe);
  const longestMs = gapThresholdMs(series.timeframe);
  const gaps: Gap[] = [];
  for (const step of await store.steps(series.id, barMs + longestMs, fromMs, toMs)) {
    const gapFromMs = step.fromMs + barMs;
    const openMs = calendar.openMs(gapFromMs, step.toMs);
    if (openMs > longestMs) gaps.push({ fromMs: gapFromMs, toMs: step.toMs, openMinutes: Math.round(openMs / 60_000) });
  }
  return gaps;
}
