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

/** An open position (MT5 `positions_get`), prices and volume as exact decimal strings. */
export interface TerminalPosition {
  /** The position's ticket (MT5: the ticket of the order that opened it). */
  ticket: string;
  symbol: string;
  side: 'buy' | 'sell';
  /** Open volume, lots. */
  volume: string;
  openPrice: string;
  /** Stop loss and take profit, or null when the position has none. */
  sl: string | null;
  tp: string | null;
  /** Floating profit of the open volume at the current close price (bid for a buy), account currency. */
  profit: number;
  /** Swap charged to the open volume so far, account currency. */
  swap: number;
  magic: number;
  comment: string;
  /** When it opened, epoch milliseconds. */
  openTime: number;
}

export type PendingOrderType = Exclude<OrderType, 'buy' | 'sell'>;

/** A resting pending order (MT5 `orders_get`). */
export interface TerminalOrder {
  ticket: string;
  symbol: string;
  type: PendingOrderType;
  /** Volume still to fill, lots. */
  volume: string;
  price: string;
  sl: string | null;
  tp: string | null;
  magic: number;
  comment: string;
  /** When it was placed, epoch milliseconds. */
  time: number;
  /** When it expires, epoch milliseconds; null = good till cancelled. */
  expiration: number | null;
}

/** Which positions or orders a listing answers; every one when omitted. */
export interface TerminalFilter {
  symbol?: string;
}

/** Whether a position or order of `symbol` belongs in a listing by `filter`. */
export function isInFilter(filter: TerminalFilter, symbol: string): boolean {
  return filter.symbol === undefined || filter.symbol === symbol;
}

/**
 * Closes all or part of a position: MT5 TRADE_ACTION_DEAL of the opposite side with `position`
 * set, at the current bid (closing a buy) or ask (closing a sell).
 */
export interface ClosePositionRequest {
  position: string;
  /** Lots to close: the whole open volume, or part of it on the symbol's volume step. */
  volume: string;
  /** Largest accepted slippage, in points. */
  deviation?: number;
  magic: number;
  /** The closing order's and deal's comment, at most 31 characters. */
  comment: string;
}

/** Sets a position's stops: MT5 TRADE_ACTION_SLTP. Both legs are set; null removes one. */
export interface ModifyPositionRequest {
  position: string;
  sl: string | null;
  tp: string | null;
}

/** Deletes a resting pending order: MT5 TRADE_ACTION_REMOVE. */
export interface CancelOrderRequest {
  order: string;
}

/** MT5 DEAL_ENTRY_*: the deal opened a position (in), closed some of it (out), reversed it (inout) or closed it by an opposite one (out_by). */
export type DealEntry = 'in' | 'out' | 'inout' | 'out_by';

/** MT5 DEAL_REASON_* (lower case): who or what made a deal; `unknown` when the venue does not say. */
export const DEAL_REASONS = ['client', 'mobile', 'web', 'expert', 'sl', 'tp', 'so', 'rollover', 'vmargin', 'split', 'unknown'] as const;
export type DealReason = (typeof DEAL_REASONS)[number];

/**
 * A history deal that traded (MT5 `history_deals_get`, DEAL_TYPE_BUY and DEAL_TYPE_SELL only:
 * balance, credit and charge deals are not trades). Money in the account currency.
 */
export interface TerminalDeal {
  ticket: string;
  /** The order that made the deal, null when the venue made it without one. */
  order: string | null;
  /** The position the deal opened or changed. */
  position: string | null;
  symbol: string;
  side: 'buy' | 'sell';
  entry: DealEntry;
  /** Lots, exact decimal string. */
  volume: string;
  price: string;
  /** Realized profit of the deal (0 for an entry), account currency. */
  profit: number;
  commission: number;
  swap: number;
  /** Epoch milliseconds. */
  time: number;
  comment: string;
  magic: number;
  reason: DealReason;
}

