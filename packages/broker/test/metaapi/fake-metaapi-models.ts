import { decimalFromNumber } from '@fxdesk/primitives';
import type { FillingMode, OrderType, TerminalDeal, TerminalOrder, TerminalPosition, TerminalRecord, TradeRequest } from '../../src/terminal.js';

/*
 * The MetaApi documents the fake MetaApi server answers (MetatraderOrder, MetatraderDeal,
 * MetatraderPosition) built from the simulated MT5 behind it, and the MetatraderTrade bodies it
 * takes, checked as MetaApi documents them.
 */

/** The broker's time zone, UTC+2 as many MT5 servers. */
const BROKER_OFFSET_MS = 2 * 3_600_000;
/** MetatraderTrade: "fillingModes … Allowed values are ORDER_FILLING_FOK, ORDER_FILLING_IOC". */
export const FILLING_MODES = ['ORDER_FILLING_FOK', 'ORDER_FILLING_IOC'];

const ACTION_TYPES: Record<string, OrderType> = {
  ORDER_TYPE_BUY: 'buy',
  ORDER_TYPE_SELL: 'sell',
  ORDER_TYPE_BUY_LIMIT: 'buy_limit',
  ORDER_TYPE_SELL_LIMIT: 'sell_limit',
  ORDER_TYPE_BUY_STOP: 'buy_stop',
  ORDER_TYPE_SELL_STOP: 'sell_stop',
};
/** MetatraderTrade's action types on a position or an order rather than a new order. */
const ACTIONS_ON_TICKETS = ['POSITION_CLOSE_ID', 'POSITION_PARTIAL', 'POSITION_MODIFY', 'ORDER_CANCEL'];
const ORDER_STATES: Record<TerminalRecord['state'], string> = {
  placed: 'ORDER_STATE_PLACED',
  filled: 'ORDER_STATE_FILLED',
  // An IOC order's unfilled rest is cancelled: MT5 keeps it as a cancelled order with volume left.
  partially_filled: 'ORDER_STATE_CANCELED',
  cancelled: 'ORDER_STATE_CANCELED',
  expired: 'ORDER_STATE_EXPIRED',
};

export const iso = (ms: number) => new Date(ms).toISOString();
export const brokerTime = (ms: number) =>
  iso(ms + BROKER_OFFSET_MS)
    .replace('T', ' ')
    .replace('Z', '');
export const decimal = (value: number) => decimalFromNumber(value, 10);
const actionTypeOf = (type: OrderType) => Object.keys(ACTION_TYPES).find((k) => ACTION_TYPES[k] === type);

/** The order a deal belongs to, when it has one. */
export type OrderOfDeal = (deal: TerminalRecord) => string | undefined;

/** A MetatraderOrder; a partially filled order keeps its unfilled volume as `currentVolume`. */
export function orderOf(record: TerminalRecord, all: TerminalRecord[], orderOfDeal: OrderOfDeal): Record<string, unknown> {
  const filled = all.filter((r) => r.kind === 'deal' && orderOfDeal(r) === record.ticket).reduce((sum, d) => sum + Number(d.volume), 0);
  const rest = record.state === 'placed' || record.state === 'cancelled' || record.state === 'expired' ? Number(record.volume) : Number(record.volume) - filled;
  return {
    id: record.ticket,
    type: actionTypeOf(record.type),
    state: ORDER_STATES[record.state],
    magic: record.magic,
    time: iso(record.time),
    brokerTime: brokerTime(record.time),
    ...(record.state === 'placed' ? {} : { doneTime: iso(record.time), doneBrokerTime: brokerTime(record.time) }),
    symbol: record.symbol,
    openPrice: Number(record.price),
    volume: Number(record.volume),
    currentVolume: Number(decimal(rest)),
    ...(record.position ? { positionId: record.position } : {}),
    comment: record.comment,
    platform: 'mt5',
    reason: 'ORDER_REASON_EXPERT',
    fillingMode: 'ORDER_FILLING_IOC',
    expirationType: 'ORDER_TIME_GTC',
  };
}

