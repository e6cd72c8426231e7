import { Atr } from './atr.js';
import { assertInteger, assertNumber, type Candle, type StreamingIndicator } from './types.js';

export interface SupertrendOptions {
  /** ATR period (default 10). */
  atrPeriod?: number;
  /** Band multiplier (default 3). */
  multiplier?: number;
}

export interface SupertrendValue {
  /** 1 = up trend (the line is the lower band, below price); -1 = down trend (upper band, above). */
  direction: 1 | -1;
  /** The Supertrend line: the final lower band in an up trend, the final upper band in a down trend. */
  value: number;
  /** `bullish` when direction is 1, `bearish` when -1. */
  trend: 'bullish' | 'bearish';
  /** True when the direction differs from the previous candle's (false on the first value). */
  flipped: boolean;
  /** Final (ratcheted) upper band. */
  upperBand: number;
  /** Final (ratcheted) lower band. */
  lowerBand: number;
  /** The ATR the bands were built from. */
  atr: number;
}

/**
 * Supertrend (Olivier Seban) with TradingView's rules (Pine `ta.supertrend`):
 *
 * - basic bands: hl2 ± multiplier × ATR(atrPeriod), hl2 = (high + low) / 2, ATR as {@link Atr};
 * - final upper band = the basic upper band if it is below the previous final upper band or the
 *   previous close was above the previous final upper band, else the previous final upper band
 *   (it only ratchets down while price stays below it); the final lower band mirrors this;
 * - direction: on the first candle with an ATR, down (-1), as TradingView; afterwards, from a
 *   down trend it turns up when the close is above the final upper band, and from an up trend it
 *   turns down when the close is below the final lower band.
 *
 * TradingView's own `direction` output is the opposite sign (−1 = up); this package uses 1 = up.
 * Warm-up: atrPeriod candles. O(1) work and memory per candle.
 */
export class Supertrend implements StreamingIndicator<SupertrendValue> {
  readonly atrPeriod: number;
  readonly multiplier: number;
  readonly warmUp: number;
  private readonly atr: Atr;
  /** The value after the last candle, overwritten in place by the next one; null before the first. */
  private cur: SupertrendValue | null = null;
  /** The fresh copy of cur that `value` answers, made once per candle when asked. */
  private copy: SupertrendValue | null = null;
  private prevClose = Number.NaN;

  constructor(options: SupertrendOptions = {}) {
    this.atrPeriod = options.atrPeriod ?? 10;
    this.multiplier = options.multiplier ?? 3;
    assertInteger('atrPeriod', this.atrPeriod, 1);
    assertNumber('multiplier', this.multiplier, 0);
    this.atr = new Atr({ period: this.atrPeriod });
    this.warmUp = this.atrPeriod;
  }

  update(candle: Candle): SupertrendValue | null {
    this.advance(candle);
    return this.value;
  }

  /** Feeds the candle as {@link update} does, building no value object; whether there is a value (read `current`). */
  advance(candle: Candle): boolean {
    // The ATR validates the candle (assertCandle) before anything here changes.
    const hasAtr = this.atr.advance(candle);
    const prevClose = this.prevClose;
    this.prevClose = candle.close;
    this.copy = null;
    if (!hasAtr) return false;
    const atr = this.atr.current;

    const hl2 = (candle.high + candle.low) / 2;
    const basicUpper = hl2 + this.multiplier * atr;
    const basicLower = hl2 - this.multiplier * atr;
    const v = this.cur;
    if (v === null) {
      // The first value: down, as TradingView.
      this.cur = { direction: -1, value: basicUpper, trend: 'bearish', flipped: false, upperBand: basicUpper, lowerBand: basicLower, atr };
      return true;
    }
    const upper = basicUpper < v.upperBand || prevClose > v.upperBand ? basicUpper : v.upperBand;
    const lower = basicLower > v.lowerBand || prevClose < v.lowerBand ? basicLower : v.lowerBand;
    const direction = v.direction === -1 ? (candle.close > upper ? 1 : -1) : candle.close < lower ? -1 : 1;
    v.flipped = v.direction !== direction;
    v.direction = direction;
    v.value = direction === 1 ? lower : upper;
    v.trend = direction === 1 ? 'bullish' : 'bearish';
    v.upperBand = upper;
    v.lowerBand = lower;
    v.atr = atr;
    return true;
  }

  /**
   * The value after the last candle as one object this indicator overwrites at the next candle
   * (so that a caller reading it each candle allocates nothing); null before the first value.
   * Read it before the next candle; `value` is a copy that stays.
   */
  get current(): Readonly<SupertrendValue> | null {
    return this.cur;
  }

  get value(): SupertrendValue | null {
    return this.cur === null ? null : (this.copy ??= { ...this.cur });
  }

  get isReady(): boolean {
    return this.cur !== null;
  }

  reset(): void {
    this.atr.reset();
    this.cur = null;
    this.copy = null;
    this.prevClose = Number.NaN;
  }
}