/** The account's money now (MT5 `account_info`), in its currency. */
export interface TerminalAccount {
  currency: string;
  balance: number;
  /** Balance plus the open positions' floating profit and swap. */
  equity: number;
  /** Margin the open positions hold. */
  margin: number;
  marginFree: number;
  /** Account leverage (1:N), null when the venue does not say. */
  leverage: number | null;
}

/** Which history deals `deals` answers: those in [from, to), of one position and/or symbol when given. */
export interface DealFilter {
  /** Epoch milliseconds, inclusive. */
  from: number;
  /** Epoch milliseconds, exclusive. */
  to: number;
  position?: string;
  symbol?: string;
}

/** Whether a deal belongs in the answer to `filter`. */
export function isDealInFilter(filter: DealFilter, deal: Pick<TerminalDeal, 'time' | 'position' | 'symbol'>): boolean {
  return (
    deal.time >= filter.from &&
    deal.time < filter.to &&
    (filter.position === undefined || deal.position === filter.position) &&
    (filter.symbol === undefined || deal.symbol === filter.symbol)
  );
}

/** Deals oldest first; deals of one instant by ticket (numerically: tickets are digits, of any width). */
export function compareDeals(a: Pick<TerminalDeal, 'time' | 'ticket'>, b: Pick<TerminalDeal, 'time' | 'ticket'>): number {
  return a.time - b.time || compareTickets(a.ticket, b.ticket);
}

/** Tickets (numbers of any width, as strings) in numeric order. */
export function compareTickets(a: string, b: string): number {
  if (a.length !== b.length) return a.length - b.length;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Calls a terminal received, by method: every adapter counts these (for /metrics and tests). */
export interface TerminalCallStats {
  orderSendCalls: number;
  orderCheckCalls: number;
  tickCalls: number;
  symbolInfoCalls: number;
  ratesCalls: number;
  findByCommentCalls: number;
  positionsCalls: number;
  ordersCalls: number;
  closePositionCalls: number;
  modifyPositionCalls: number;
  cancelOrderCalls: number;
  dealsCalls: number;
}

export function newTerminalCallStats(): TerminalCallStats {
  return {
    orderSendCalls: 0,
    orderCheckCalls: 0,
    tickCalls: 0,
    symbolInfoCalls: 0,
    ratesCalls: 0,
    findByCommentCalls: 0,
    positionsCalls: 0,
    ordersCalls: 0,
    closePositionCalls: 0,
    modifyPositionCalls: 0,
    cancelOrderCalls: 0,
    dealsCalls: 0,
  };
}

/**
 * A MetaTrader 5 terminal, as the order-execution service drives it. Methods that talk to the
 * venue throw BrokerError. The trade calls (`orderSend`, `closePosition`, `modifyPosition`,
 * `cancelOrder`) answer the server's retcode for a clear outcome, refusals included, and throw a
 * BrokerError with `isAmbiguous` when the request may have reached the server without an answer
 * (timeout, lost connection).
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
  /** Open positions, in the order they opened. */
  positions(filter?: TerminalFilter): Promise<TerminalPosition[]>;
  /** Resting pending orders, in the order they were placed. */
  orders(filter?: TerminalFilter): Promise<TerminalOrder[]>;
  /** 10009 with the closing deal, or a rejection: 10036 when the position is no longer open, 10014 for a volume off the step, 10038 above the open volume. */
  closePosition(request: ClosePositionRequest): Promise<TradeResult>;
  /** 10009, or a rejection: 10016 for stops on the wrong side or within the stops level, 10025 when nothing changes, 10036 when the position is no longer open. */
  modifyPosition(request: ModifyPositionRequest): Promise<TradeResult>;
  /** 10009 with the order's ticket, or a rejection (10013 when the order no longer rests). */
  cancelOrder(request: CancelOrderRequest): Promise<TradeResult>;
  /** History deals that traded, of the filter, oldest first (see `compareDeals`). */
  deals(filter: DealFilter): Promise<TerminalDeal[]>;
  /** The account's money now (MT5 `account_info`). */
  accountInfo(): Promise<TerminalAccount>;
}
