import { compareDecimal, decimalFromNumber } from '@fxdesk/primitives';
import { TIMEFRAME_SECONDS } from '@fxdesk/schemas';
import {
  compareTickets,
  DEAL_REASONS,
  type CancelOrderRequest,
  type ClosePositionRequest,
  type DealEntry,
  type DealReason,
  type ExpirationMode,
  type FillingMode,
  type ModifyPositionRequest,
  type OrderType,
  type SymbolInfo,
  type SymbolTradeMode,
  type TerminalDeal,
  type TerminalOrder,
  type TerminalPosition,
  type TerminalRecord,
  type TradeRequest,
} from '../terminal.js';
import type { Bar, Quote, Timeframe } from '../types.js';
import type { WireDeal, WireOrder, WirePosition, WireSymbolPrice, WireSymbolSpecification } from './wire.js';

/**
 * "The sum of the line lengths of the comment and the clientId must be less than or equal to 26"
 * (MetatraderTrade.comment, "Tracking trades"): MetaApi keeps 26 characters where MT5 keeps 31.
 * The adapter sends no clientId, so the comment has all 26.
 */
export const METAAPI_COMMENT_LENGTH = 26;

/** Decimal string of a number MetaApi sent (volumes, prices): at most 10 places, no exponent. */
export function decimalOf(value: number): string {
  return decimalFromNumber(value, 10);
}

/** Epoch ms of an ISO time MetaApi sent. */
export function epochMsOf(iso: string): number {
  return Date.parse(iso);
}

const ORDER_TYPES: Record<OrderType, string> = {
  buy: 'ORDER_TYPE_BUY',
  sell: 'ORDER_TYPE_SELL',
  buy_limit: 'ORDER_TYPE_BUY_LIMIT',
  sell_limit: 'ORDER_TYPE_SELL_LIMIT',
  buy_stop: 'ORDER_TYPE_BUY_STOP',
  sell_stop: 'ORDER_TYPE_SELL_STOP',
};
const OUR_ORDER_TYPES = new Map(Object.entries(ORDER_TYPES).map(([ours, theirs]) => [theirs, ours as OrderType]));

/** MetaApi's `actionType` / order `type` for one of our order types. */
export function metaApiOrderType(type: OrderType): string {
  return ORDER_TYPES[type];
}

const TRADE_MODES: Record<string, SymbolTradeMode> = {
  SYMBOL_TRADE_MODE_FULL: 'full',
  SYMBOL_TRADE_MODE_LONGONLY: 'long_only',
  SYMBOL_TRADE_MODE_SHORTONLY: 'short_only',
  SYMBOL_TRADE_MODE_CLOSEONLY: 'close_only',
  SYMBOL_TRADE_MODE_DISABLED: 'disabled',
};
const EXPIRATION_MODES = ['GTC', 'DAY', 'SPECIFIED', 'SPECIFIED_DAY'] as const satisfies readonly ExpirationMode[];

/**
 * `symbol_info` from a MetatraderSymbolSpecification. Filling modes are the specification's FOK
 * and IOC plus RETURN: MT5 has no SYMBOL_FILLING flag for Return, which pending orders always
 * use (MQL5, ENUM_ORDER_TYPE_FILLING). A missing `tradeMode` (optional in the model) is FULL.
 */
export function symbolInfoOf(spec: WireSymbolSpecification): SymbolInfo {
  const fillingModes: FillingMode[] = (['FOK', 'IOC'] as const).filter((mode) => spec.fillingModes.includes(`ORDER_FILLING_${mode}`));
  return {
    symbol: spec.symbol,
    description: spec.description,
    digits: spec.digits,
    point: spec.point ?? 10 ** -spec.digits,
    contractSize: spec.contractSize,
    volumeMin: decimalOf(spec.minVolume),
    volumeMax: decimalOf(spec.maxVolume),
    volumeStep: decimalOf(spec.volumeStep),
    stopsLevel: spec.stopsLevel,
    freezeLevel: spec.freezeLevel,
    fillingModes: [...fillingModes, 'RETURN'],
    expirationModes: EXPIRATION_MODES.filter((mode) => spec.allowedExpirationModes.includes(`SYMBOL_EXPIRATION_${mode}`)),
    tradeMode: TRADE_MODES[spec.tradeMode ?? 'SYMBOL_TRADE_MODE_FULL'] ?? 'disabled',
    currencyBase: spec.baseCurrency ?? '',
    currencyProfit: spec.profitCurrency ?? '',
    currencyMargin: spec.marginCurrency ?? spec.baseCurrency ?? '',
  };
}

