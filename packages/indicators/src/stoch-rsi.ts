import { Rsi } from './rsi.js';
import { WindowMaximum } from './window-maximum.js';
import { assertCandle, assertInteger, assertNumber, type Candle, type StreamingIndicator } from './types.js';

export type StochRsiSignal = 'oversold' | 'overbought' | 'bullish_cross' | 'bearish_cross' | 'neutral';

export interface StochRsiOptions {
  /** RSI period (default 14). */
  rsiPeriod?: number;
  /** Stochastic look-back over the RSI values (default 14). */
  stochPeriod?: number;
  /** Simple-moving-average length of %K over the raw stochastic (default 3). */
  kSmoothing?: number;
  /** Simple-moving-average length of %D over %K (default 3). */
  dSmoothing?: number;
  /** %K at or below this is `oversold` (default 20). */
  oversold?: number;
  /** %K at or above this is `overbought` (default 80). */
  overbought?: number;
  /**
   * The RSI range (max − min over the look-back, in RSI points) at or below which the range counts
   * as zero (default 1e-9). A flat market leaves the RSI constant up to rounding noise, which an
   * exact `=== 0` test would blow up to full-scale swings.
   */
  zeroRangeEpsilon?: number;
}

export interface StochRsiValue {
  /** %K: SMA(kSmoothing) of the raw stochastic RSI, 0..100. */
  k: number;
  /** %D: SMA(dSmoothing) of %K, 0..100. */
  d: number;
  /** See {@link StochRsi} for the exact rule. */
  signal: StochRsiSignal;
  /** The raw (unsmoothed) stochastic RSI of this candle, 0..100. */
  stoch: number;
  /** The RSI of this candle. */
  rsi: number;
}

/**
 * %K and %D nearer each other than this (in points of their 0–100 scale) are equal: on a flat
 * close they are the same value up to the doubles' rounding (1e-14 apart), which is no cross.
 */
export const STOCH_RSI_CROSS_EPSILON = 1e-9;

/** %K above %D by more than {@link STOCH_RSI_CROSS_EPSILON} (1), below it by more (−1), or equal (0). */
export function stochRsiSide(k: number, d: number): 1 | -1 | 0 {
  const gap = k - d;
  return gap > STOCH_RSI_CROSS_EPSILON ? 1 : gap < -STOCH_RSI_CROSS_EPSILON ? -1 : 0;
}

/**
 * The `signal` rule of {@link StochRsi}, exported for callers that classify %K/%D themselves.
 * `prev` is the previous candle's %K/%D (null for the first value: no cross possible). %K and %D
 * within {@link STOCH_RSI_CROSS_EPSILON} of each other count as equal.
 */
export function stochRsiSignal(prev: { k: number; d: number } | null, k: number, d: number, oversold = 20, overbought = 80): StochRsiSignal {
  const was = prev === null ? null : stochRsiSide(prev.k, prev.d);
  const side = stochRsiSide(k, d);
  if (was !== null && was <= 0 && side === 1 && d < overbought) return 'bullish_cross';
  if (was !== null && was >= 0 && side === -1 && d > oversold) return 'bearish_cross';
  if (k <= oversold) return 'oversold';
  if (k >= overbought) return 'overbought';
  return 'neutral';
}

/**
 * Stochastic RSI (Chande & Kroll 1994) as TradingView's built-in "Stoch RSI" computes it: raw =
 * 100 × (RSI − lowest) / (highest − lowest) over the last `stochPeriod` RSI values, %K = SMA of
 * raw, %D = SMA of %K, with the zero-range guard and the `signal` rules the package README
 * defines. Warm-up: rsiPeriod + stochPeriod + kSmoothing + dSmoothing − 2 candles; the
 * look-back's ends come from monotonic queues, so a candle costs O(kSmoothing + dSmoothing).
 */
export class StochRsi implements StreamingIndicator<StochRsiValue> {
  readonly rsiPeriod: number;
  readonly stochPeriod: number;
  readonly kSmoothing: number;
  readonly dSmoothing: number;
  readonly oversold: number;
  readonly overbought: number;
  readonly zeroRangeEpsilon: number;
  readonly warmUp: number;
  private readonly rsi: Rsi;
  /** The look-back's largest RSI, and the largest negated RSI (its smallest). */
  private readonly highest: WindowMaximum;
  private readonly lowestNegated: WindowMaximum;
  private readonly rawBuf: Float64Array;
  private readonly kBuf: Float64Array;
  private rsiCount = 0;
  private rawCount = 0;
  private rawPos = 0;
  private kCount = 0;
  private kPos = 0;
  private readonly invK: number;
  private readonly invD: number;
  private prevRaw = Number.NaN;
  /** sumOldestFirst's answer. */
  private ringSum = Number.NaN;
  /** The value after the last input, overwritten in place by the next one; null before the first. */
  private cur: StochRsiValue | null = null;
  /** The fresh copy of cur that `value` answers, made once per input when asked. */
  private copy: StochRsiValue | null = null;

