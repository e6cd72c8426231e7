import type { Candle } from '../src/index.js';

/** A candle from [high, low, close] (open = close, volume 1), times 0, 300, 600, … */
export function hlc(rows: Array<[number, number, number]>): Candle[] {
  return rows.map(([high, low, close], i) => ({ time: i * 300, open: close, high, low, close, volume: 1 }));
}

/** Candles from closes only (high = low = open = close). */
export function closes(values: number[]): Candle[] {
  return values.map((close, i) => ({ time: i * 300, open: close, high: close, low: close, close, volume: 1 }));
}

/** Candles from [low, high, volume] (open = low, close = high). */
export function lhv(rows: Array<[number, number, number]>): Candle[] {
  return rows.map(([low, high, volume], i) => ({ time: i * 300, open: low, high, low, close: high, volume }));
}

/** Feeds every candle, returning each update's result. */
export function feed<T>(indicator: { update(c: Candle): T | null }, candles: Candle[]): Array<T | null> {
  return candles.map((c) => indicator.update(c));
}
