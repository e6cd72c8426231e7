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
  private last: SupertrendValue | null = null;
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
    // The ATR validates the candle (assertCandle) before anything here changes.
    const atr = this.atr.update(candle);
    const prevClose = this.prevClose;
    this.prevClose = candle.close;
    if (atr === null) return null;

    const hl2 = (candle.high + candle.low) / 2;
    const basicUpper = hl2 + this.multiplier * atr;
    const basicLower = hl2 - this.multiplier * atr;
    const prev = this.last;
    let upper: number;
    let lower: number;
    let direction: 1 | -1;
    if (prev === null) {
      upper = basicUpper;
      lower = basicLower;
      direction = -1;
    } else {
      upper = basicUpper < prev.upperBand || prevClose > prev.upperBand ? basicUpper : prev.upperBand;
      lower = basicLower > prev.lowerBand || prevClose < prev.lowerBand ? basicLower : prev.lowerBand;
      if (prev.direction === -1) direction = candle.close > upper ? 1 : -1;
      else direction = candle.close < lower ? -1 : 1;
    }
    const value: SupertrendValue = {
      direction,
      value: direction === 1 ? lower : upper,
      trend: direction === 1 ? 'bullish' : 'bearish',
      flipped: prev !== null && prev.direction !== direction,
      upperBand: upper,
      lowerBand: lower,
      atr,
    };
    this.last = value;
    return value;
  }

  get value(): SupertrendValue | null {
    return this.last;
  }

  get isReady(): boolean {
    return this.last !== null;
  }

  reset(): void {
    this.atr.reset();
    this.last = null;
    this.prevClose = Number.NaN;
  }
}
