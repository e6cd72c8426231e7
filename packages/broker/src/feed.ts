import type { TradingSchedule } from './trading-schedule.js';
import type { Bar, Quote, Timeframe, Unsubscribe } from './types.js';

/** A symbol of the feed's catalog (cTrader `ProtoOALightSymbol` + `ProtoOASymbol`), normalized. */
export interface FeedSymbol {
  symbolId: number;
  /** Name as the venue spells it, e.g. `EURUSD`. */
  name: string;
  digits: number;
  /** Position of the pip: 4 for EURUSD, 2 for USDJPY. */
  pipPosition: number;
  enabled: boolean;
  description: string;
  /**
   * When the symbol trades, where the venue gives it with the catalog (cTrader); absent, the
   * feed's own rule answers (`isMarketOpen`). It travels with the entry, so a process without a
   * session (another replica) counts open and closed markets as the one holding it does.
   */
  schedule?: TradingSchedule;
}

export type FeedState = 'connecting' | 'connected' | 'disconnected';

export interface FeedStateChange {
  state: FeedState;
  /** Why the state changed, e.g. `heartbeat timeout`, `reconnected`. */
  reason?: string;
  /** Epoch milliseconds. */
  at: number;
}

/**
 * A live quote feed (cTrader Open API style): a session that connects, a symbol catalog, spot
 * subscriptions and historical trendbars. Reconnection after a drop is the feed's own job; it
 * reports each transition through `onState` and resubscribes what was subscribed.
 */
export interface QuoteFeed {
  /** Provider name written into ticks and candles: `simulated`, `ctrader`. */
  readonly name: string;
  connect(): Promise<void>;
  close(): Promise<void>;
  state(): FeedState;
  onState(listener: (change: FeedStateChange) => void): Unsubscribe;
  onQuote(listener: (quote: Quote) => void): Unsubscribe;
  symbols(): Promise<FeedSymbol[]>;
  /** Starts spots of `symbols`; each new subscription first delivers the symbol's current quote, even while its market is closed. */
  subscribe(symbols: string[]): Promise<void>;
  unsubscribe(symbols: string[]): Promise<void>;
  /**
   * The most recent `count` bars of `timeframe`, oldest first, `time` = bar OPEN (epoch
   * seconds). The forming bar, if any, comes last with `closed: false`.
   */
  trendbars(symbol: string, timeframe: Timeframe, count: number): Promise<Bar[]>;
  /**
   * History by date: the closed bars of `timeframe` that open at or after `fromMs` and before
   * `toMs` (epoch milliseconds), oldest first, at most `limit` of them (the oldest). The bar
   * still forming at the call is never among them. A range longer than the venue serves in one
   * request is read in as many requests as its limits need, paced within its rate limits.
   */
  trendbarsBetween(symbol: string, timeframe: Timeframe, fromMs: number, toMs: number, limit: number): Promise<Bar[]>;
  /** Whether the venue's schedule has the symbol trading at `epochMs` (weekends closed for FX). */
  isMarketOpen(symbol: string, epochMs: number): boolean;
}