export function quoteOf(price: WireSymbolPrice): Quote {
  return { symbol: price.symbol, bid: price.bid, ask: price.ask, time: epochMsOf(price.time) };
}

/**
 * The broker's offset from UTC in ms, from a price's `brokerTime` ("YYYY-MM-DD HH:mm:ss.SSS",
 * broker time zone) and `time` (ISO, the same instant); 0 when MetaApi gave no broker time.
 */
export function brokerOffsetMs(price: WireSymbolPrice): number {
  const m = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,3}))?$/.exec(price.brokerTime ?? '');
  if (!m) return 0;
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const brokerAsUtc = Date.UTC(y, mo - 1, d, h, mi, s, Number((m[7] ?? '0').padEnd(3, '0')));
  // Zones are whole minutes; rounding absorbs any millisecond the two fields disagree by.
  return Math.round((brokerAsUtc - epochMsOf(price.time)) / 60_000) * 60_000;
}

/** MetaApi's timeframe names for ours ("1m, 2m, 3m, …, 1h, …, 4h, …, 1d, 1w, 1mn"). */
export const METAAPI_TIMEFRAMES: Record<Timeframe, string> = { M1: '1m', M5: '5m', M15: '15m', M30: '30m', H1: '1h', H4: '4h', D1: '1d' };

/** Bars from MetatraderCandles, oldest first, one per open time; a bar whose period has not ended by `nowMs` is forming. */
export function barsOf(
  candles: { time: string; open: number; high: number; low: number; close: number; tickVolume: number; spread?: number }[],
  timeframe: Timeframe,
  nowMs: number,
): Bar[] {
  const byTime = new Map<number, Bar>();
  for (const c of candles) {
    const time = Math.floor(epochMsOf(c.time) / 1000);
    byTime.set(time, {
      time,
      open: c.open,
      high: c.high,
      low: c.low,
      close: c.close,
      tickVolume: c.tickVolume,
      spread: c.spread ?? null,
      closed: (time + TIMEFRAME_SECONDS[timeframe]) * 1000 <= nowMs,
    });
  }
  return [...byTime.values()].sort((a, b) => a.time - b.time);
}

/** A price as the number MetaApi takes; none for no price or `0` (MT5's "no stop"). */
function priceNumber(value: string | null | undefined): number | undefined {
  return value === undefined || value === null || compareDecimal(value, '0') === 0 ? undefined : Number(value);
}

/** A MetaApi price we keep as a stop: absent or 0 is none. */
function stopOf(value: number | undefined): string | null {
  return value === undefined || value === 0 ? null : decimalOf(value);
}

/** The MetatraderTrade body of an MT5 trade request (numbers as MetaApi documents them). */
export function tradeBodyOf(request: TradeRequest): Record<string, unknown> {
  const isDeal = request.action === 'deal';
  const body: Record<string, unknown> = {
    actionType: metaApiOrderType(request.type),
    symbol: request.symbol,
    volume: Number(request.volume),
    comment: request.comment.slice(0, METAAPI_COMMENT_LENGTH),
    magic: request.magic,
  };
  // A market order takes the terminal's current price: MetaApi has no price field for it, and
  // "slippage in points" bounds how far the fill may move from it.
  if (!isDeal) body.openPrice = priceNumber(request.price);
  if (isDeal && request.deviation !== undefined) body.slippage = request.deviation;
  if (priceNumber(request.sl) !== undefined) body.stopLoss = priceNumber(request.sl);
  if (priceNumber(request.tp) !== undefined) body.takeProfit = priceNumber(request.tp);
  // "fillingModes: allowed filling modes … ORDER_FILLING_FOK, ORDER_FILLING_IOC" belongs to market
  // orders only (MetaApi trade docs); a pending order has none, and Return has no value there.
  if (isDeal && (request.filling === 'FOK' || request.filling === 'IOC')) body.fillingModes = [`ORDER_FILLING_${request.filling}`];
  if (!isDeal && request.timeType) {
    const withTime = request.timeType === 'SPECIFIED' || request.timeType === 'SPECIFIED_DAY';
    body.expiration = {
      type: `ORDER_TIME_${request.timeType}`,
      ...(withTime && request.expiration !== undefined ? { time: new Date(request.expiration * 1000).toISOString() } : {}),
    };
  }
  return body;
}

