import type { Bar } from '@fxdesk/broker';
import type { Candle } from '@fxdesk/indicators';
import type { IntervalCandle, Timeframe } from '@fxdesk/schemas';

/**
 * A closed candle (mid prices; `time` = the bar's OPEN, epoch seconds) with the provider's spread
 * for the bar in PRICE units, or null when the provider has none. The signal rule keeps a stop
 * clear of the spread (signal-rule.ts); the lab's fills pay it.
 */
export type MarketCandle = Candle & { spread: number | null };

/**
 * The mid candle of a bar of bid prices and its spread (price units): each price plus half the
 * spread, so the fill model's ask (mid + spread/2) is the bar's bid plus its spread and its bid
 * (mid − spread/2) the bar's. Venues chart bids (MT5, cTrader, the simulated market; OANDA's bid
 * candles are read so), and a fill model that took them for mids bought half a spread under the
 * ask and sold half a spread over the bid. A bar without a spread is taken as it is.
 */
export function midOfBid(time: number, open: number, high: number, low: number, close: number, volume: number, spread: number | null): MarketCandle {
  if (spread === null) return { time, open, high, low, close, volume, spread };
  const half = spread / 2;
  return { time, open: mid(open, half), high: mid(high, half), low: mid(low, half), close: mid(close, half), volume, spread };
}

/**
 * A bid plus half a spread, to 1e-8: a mid has one decimal more than its bid, and the doubles of
 * a spread from points (11 / 1e5) and from JSON (0.00011) then give the same mid, to the bit.
 */
function mid(bid: number, half: number): number {
  return Math.round((bid + half) * 1e8) / 1e8;
}

/** A simulated bar (bid prices, its spread in points) as a mid candle (midOfBid), as the market-data service's candles are read. */
export function candleOfSimulatedBar(bar: Bar, digits: number): MarketCandle {
  // Whole points over a power of ten: the double nearest the decimal price, as JSON would carry it.
  const spread = bar.spread === null ? null : bar.spread / 10 ** digits;
  return midOfBid(bar.time, bar.open, bar.high, bar.low, bar.close, bar.tickVolume, spread);
}

/** A spec 002 candle (`ts` = the END of its interval; bid prices, as the venues' bars) as a mid candle (`time` = its open; midOfBid). */
export function candleOfInterval(candle: IntervalCandle, lengthSec: number): MarketCandle {
  return midOfBid(Math.round(Date.parse(candle.ts) / 1000) - lengthSec, candle.open, candle.high, candle.low, candle.close, candle.volume, candle.spread);
}

/** A symbol the market lists, with the decimal places of its prices. */
export interface SourceSymbol {
  symbol: string;
  digits: number;
}

/** A live quote; `time` is epoch milliseconds. */
export interface SourceQuote {
  symbol: string;
  bid: number;
  ask: number;
  time: number;
}

export interface QuoteSubscription {
  close(): void;
}

export interface QuoteHandlers {
  onQuote: (quote: SourceQuote) => void;
  /** The quote stream is (again) connected and its provider healthy. */
  onHealthy?: () => void;
  /** The quote stream dropped or its provider reports trouble; it keeps trying by itself. */
  onTrouble?: (err: unknown) => void;
}

/**
 * Where the strategy's prices come from: the market-data service (MARKET_DATA_URL) or the
 * in-process simulated market. Candles are closed ones only, `time` = the bar's OPEN in epoch
 * seconds, oldest first.
 */
export interface MarketSource {
  readonly name: 'simulated' | 'market-data';
  /** Every symbol the market lists. */
  catalog(): Promise<SourceSymbol[]>;
  /** The newest `count` closed candles of `symbol`. */
  closedCandles(symbol: string, timeframe: Timeframe, count: number): Promise<MarketCandle[]>;
  /** Live quotes of `symbols` until the subscription is closed. */
  subscribe(symbols: string[], handlers: QuoteHandlers): QuoteSubscription;
  /** Units of currency `to` for one unit of `from` at the latest prices known, if any. */
  rate(from: string, to: string): number | undefined;
  close(): Promise<void>;
}
