import { assertCandle, assertInteger, type Candle, type StreamingIndicator } from './types.js';
import { WilderAverage } from './wilder.js';

export interface AtrOptions {
  /** Smoothing period n (default 14). */
  period?: number;
}

/**
 * Average True Range with Wilder's smoothing (J. Welles Wilder, "New Concepts in Technical Trading
 * Systems", 1978), seeded as TradingView's `ta.atr` and `ta.rma` seed it:
 *
 * - true range TR = max(high − low, |high − previous close|, |low − previous close|); the first
 *   candle has no previous close, so its TR is high − low (TradingView's `ta.tr(true)`);
 * - the first ATR, at the n-th candle, is the simple mean of the first n true ranges;
 * - then ATR = (ATR_prev × (n − 1) + TR) / n.
 *
 * Warm-up: n candles. O(1) work and memory per candle.
 */
export class Atr implements StreamingIndicator<number> {
  readonly period: number;
  readonly warmUp: number;
  private prevClose = Number.NaN;
  private seen = 0;
  private readonly average: WilderAverage;
  private tr = Number.NaN;

  constructor(options: AtrOptions = {}) {
    this.period = options.period ?? 14;
    assertInteger('period', this.period, 1);
    this.warmUp = this.period;
    this.average = new WilderAverage(this.period);
  }

  update(candle: Candle): number | null {
    return this.advance(candle) ? this.average.current : null;
  }

  /** Feeds the candle as {@link update} does; whether there is an ATR (read `current`). */
  advance(candle: Candle): boolean {
    assertCandle(candle);
    const { high, low, close } = candle;
    let tr = high - low;
    if (this.seen > 0) {
      const up = Math.abs(high - this.prevClose);
      const down = Math.abs(low - this.prevClose);
      if (up > tr) tr = up;
      if (down > tr) tr = down;
    }
    this.prevClose = close;
    this.tr = tr;
    this.seen++;
    return this.average.push(tr);
  }

  /** The last ATR, NaN before the first. */
  get current(): number {
    return this.average.current;
  }

  /** The last ATR, or null during warm-up. */
  get value(): number | null {
    return this.average.value;
  }

  get isReady(): boolean {
    return this.average.value !== null;
  }

  /** The true range of the last candle (NaN before the first candle). */
  get trueRange(): number {
    return this.tr;
  }

  /** Candles seen so far. */
  get count(): number {
    return this.seen;
  }

  reset(): void {
    this.prevClose = Number.NaN;
    this.seen = 0;
    this.average.reset();
    this.tr = Number.NaN;
  }
}