/** MetatraderOrder.state → our record state; a cancelled order that filled part of its volume is partially filled. */
function orderStateOf(order: WireOrder): TerminalRecord['state'] {
  switch (order.state) {
    case 'ORDER_STATE_FILLED':
      return 'filled';
    case 'ORDER_STATE_PARTIAL':
      return 'partially_filled';
    case 'ORDER_STATE_EXPIRED':
      return 'expired';
    case 'ORDER_STATE_CANCELED':
    case 'ORDER_STATE_REJECTED': {
      const rest = order.currentVolume;
      return rest !== undefined && rest > 0 && rest < order.volume ? 'partially_filled' : 'cancelled';
    }
    default:
      return 'placed';
  }
}

/** An open or history order as a record, or null for types we do not trade (stop-limit, close-by). */
export function recordOfOrder(order: WireOrder): TerminalRecord | null {
  const type = OUR_ORDER_TYPES.get(order.type);
  if (!type) return null;
  return {
    kind: 'order',
    ticket: order.id,
    symbol: order.symbol,
    type,
    volume: decimalOf(order.volume),
    price: decimalOf(order.openPrice ?? 0),
    magic: order.magic,
    comment: order.comment ?? '',
    time: epochMsOf(order.time),
    position: order.positionId ?? null,
    state: orderStateOf(order),
  };
}

/** A buy or sell deal as a record (balance, commission… deals are not trades: null). */
export function recordOfDeal(deal: WireDeal, partialOrders: ReadonlySet<string>): TerminalRecord | null {
  const type = deal.type === 'DEAL_TYPE_BUY' ? 'buy' : deal.type === 'DEAL_TYPE_SELL' ? 'sell' : undefined;
  if (!type || deal.symbol === undefined) return null;
  return {
    kind: 'deal',
    ticket: deal.id,
    symbol: deal.symbol,
    type,
    volume: decimalOf(deal.volume ?? 0),
    price: decimalOf(deal.price ?? 0),
    magic: deal.magic ?? 0,
    comment: deal.comment ?? '',
    time: epochMsOf(deal.time),
    position: deal.positionId ?? null,
    state: deal.orderId !== undefined && partialOrders.has(deal.orderId) ? 'partially_filled' : 'filled',
  };
}

/** MetatraderDeal.entryType: "DEAL_ENTRY_IN, DEAL_ENTRY_OUT, DEAL_ENTRY_INOUT, DEAL_ENTRY_OUT_BY". */
const DEAL_ENTRIES: Record<string, DealEntry> = {
  DEAL_ENTRY_IN: 'in',
  DEAL_ENTRY_OUT: 'out',
  DEAL_ENTRY_INOUT: 'inout',
  DEAL_ENTRY_OUT_BY: 'out_by',
};

/** MetatraderDeal.reason: "One of DEAL_REASON_CLIENT, …, DEAL_REASON_SPLIT, DEAL_REASON_UNKNOWN" (optional: unknown when absent). */
function dealReasonOf(reason: string | undefined): DealReason {
  const name = reason?.replace(/^DEAL_REASON_/, '').toLowerCase();
  return (DEAL_REASONS as readonly string[]).includes(name ?? '') ? (name as DealReason) : 'unknown';
}

/**
 * A buy or sell MetatraderDeal as a TerminalDeal (balance, commission… deals are not trades:
 * null). `entryType` is optional in the model; a deal without one is read as an entry, as the
 * fill lookup reads it.
 */
export function terminalDealOf(deal: WireDeal): TerminalDeal | null {
  const side = deal.type === 'DEAL_TYPE_BUY' ? 'buy' : deal.type === 'DEAL_TYPE_SELL' ? 'sell' : undefined;
  if (!side || deal.symbol === undefined) return null;
  return {
    ticket: deal.id,
    order: deal.orderId ?? null,
    position: deal.positionId ?? null,
    symbol: deal.symbol,
    side,
    entry: DEAL_ENTRIES[deal.entryType ?? ''] ?? 'in',
    volume: decimalOf(deal.volume ?? 0),
    price: decimalOf(deal.price ?? 0),
    profit: deal.profit,
    commission: deal.commission,
    swap: deal.swap,
    time: epochMsOf(deal.time),
    comment: deal.comment ?? '',
    magic: deal.magic ?? 0,
    reason: dealReasonOf(deal.reason),
  };
}

