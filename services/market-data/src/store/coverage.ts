import type { CandleStore, SeriesRange } from './candle-store.js';
import { FxCalendar } from './fx-calendar.js';
import { timeframeMs } from './resample.js';
import { findSuspiciousBars, type SuspiciousBars } from './suspicious-bars.js';

/** Missing market time longer than this (or than one bar, for bars longer than it) is a gap. */
export const GAP_MINUTES = 30;

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
    const longestMs = Math.max(GAP_MINUTES * 60_000, barMs);
    const gaps: Gap[] = [];
    for (const step of await store.steps(range.id, barMs + longestMs)) {
      const fromMs = step.fromMs + barMs;
      const openMs = calendar.openMs(fromMs, step.toMs);
      if (openMs > longestMs) gaps.push({ fromMs, toMs: step.toMs, openMinutes: Math.round(openMs / 60_000) });
    }
    const suspicious = await findSuspiciousBars(store.read(range.id, range.firstMs, range.lastMs + 1), { barMs, spikeAtr: options.spikeAtr, calendar });
    covered.push({ ...range, gaps, suspicious });
  }
  return covered;
}
