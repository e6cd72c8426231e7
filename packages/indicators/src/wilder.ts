/**
 * Wilder's running average (J. Welles Wilder 1978; TradingView's `ta.rma`), the smoothing of ATR
 * and RSI: the simple mean of the first n values, then avg = (avg_prev × (n − 1) + x) / n.
 * O(1) work and memory per value.
 */
export class WilderAverage {
  private seen = 0;
  private seedSum = 0;
  // NaN until `period` values have come; never null, so that the field only ever holds a number
  // (a field that holds null or a number makes each store of a new average allocate).
  private avg = Number.NaN;

  constructor(readonly period: number) {}

  /** Feeds one value; answers the average, or null until `period` values have come. */
  update(x: number): number | null {
    return this.push(x) ? this.avg : null;
  }

  /**
   * Feeds one value; whether there is an average (read `current`). Answers no number, so that a
   * caller the compiler does not inline this into allocates nothing for it.
   */
  push(x: number): boolean {
    const n = this.period;
    if (this.seen >= n) {
      this.avg = (this.avg * (n - 1) + x) / n;
      return true;
    }
    this.seedSum += x;
    if (++this.seen < n) return false;
    this.avg = this.seedSum / n;
    return true;
  }

  /** The average, NaN before the first. */
  get current(): number {
    return this.avg;
  }

  get value(): number | null {
    return this.seen >= this.period ? this.avg : null;
  }

  reset(): void {
    this.seen = 0;
    this.seedSum = 0;
    this.avg = Number.NaN;
  }
}
