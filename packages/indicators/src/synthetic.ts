import type { Candle } from './types.js';

export interface SyntheticCandleOptions {
  /** Seed of the deterministic generator (default 1). */
  seed?: number;
  /** First open (default 1.1, an EUR/USD-like price). */
  start?: number;
  /** Standard deviation of the close-to-close return (default 0.0005). */
  volatility?: number;
  /** Open time of the first candle, epoch seconds (default 1_700_000_000). */
  startTime?: number;
  /** Seconds between candles (default 300, M5). */
  interval?: number;
}

/**
 * A deterministic random-walk candle series for tests and benchmarks: each open is the previous
 * close, returns are Gaussian, wicks extend beyond the body, volume is an integer tick count
 * (1..2000). Same options, same candles: 32-bit generator (mulberry32), no Math.random.
 */
export function syntheticCandles(count: number, options: SyntheticCandleOptions = {}): Candle[] {
  let state = (options.seed ?? 1) >>> 0;
  const rand = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const gauss = (): number => {
    const u = rand() || 1e-12;
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rand());
  };
  const sigma = options.volatility ?? 0.0005;
  const interval = options.interval ?? 300;
  let time = options.startTime ?? 1_700_000_000;
  let close = options.start ?? 1.1;
  const out = new Array<Candle>(count);
  for (let i = 0; i < count; i++) {
    const open = close;
    close = open * (1 + sigma * gauss());
    const high = Math.max(open, close) + open * sigma * 0.6 * Math.abs(gauss());
    const low = Math.min(open, close) - open * sigma * 0.6 * Math.abs(gauss());
    const volume = 1 + Math.floor(rand() * 2000);
    out[i] = { time, open, high, low, close, volume };
    time += interval;
  }
  return out;
}
