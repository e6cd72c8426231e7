import { TIMEFRAME_SECONDS, type Timeframe } from '@fxdesk/schemas';
import { FxCalendar } from './fx-calendar.js';

/** A candle as the store keeps it: `time` is the start of its interval, UTC epoch ms; `spread` in points, when the source gave one. */
export interface StoredCandle {
  time: number;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
  spread: number | null;
}

export function timeframeMs(timeframe: Timeframe): number {
  return TIMEFRAME_SECONDS[timeframe] * 1000;
}

/**
 * Folds M1 candles, oldest first, into a longer timeframe, a candle at a time: `push` answers
 * the bar the candle closed, if it closed one; `flush` the bar still open. A bar starts at its
 * interval's start: M5 to H4 on UTC multiples of their length, D1 at the New York roll hour
 * (17:00 by default, DST-correct). Candles inside the FX weekend (Friday to Sunday 17:00 New
 * York) are left out, so no bar covers it. Open is the first candle's, close the last's, volume
 * the sum; spread is the first candle's (the spread at the bar's open, where a fill at the open
 * pays it).
 */
export class Resampler {
  private bar: StoredCandle | undefined;
  private barEnd = 0;
  private readonly lengthMs: number;

  constructor(
    readonly timeframe: Timeframe,
    private readonly calendar = new FxCalendar(),
  ) {
    this.lengthMs = timeframeMs(timeframe);
  }

  push(candle: StoredCandle): StoredCandle | undefined {
    if (this.calendar.isWeekend(candle.time)) return undefined;
    const bar = this.bar;
    if (bar !== undefined && candle.time < this.barEnd && candle.time >= bar.time) {
      if (candle.high > bar.high) bar.high = candle.high;
      if (candle.low < bar.low) bar.low = candle.low;
      bar.close = candle.close;
      bar.volume += candle.volume;
      return undefined;
    }
    const start = this.startOf(candle.time);
    this.bar = { ...candle, time: start };
    this.barEnd = this.timeframe === 'D1' ? this.calendar.dayStart(start + 25 * 3_600_000) : start + this.lengthMs;
    return bar;
  }

  flush(): StoredCandle | undefined {
    const bar = this.bar;
    this.bar = undefined;
    return bar;
  }

  /** The start of the bar holding `timeMs`. */
  startOf(timeMs: number): number {
    if (this.timeframe === 'D1') return this.calendar.dayStart(timeMs);
    return timeMs - (((timeMs % this.lengthMs) + this.lengthMs) % this.lengthMs);
  }
}

/** The bars of `timeframe` made of `m1` (oldest first): see {@link Resampler}. M1 itself comes back without its weekend candles. */
export function resampleCandles(m1: Iterable<StoredCandle>, timeframe: Timeframe, calendar = new FxCalendar()): StoredCandle[] {
  const resampler = new Resampler(timeframe, calendar);
  const bars: StoredCandle[] = [];
  for (const candle of m1) {
    const closed = resampler.push(candle);
    if (closed !== undefined) bars.push(closed);
  }
  const last = resampler.flush();
  if (last !== undefined) bars.push(last);
  return bars;
}