  constructor(options: StochRsiOptions = {}) {
    this.rsiPeriod = options.rsiPeriod ?? 14;
    this.stochPeriod = options.stochPeriod ?? 14;
    this.kSmoothing = options.kSmoothing ?? 3;
    this.dSmoothing = options.dSmoothing ?? 3;
    this.oversold = options.oversold ?? 20;
    this.overbought = options.overbought ?? 80;
    this.zeroRangeEpsilon = options.zeroRangeEpsilon ?? 1e-9;
    assertInteger('rsiPeriod', this.rsiPeriod, 1);
    assertInteger('stochPeriod', this.stochPeriod, 1);
    assertInteger('kSmoothing', this.kSmoothing, 1);
    assertInteger('dSmoothing', this.dSmoothing, 1);
    assertNumber('oversold', this.oversold, 0, 100);
    assertNumber('overbought', this.overbought, 0, 100);
    assertNumber('zeroRangeEpsilon', this.zeroRangeEpsilon, 0);
    if (this.oversold >= this.overbought) throw new RangeError('oversold must be below overbought');
    this.rsi = new Rsi({ period: this.rsiPeriod });
    this.highest = new WindowMaximum(this.stochPeriod);
    this.lowestNegated = new WindowMaximum(this.stochPeriod);
    this.rawBuf = new Float64Array(this.kSmoothing);
    this.kBuf = new Float64Array(this.dSmoothing);
    this.invK = 1 / this.kSmoothing;
    this.invD = 1 / this.dSmoothing;
    this.warmUp = this.rsiPeriod + this.stochPeriod + this.kSmoothing + this.dSmoothing - 2;
  }

  /** Feeds the candle's close, once the candle passes the rule every indicator applies. */
  update(candle: Candle): StochRsiValue | null {
    assertCandle(candle);
    return this.updateClose(candle.close);
  }

  /** Feeds a bare closing price. */
  updateClose(close: number): StochRsiValue | null {
    this.step(close);
    return this.value;
  }

  /** Feeds the candle as {@link update} does, building no value object; whether there is a value (read `current`). */
  advance(candle: Candle): boolean {
    assertCandle(candle);
    return this.step(candle.close);
  }

  /** One close: the state after it, with the value in place in cur; whether there is one. */
  private step(close: number): boolean {
    const hasRsi = this.rsi.advanceClose(close);
    this.copy = null;
    if (!hasRsi) return false;
    const rsi = this.rsi.current;

    // Stochastic of the RSI over the last stochPeriod values: min and max from two monotonic
    // queues (O(1) amortized per value, no rescan of the look-back).
    const t = this.rsiCount++;
    this.highest.push(rsi);
    this.lowestNegated.push(-rsi);
    if (t + 1 < this.stochPeriod) return false;
    const max = this.highest.value;
    const min = -this.lowestNegated.value;
    const range = max - min;
    let raw: number;
    if (range <= this.zeroRangeEpsilon) raw = Number.isNaN(this.prevRaw) ? 50 : this.prevRaw;
    else raw = (100 * (rsi - min)) / range;
    this.prevRaw = raw;

    // %K = SMA of raw, summed afresh from the ring (only kSmoothing additions, no running sum to
    // drift), oldest first: the same additions in the same order whatever candle the run began on.
    const ks = this.kSmoothing;
    const rawBuf = this.rawBuf;
    rawBuf[this.rawPos] = raw;
    this.rawPos = this.rawPos + 1 === ks ? 0 : this.rawPos + 1;
    if (this.rawCount < ks) this.rawCount++;
    if (this.rawCount < ks) return false;
    this.sumOldestFirst(rawBuf, this.rawPos);
    const k = this.ringSum * this.invK;

    // %D = SMA of %K, the same way.
    const ds = this.dSmoothing;
    const kBuf = this.kBuf;
    kBuf[this.kPos] = k;
    this.kPos = this.kPos + 1 === ds ? 0 : this.kPos + 1;
    if (this.kCount < ds) this.kCount++;
    if (this.kCount < ds) return false;
    this.sumOldestFirst(kBuf, this.kPos);
    const d = this.ringSum * this.invD;

    const v = this.cur;
    const signal = stochRsiSignal(v, k, d, this.oversold, this.overbought);
    if (v === null) {
      this.cur = { k, d, signal, stoch: raw, rsi };
    } else {
      v.k = k;
      v.d = d;
      v.signal = signal;
      v.stoch = raw;
      v.rsi = rsi;
    }
    return true;
  }

  /**
   * The value after the last input as one object this indicator overwrites at the next (so that
   * a caller reading it each candle allocates nothing); null before the first value. Read it
   * before the next candle; `value` is a copy that stays.
   */
  get current(): Readonly<StochRsiValue> | null {
    return this.cur;
  }

  get value(): StochRsiValue | null {
    return this.cur === null ? null : (this.copy ??= { ...this.cur });
  }

  get isReady(): boolean {
    return this.cur !== null;
  }

  reset(): void {
    this.rsi.reset();
    this.highest.reset();
    this.lowestNegated.reset();
    this.rawBuf.fill(0);
    this.kBuf.fill(0);
    this.rsiCount = 0;
    this.rawCount = this.rawPos = 0;
    this.kCount = this.kPos = 0;
    this.prevRaw = Number.NaN;
    this.cur = null;
    this.copy = null;
  }

  /**
   * Sets ringSum to the sum of a full ring whose oldest value is at `oldest`, added oldest first
   * (into a field rather than answered: a number answered by a call not inlined is allocated).
   */
  private sumOldestFirst(ring: Float64Array, oldest: number): void {
    let sum = 0;
    for (let i = oldest; i < ring.length; i++) sum += ring[i]!;
    for (let i = 0; i < oldest; i++) sum += ring[i]!;
    this.ringSum = sum;
  }
}
