/**
 * Wilder's running average (J. Welles Wilder 1978; TradingView's `ta.rma`), the smoothing of ATR
 * and RSI: the simple mean of the first n values, then avg = (avg_prev × (n − 1) + x) / n.
 * O(1) work and memory per value.
 */
export class WilderAverage {
  private seen = 0;
  private seedSum = 0;
  private avg: number | null = null;

  constructor(readonly period: number) {}

  /** Feeds one value; answers the average, or null until `period` values have come. */
  update(x: number): number | null {
    const n = this.period;
    if (this.avg !== null) {
      this.avg = (this.avg * (n - 1) + x) / n;
    } else {
      this.seedSum += x;
      if (++this.seen === n) this.avg = this.seedSum / n;
    }
    return this.avg;
  }

  get value(): number | null {
    return this.avg;
  }

  reset(): void {
    this.seen = 0;
    this.seedSum = 0;
    this.avg = null;
  }
}