/** A resting order as GET …/orders answers it (MetatraderOrder, ORDER_STATE_PLACED, with its stops and expiry). */
export function pendingOrderOf(order: TerminalOrder, currentPrice: number | undefined): Record<string, unknown> {
  return {
    id: order.ticket,
    type: actionTypeOf(order.type),
    state: 'ORDER_STATE_PLACED',
    magic: order.magic,
    time: iso(order.time),
    brokerTime: brokerTime(order.time),
    symbol: order.symbol,
    openPrice: Number(order.price),
    ...(currentPrice === undefined ? {} : { currentPrice }),
    ...(order.sl === null ? {} : { stopLoss: Number(order.sl) }),
    ...(order.tp === null ? {} : { takeProfit: Number(order.tp) }),
    volume: Number(order.volume),
    currentVolume: Number(order.volume),
    comment: order.comment,
    platform: 'mt5',
    reason: 'ORDER_REASON_EXPERT',
    fillingMode: 'ORDER_FILLING_RETURN',
    expirationType: order.expiration === null ? 'ORDER_TIME_GTC' : 'ORDER_TIME_SPECIFIED',
    ...(order.expiration === null ? {} : { expirationTime: iso(order.expiration) }),
  };
}

/**
 * A MetatraderDeal of the simulated MT5's deal, as the model documents it: DEAL_TYPE_BUY/SELL,
 * `entryType` DEAL_ENTRY_IN/OUT, `reason` DEAL_REASON_EXPERT/SL/TP, the deal's `profit`,
 * `commission` and `swap`, `orderId` the order that made it (none for an SL/TP exit, which the
 * simulated MT5 makes without one).
 */
export function dealOf(deal: TerminalDeal): Record<string, unknown> {
  return {
    id: deal.ticket,
    type: deal.side === 'buy' ? 'DEAL_TYPE_BUY' : 'DEAL_TYPE_SELL',
    entryType: `DEAL_ENTRY_${deal.entry.toUpperCase()}`,
    symbol: deal.symbol,
    magic: deal.magic,
    time: iso(deal.time),
    brokerTime: brokerTime(deal.time),
    volume: Number(deal.volume),
    price: Number(deal.price),
    commission: deal.commission,
    swap: deal.swap,
    profit: deal.profit,
    ...(deal.position ? { positionId: deal.position } : {}),
    ...(deal.order ? { orderId: deal.order } : {}),
    comment: deal.comment,
    platform: 'mt5',
    reason: `DEAL_REASON_${deal.reason.toUpperCase()}`,
  };
}

/**
 * A MetatraderPosition. The simulated MT5 books no swap or commission and keeps no realized
 * profit of closed parts, so `profit` is the open volume's, as `unrealizedProfit`.
 */
export function positionOf(position: TerminalPosition, currentPrice: number | undefined, tickValue: number): Record<string, unknown> {
  return {
    id: position.ticket,
    type: position.side === 'buy' ? 'POSITION_TYPE_BUY' : 'POSITION_TYPE_SELL',
    symbol: position.symbol,
    magic: position.magic,
    time: iso(position.openTime),
    brokerTime: brokerTime(position.openTime),
    updateTime: iso(position.openTime),
    openPrice: Number(position.openPrice),
    currentPrice: currentPrice ?? Number(position.openPrice),
    currentTickValue: tickValue,
    ...(position.sl === null ? {} : { stopLoss: Number(position.sl) }),
    ...(position.tp === null ? {} : { takeProfit: Number(position.tp) }),
    volume: Number(position.volume),
    swap: position.swap,
    realizedSwap: 0,
    unrealizedSwap: position.swap,
    profit: position.profit,
    realizedProfit: 0,
    unrealizedProfit: position.profit,
    commission: 0,
    realizedCommission: 0,
    unrealizedCommission: 0,
    comment: position.comment,
    reason: 'POSITION_REASON_EXPERT',
  };
}

export interface TradeBody {
  actionType: string;
  symbol: string;
  volume: number;
  openPrice?: number;
  stopLoss?: number;
  takeProfit?: number;
  comment?: string;
  clientId?: string;
  magic?: number;
  slippage?: number;
  fillingModes?: string[];
  expiration?: { type: string; time?: string };
  positionId?: string;
  orderId?: string;
}

