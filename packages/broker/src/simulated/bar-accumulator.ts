import type { Bar } from '../types.js';

/** Collects ticks and smaller bars into one bar, in whole points so merging stays exact. */
export class BarAccumulator {
  ticks = 0;
  private open = 0;
  private high = 0;
  private low = 0;
  private close = 0;
  private spread = 0;

  constructor(private readonly digits: number) {}

  reset(): this {
    this.ticks = 0;
    return this;
  }

  addTick(bidPoints: number, spreadPoints: number): void {
    this.merge(bidPoints, bidPoints, bidPoints, bidPoints, 1, spreadPoints);
  }

  addBar(bar: Bar): void {
    const scale = 10 ** this.digits;
    this.merge(
      Math.round(bar.open * scale),
      Math.round(bar.high * scale),
      Math.round(bar.low * scale),
      Math.round(bar.close * scale),
      bar.tickVolume,
      bar.spread ?? Number.POSITIVE_INFINITY,
    );
  }

  /** The bar opening at `timeSeconds`, or null when no tick arrived. */
  toBar(timeSeconds: number, closed: boolean): Bar | null {
    if (this.ticks === 0) return null;
    const scale = 10 ** this.digits;
    return {
      time: timeSeconds,
      open: this.open / scale,
      high: this.high / scale,
      low: this.low / scale,
      close: this.close / scale,
      tickVolume: this.ticks,
      spread: this.spread,
      closed,
    };
  }

  private merge(open: number, high: number, low: number, close: number, ticks: number, spread: number): void {
    if (this.ticks === 0) {
      this.open = open;
      this.high = high;
      this.low = low;
      this.spread = spread;
    } else {
      if (high > this.high) this.high = high;
      if (low < this.low) this.low = low;
      if (spread < this.spread) this.spread = spread;
    }
    this.close = close;
    this.ticks += ticks;
  }
}
