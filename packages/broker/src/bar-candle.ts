import type { Bar } from './types.js';

/** A bar as an OHLCV candle: `time` is still the bar's open (epoch seconds), the volume its tick count. */
export type OhlcvCandle = Pick<Bar, 'time' | 'open' | 'high' | 'low' | 'close'> & { volume: number };

export function candleOfBar(bar: Bar): OhlcvCandle {
  return { time: bar.time, open: bar.open, high: bar.high, low: bar.low, close: bar.close, volume: bar.tickVolume };
}