/** Whether a MetatraderTrade opens an order (ORDER_TYPE_…), rather than acting on a position or an order. */
export function isNewOrder(body: TradeBody): boolean {
  return body.actionType in ACTION_TYPES;
}

/** MetatraderTrade validation as MetaApi documents it; answers the first problem. */
export function tradeBodyProblem(body: unknown): { parameter: string; message: string } | undefined {
  const b = body as Partial<TradeBody> | null;
  if (!b || typeof b !== 'object') return { parameter: 'body', message: 'must be a MetatraderTrade object' };
  if (!b.actionType || !(b.actionType in ACTION_TYPES || ACTIONS_ON_TICKETS.includes(b.actionType))) {
    return { parameter: 'actionType', message: 'must be a supported action type' };
  }
  const problem = b.actionType in ACTION_TYPES ? newOrderProblem(b) : ticketActionProblem(b);
  if (problem) return problem;
  if ((b.comment ?? '').length + (b.clientId ?? '').length > 26) {
    return { parameter: 'comment', message: 'The sum of the line lengths of the comment and the clientId must be less than or equal to 26' };
  }
  return undefined;
}

function newOrderProblem(b: Partial<TradeBody>): { parameter: string; message: string } | undefined {
  if (typeof b.symbol !== 'string') return { parameter: 'symbol', message: 'is required' };
  if (typeof b.volume !== 'number' || !(b.volume > 0)) return { parameter: 'volume', message: 'must be a number greater than 0' };
  if (b.fillingModes !== undefined && !(Array.isArray(b.fillingModes) && b.fillingModes.every((m) => FILLING_MODES.includes(m)))) {
    return { parameter: 'fillingModes', message: `allowed values are ${FILLING_MODES.join(', ')}` };
  }
  return undefined;
}

/** "position id, must be specified for position modification commands"; "order id, must be specified for order modification commands". */
function ticketActionProblem(b: Partial<TradeBody>): { parameter: string; message: string } | undefined {
  if (b.actionType === 'ORDER_CANCEL') return typeof b.orderId === 'string' ? undefined : { parameter: 'orderId', message: 'is required' };
  if (typeof b.positionId !== 'string') return { parameter: 'positionId', message: 'is required' };
  if (b.actionType === 'POSITION_PARTIAL' && (typeof b.volume !== 'number' || !(b.volume > 0))) {
    return { parameter: 'volume', message: 'must be a number greater than 0' };
  }
  return undefined;
}

/**
 * The MT5 request a MetatraderTrade opening an order stands for: a market order fills with the
 * first of its `fillingModes` the symbol allows (none given: MetaApi's default, FOK before IOC),
 * a pending order rests with RETURN.
 */
export function tradeRequestOf(b: TradeBody, allowed: string[]): TradeRequest {
  const type = ACTION_TYPES[b.actionType] as OrderType;
  const isDeal = type === 'buy' || type === 'sell';
  const mode = (b.fillingModes ?? FILLING_MODES).find((m) => allowed.includes(m));
  const filling = (isDeal && mode ? mode.replace('ORDER_FILLING_', '') : 'RETURN') as FillingMode;
  const request: TradeRequest = {
    action: isDeal ? 'deal' : 'pending',
    symbol: b.symbol,
    type,
    volume: decimal(b.volume),
    magic: b.magic ?? 0,
    comment: b.comment ?? '',
    filling,
  };
  if (!isDeal && b.openPrice !== undefined) request.price = decimal(b.openPrice);
  if (b.stopLoss !== undefined) request.sl = decimal(b.stopLoss);
  if (b.takeProfit !== undefined) request.tp = decimal(b.takeProfit);
  if (isDeal && b.slippage !== undefined) request.deviation = b.slippage;
  if (!isDeal && b.expiration) {
    request.timeType = b.expiration.type.replace('ORDER_TIME_', '') as TradeRequest['timeType'];
    if (b.expiration.time) request.expiration = Math.floor(Date.parse(b.expiration.time) / 1000);
  }
  return request;
}