/** Newest first; tickets of one instant by number, larger first. */
export function newestFirst(a: TerminalRecord, b: TerminalRecord): number {
  return b.time - a.time || compareTickets(b.ticket, a.ticket);
}

/** A comparator putting the oldest first by `timeOf`; tickets of one instant by number. */
export function oldestFirst<T extends { ticket: string }>(timeOf: (item: T) => number): (a: T, b: T) => number {
  return (a, b) => timeOf(a) - timeOf(b) || compareTickets(a.ticket, b.ticket);
}

/**
 * POSITION_CLOSE_ID for the whole position, POSITION_PARTIAL with `volume` for part of it, with
 * the trade options an SDK close sends ("comment", "magic", "slippage in points"; MetaApi:
 * "position id, must be specified for position modification commands").
 */
export function closeBodyOf(request: ClosePositionRequest, isWhole: boolean): Record<string, unknown> {
  const body: Record<string, unknown> = {
    actionType: isWhole ? 'POSITION_CLOSE_ID' : 'POSITION_PARTIAL',
    positionId: request.position,
    comment: request.comment.slice(0, METAAPI_COMMENT_LENGTH),
    magic: request.magic,
  };
  if (!isWhole) body.volume = Number(request.volume);
  if (request.deviation !== undefined) body.slippage = request.deviation;
  return body;
}

/**
 * POSITION_MODIFY with the stops the position is to have: MetaApi removes a leg the request
 * leaves out ("it removes existing takeProfit if I only provide stopLoss", metaapi-node.js-sdk
 * issue #29; the maintainers' answer: specify both), which is how a null leg is removed.
 */
export function modifyBodyOf(request: ModifyPositionRequest): Record<string, unknown> {
  const body: Record<string, unknown> = { actionType: 'POSITION_MODIFY', positionId: request.position };
  const sl = priceNumber(request.sl);
  const tp = priceNumber(request.tp);
  if (sl !== undefined) body.stopLoss = sl;
  if (tp !== undefined) body.takeProfit = tp;
  return body;
}

/** ORDER_CANCEL ("order id, must be specified for order modification commands"). */
export function cancelBodyOf(request: CancelOrderRequest): Record<string, unknown> {
  return { actionType: 'ORDER_CANCEL', orderId: request.order };
}

/** A MetatraderPosition as an open position; null for a type other than POSITION_TYPE_BUY / _SELL. */
export function positionOf(position: WirePosition): TerminalPosition | null {
  const side = position.type === 'POSITION_TYPE_BUY' ? 'buy' : position.type === 'POSITION_TYPE_SELL' ? 'sell' : undefined;
  if (!side) return null;
  return {
    ticket: position.id,
    symbol: position.symbol,
    side,
    volume: decimalOf(position.volume),
    openPrice: decimalOf(position.openPrice),
    sl: stopOf(position.stopLoss),
    tp: stopOf(position.takeProfit),
    profit: position.unrealizedProfit ?? position.profit,
    swap: position.unrealizedSwap ?? position.swap,
    magic: position.magic,
    comment: position.comment ?? '',
    openTime: epochMsOf(position.time),
  };
}

/** An open order as a resting pending order: null for a market order still in flight and for types we do not trade (stop-limit). */
export function pendingOrderOf(order: WireOrder): TerminalOrder | null {
  const type = OUR_ORDER_TYPES.get(order.type);
  if (!type || type === 'buy' || type === 'sell') return null;
  const expires = order.expirationType !== undefined && order.expirationType !== 'ORDER_TIME_GTC';
  return {
    ticket: order.id,
    symbol: order.symbol,
    type,
    volume: decimalOf(order.currentVolume ?? order.volume),
    price: decimalOf(order.openPrice ?? 0),
    sl: stopOf(order.stopLoss),
    tp: stopOf(order.takeProfit),
    magic: order.magic,
    comment: order.comment ?? '',
    time: epochMsOf(order.time),
    expiration: expires && order.expirationTime !== undefined ? epochMsOf(order.expirationTime) : null,
  };
}
