import type { Bar } from '../types.js';
import type { Trendbar } from './wire.js';

/**
 * Open API prices are integers "specified in 1/100000 of unit of a price" (e.g. 123000 means
 * 1.23, 53423782 means 534.23782: ProtoOASpotEvent.bid/ask in OpenApiMessages.proto); trendbar
 * lows and deltas use the same unit.
 */
export const PRICE_SCALE_DIGITS = 5;

/**
 * The price of a wire integer, rounded to the symbol's digits. Rounding happens on the integer
 * and a single division follows, so 108159 is exactly the double nearest to 1.08159.
 */
export function decodePrice(raw: number, digits: number): number {
  const dropped = PRICE_SCALE_DIGITS - digits;
  if (dropped <= 0) return raw / 10 ** PRICE_SCALE_DIGITS;
  return Math.round(raw / 10 ** dropped) / 10 ** digits;
}

/**
 * A ProtoOATrendbar as a Bar: open/close/high are `low + delta…`, `time` is the bar's open
 * (`utcTimestampInMinutes` × 60), `closed` once its whole period lies before `nowMs`. cTrader
 * bars carry no spread.
 */
export function decodeTrendbar(bar: Trendbar, digits: number, periodSeconds: number, nowMs: number): Bar {
  const time = bar.utcTimestampInMinutes * 60;
  return {
    time,
    open: decodePrice(bar.low + bar.deltaOpen, digits),
    high: decodePrice(bar.low + bar.deltaHigh, digits),
    low: decodePrice(bar.low, digits),
    close: decodePrice(bar.low + bar.deltaClose, digits),
    tickVolume: bar.volume,
    spread: null,
    closed: (time + periodSeconds) * 1000 <= nowMs,
  };
}
