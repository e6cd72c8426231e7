import type { Bar } from '@fxdesk/broker';
import type { Candle } from '@fxdesk/indicators';
import type { IntervalCandle, Timeframe } from '@fxdesk/schemas';

/**
 * A closed candle (mid prices; `time` = the bar's OPEN, epoch seconds) with the provider's spread
 * for the bar in PRICE units, or null when the provider has none. The signal rule keeps a stop
 * clear of the spread (signal-rule.ts); the lab's fills pay it.
 */
export type MarketCandle = Candle & { spread: number | null };

/** A simulated bar as a candle: the spread from points to price units, as the market-data service writes it. */
export function candleOfSimulatedBar(bar: Bar, digits: number): MarketCandle {
  return {
    time: bar.time,
    open: bar.open,
    high: bar.high,
    low: bar.low,
    close: bar.close,
    volume: bar.tickVolume,
    // Whole points over a power of ten: the double nearest the decimal price, as JSON would carry it.
    spread: bar.spread === null ? null : bar.spread / 10 ** digits,
  };
}

/** A spec 002 candle (`ts` = the END of its interval) as a candle (`time` = its open). */
export function candleOfInterval(candle: IntervalCandle, lengthSec: number): MarketCandle {
  return {
    time: Math.round(Date.parse(candle.ts) / 1000) - lengthSec,
    open: candle.open,
    high: candle.high,
    low: candle.low,
    close: candle.close,
    volume: candle.volume,
    spread: candle.spread,
  };
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
