import type { Bar, Quote, Timeframe, Unsubscribe } from './types.js';

/** MT5 order filling policies (ORDER_FILLING_*). */
export type FillingMode = 'FOK' | 'IOC' | 'RETURN';
/** MT5 order lifetime policies (ORDER_TIME_*). */
export type ExpirationMode = 'GTC' | 'DAY' | 'SPECIFIED' | 'SPECIFIED_DAY';
/** MT5 SYMBOL_TRADE_MODE_*. */
export type SymbolTradeMode = 'full' | 'long_only' | 'short_only' | 'close_only' | 'disabled';

/** What a terminal knows of a symbol (MT5 `symbol_info`), normalized. */
export interface SymbolInfo {
  symbol: string;
  description: string;
  digits: number;
  /** Smallest price change, 10^-digits for FX. */
  point: number;
  contractSize: number;
  /** Volumes in lots, as exact decimal strings. */
  volumeMin: string;
  volumeMax: string;
  volumeStep: string;
  /** Minimum distance of stops from the price, in points. */
  stopsLevel: number;
  /** Distance from the price inside which orders cannot be modified, in points. */
  freezeLevel: number;
  fillingModes: FillingMode[];
  expirationModes: ExpirationMode[];
  tradeMode: SymbolTradeMode;
  currencyBase: string;
  currencyProfit: string;
  currencyMargin: string;
}

/** MT5 order types. */
export type OrderType = 'buy' | 'sell' | 'buy_limit' | 'sell_limit' | 'buy_stop' | 'sell_stop';

/** An MT5 trade request (`MqlTradeRequest`), prices and volume as exact decimal strings. */
export interface TradeRequest {
  /** `deal` = market order (TRADE_ACTION_DEAL); `pending` = TRADE_ACTION_PENDING. */
  action: 'deal' | 'pending';
  symbol: string;
  type: OrderType;
  volume: string;
  /** Required for pending orders; for deals the terminal takes the current ask/bid when omitted. */
  price?: string;
  sl?: string;
  tp?: string;
  /** Largest accepted slippage for deals, in points. */
  deviation?: number;
  magic: number;
  /** At most 31 characters (MT5 truncates longer comments). */
  comment: string;
  filling?: FillingMode;
  timeType?: ExpirationMode;
  /** Expiry, epoch seconds, when timeType is SPECIFIED. */
  expiration?: number;
}

/** Result of `order_check` (`MqlTradeCheckResult`); retcode 0 means the request would pass. */
export interface TradeCheckResult {
  retcode: number;
  comment: string;
  balance: number;
  equity: number;
  margin: number;
  marginFree: number;
  marginLevel: number;
}

/** Result of `order_send` (`MqlTradeResult`), tickets as strings (venues differ in width). */
export interface TradeResult {
  retcode: number;
  /** Deal ticket, when a deal happened. */
  deal: string | null;
  /** Order ticket, when an order was created. */
  order: string | null;
  /** Position opened or changed by the deal. */
  position: string | null;
  /** Volume executed (deals) or placed (pending orders), lots. */
  volume: string;
  /** Execution price of the deal, or the price of a placed order. */
  price: string | null;
  bid: number | null;
  ask: number | null;
  comment: string;
  /** The terminal's request id, when it gives one. */
  requestId: string | null;
}

/** An order or deal found on the terminal, for reconciling an unknown outcome. */
export interface TerminalRecord {
  kind: 'order' | 'deal';
  ticket: string;
  symbol: string;
  type: OrderType;
  volume: string;
  price: string;
  magic: number;
  comment: string;
  /** Epoch milliseconds. */
  time: number;
  /** Position ticket, for deals. */
  position: string | null;
  state: 'placed' | 'filled' | 'partially_filled' | 'cancelled' | 'expired';
}

/** Calls a terminal received, by method: every adapter counts these (for /metrics and tests). */
export interface TerminalCallStats {
  orderSendCalls: number;
  orderCheckCalls: number;
  tickCalls: number;
  symbolInfoCalls: number;
  ratesCalls: number;
  findByCommentCalls: number;
}

export function newTerminalCallStats(): TerminalCallStats {
  return { orderSendCalls: 0, orderCheckCalls: 0, tickCalls: 0, symbolInfoCalls: 0, ratesCalls: 0, findByCommentCalls: 0 };
}

/**
 * A MetaTrader 5 terminal, as the order-execution service drives it. Methods that talk to the
 * venue throw BrokerError; `orderSend` throws a BrokerError with `isAmbiguous` when the request
 * may have reached the server without an answer (timeout, lost connection).
 */
export interface TradingTerminal {
  /** Adapter name: `simulated`, `metaapi`. */
  readonly name: string;
  connect(): Promise<void>;
  close(): Promise<void>;
  isConnected(): boolean;
  onConnectionChange(listener: (connected: boolean) => void): Unsubscribe;
  symbolInfo(symbol: string): Promise<SymbolInfo | null>;
  /** Latest quote, or null when the symbol has not quoted yet. */
  tick(symbol: string): Promise<Quote | null>;
  orderCheck(request: TradeRequest): Promise<TradeCheckResult>;
  orderSend(request: TradeRequest): Promise<TradeResult>;
  /** The most recent `count` bars, oldest first; the last may be forming. */
  rates(symbol: string, timeframe: Timeframe, count: number): Promise<Bar[]>;
  /** Orders and deals whose comment starts with `commentPrefix` (and carrying `magic`), newest first. */
  findByComment(commentPrefix: string, magic: number): Promise<TerminalRecord[]>;
}
