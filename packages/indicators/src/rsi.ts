import { assertCandle, assertInteger, type Candle, type StreamingIndicator } from './types.js';
import { WilderAverage } from './wilder.js';

export interface RsiOptions {
  /** Smoothing period n (default 14). */
  period?: number;
}

/**
 * Relative Strength Index with Wilder's smoothing (Wilder 1978), on closes:
 *
 * - change = close − previous close; gain = max(change, 0), loss = max(−change, 0);
 * - the first average gain/loss, at the (n + 1)-th candle, is the simple mean of the first n
 *   gains/losses; then avg = (avg_prev × (n − 1) + x) / n;
 * - RSI = 100 − 100 / (1 + avgGain / avgLoss), computed as 100 × avgGain / (avgGain + avgLoss);
 *   when avgLoss is 0 the RSI is 100 (also when avgGain is 0 too, as TradingView's `ta.rsi`).
 *
 * Warm-up: n + 1 candles. O(1) work and memory per candle.
 */
export class Rsi implements StreamingIndicator<number> {
  readonly period: number;
  readonly warmUp: number;
  private prevClose = Number.NaN;
  private seen = 0;
  private readonly gains: WilderAverage;
  private readonly losses: WilderAverage;
  // NaN before the first value (not null: see WilderAverage).
  private rsi = Number.NaN;

  constructor(options: RsiOptions = {}) {
    this.period = options.period ?? 14;
    assertInteger('period', this.period, 1);
    this.warmUp = this.period + 1;
    this.gains = new WilderAverage(this.period);
    this.losses = new WilderAverage(this.period);
  }

  /** Feeds the candle's close, once the candle passes the rule every indicator applies. */
  update(candle: Candle): number | null {
    assertCandle(candle);
    return this.updateClose(candle.close);
  }

  /** Feeds a bare closing price (for RSI over anything that is not a candle). */
  updateClose(close: number): number | null {
    return this.advanceClose(close) ? this.rsi : null;
  }

  /** Feeds a bare closing price as updateClose does; whether there is an RSI (read `current`). */
  advanceClose(close: number): boolean {
    if (!Number.isFinite(close)) throw new RangeError(`RSI input must be finite, got ${close}`);
    const seen = this.seen++;
    const prev = this.prevClose;
    this.prevClose = close;
    if (seen === 0) return false;
    const change = close - prev;
    const hasGain = this.gains.push(change > 0 ? change : 0);
    const hasLoss = this.losses.push(change < 0 ? -change : 0);
    if (!hasGain || !hasLoss) return false;
    const g = this.gains.current;
    const l = this.losses.current;
    this.rsi = l === 0 ? 100 : (100 * g) / (g + l);
    return true;
  }

  /** The last RSI, NaN before the first. */
  get current(): number {
    return this.rsi;
  }

  /** The last RSI in 0..100, or null during warm-up. */
  get value(): number | null {
    return Number.isNaN(this.rsi) ? null : this.rsi;
  }

  get isReady(): boolean {
    return !Number.isNaN(this.rsi);
  }

  /** Wilder average gain and loss (null during warm-up). */
  get averages(): { gain: number; loss: number } | null {
    const gain = this.gains.value;
    const loss = this.losses.value;
    return gain === null || loss === null ? null : { gain, loss };
  }

  /** Inputs seen so far. */
  get count(): number {
    return this.seen;
  }

  reset(): void {
    this.prevClose = Number.NaN;
    this.seen = 0;
    this.gains.reset();
    this.losses.reset();
    this.rsi = Number.NaN;
  }
}
