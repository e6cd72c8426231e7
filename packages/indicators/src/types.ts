/**
 * A closed candle as every indicator of this package takes it.
 *
 * `time` is the bar's open time in epoch seconds (UTC); the indicators do not read it except to
 * stamp fair value gaps. `volume` is whatever volume the feed has (tick volume for FX); only the
 * volume profile reads it.
 */
export interface Candle {
  time: number;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
}

/**
 * The shape every indicator of this package has.
 *
 * - `update(candle)` takes the next CLOSED candle (oldest first, each exactly once) and returns the
 *   new value, or `null` while the indicator is still warming up. The work per call is constant
 *   (amortized for the volume profile and fair value gaps): history is never recomputed.
 * - `value` is the last value `update` returned (`null` before the first one).
 * - `isReady` is true once a value exists.
 * - `warmUp` is the number of candles after which the first value appears.
 * - `reset()` forgets everything, as if freshly constructed with the same parameters.
 */
export interface StreamingIndicator<TValue> {
  update(candle: Candle): TValue | null;
  readonly value: TValue | null;
  readonly isReady: boolean;
  readonly warmUp: number;
  reset(): void;
}

/** Throws a RangeError unless `value` is an integer ≥ `min`. */
export function assertInteger(name: string, value: number, min: number): void {
  if (!Number.isInteger(value) || value < min) {
    throw new RangeError(`${name} must be an integer >= ${min}, got ${value}`);
  }
}

/** Throws a RangeError unless `value` is a finite number within [min, max]. */
export function assertNumber(name: string, value: number, min: number, max = Number.POSITIVE_INFINITY): void {
  if (!Number.isFinite(value) || value < min || value > max) {
    throw new RangeError(`${name} must be a finite number in [${min}, ${max}], got ${value}`);
  }
}

/**
 * Whether a candle is one every indicator can use: open, high, low and close finite, high ≥ low,
 * volume finite and ≥ 0. `update` applies this one rule in every indicator (the comparisons are
 * written so that NaN fails them); callers that would rather skip a bad candle can test it first.
 */
export function isValidCandle(c: Candle): boolean {
  return (
    c.high >= c.low &&
    c.volume >= 0 &&
    Number.isFinite(c.open) &&
    Number.isFinite(c.high) &&
    Number.isFinite(c.low) &&
    Number.isFinite(c.close) &&
    Number.isFinite(c.volume)
  );
}

/** Throws a RangeError, naming the candle's fields, unless {@link isValidCandle}. */
export function assertCandle(c: Candle): void {
  if (!isValidCandle(c)) {
    throw new RangeError(`invalid candle at time ${c.time}: open ${c.open}, high ${c.high}, low ${c.low}, close ${c.close}, volume ${c.volume}`);
  }
}
