import type { Candle } from '@fxdesk/indicators';
import type { Timeframe } from '@fxdesk/schemas';

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
  closedCandles(symbol: string, timeframe: Timeframe, count: number): Promise<Candle[]>;
  /** Live quotes of `symbols` until the subscription is closed. */
  subscribe(symbols: string[], handlers: QuoteHandlers): QuoteSubscription;
  /** Units of currency `to` for one unit of `from` at the latest prices known, if any. */
  rate(from: string, to: string): number | undefined;
  close(): Promise<void>;
}
