import type { TerminalAccount, TerminalOrder, TerminalPosition, TradingTerminal } from '@fxdesk/broker';
import type { BookQuery, OpenPosition, OpenPositionList, RestingOrder, RestingOrderList, TerminalAccountAnswer } from '@fxdesk/schemas';
import { AppError } from '@fxdesk/core';
import type { Logger } from 'pino';
import { messageOf, withDeadline, type Deadline } from './deadline.js';
import { errors } from './errors.js';
import { commentPrefix, sourceOfComment } from './order-comment.js';

/** Which positions or orders a listing answers: each filter given must hold (`source`: the slug in the order comment, cut as the comment cuts it). */
export type BookFilter = BookQuery;

/** Money of the account currency at the API edge: two decimals, as the terminal books it. */
export function money(value: number): string {
  return value.toFixed(2);
}

export function bookPosition(p: TerminalPosition): OpenPosition {
  return {
    ticket: p.ticket,
    symbol: p.symbol,
    side: p.side,
    volume: p.volume,
    open_price: p.openPrice,
    sl: p.sl,
    tp: p.tp,
    profit: money(p.profit),
    swap: money(p.swap),
    magic: p.magic,
    comment: p.comment,
    source: sourceOfComment(p.comment),
    opened_at: new Date(p.openTime).toISOString(),
  };
}

export function bookOrder(o: TerminalOrder): RestingOrder {
  return {
    ticket: o.ticket,
    symbol: o.symbol,
    type: o.type,
    volume: o.volume,
    price: o.price,
    sl: o.sl,
    tp: o.tp,
    magic: o.magic,
    comment: o.comment,
    source: sourceOfComment(o.comment),
    placed_at: new Date(o.time).toISOString(),
    expiration: o.expiration === null ? null : new Date(o.expiration).toISOString(),
  };
}

export function bookAccount(a: TerminalAccount, asOf: number): TerminalAccountAnswer {
  return {
    currency: a.currency,
    balance: money(a.balance),
    equity: money(a.equity),
    margin: money(a.margin),
    free_margin: money(a.marginFree),
    leverage: a.leverage,
    as_of: new Date(asOf).toISOString(),
  };
}

/** Whether a comment belongs to `source` (every comment does when no source is asked for). */
export function isFromSource(comment: string, source: string | undefined): boolean {
  return source === undefined || sourceOfComment(comment) === commentPrefix(source).slice(0, -1);
}

/**
 * GET /v1/positions, /v1/orders and /v1/account: the terminal's open positions, resting orders
 * and money, read through a deadline (a silent terminal costs the request a 503, not a hang).
 */
export class BookReads {
  constructor(
    private readonly terminal: TradingTerminal,
    private readonly deadline: Deadline,
  ) {}

  /** The terminal's positions of the filter, as it holds them (the actions read these too). */
  async terminalPositions(filter: BookFilter, log: Pick<Logger, 'warn'>): Promise<TerminalPosition[]> {
    const positions = await this.read('positions', () => this.terminal.positions({ symbol: filter.symbol }), log);
    return positions.filter((p) => isFromSource(p.comment, filter.source));
  }

  async positions(filter: BookFilter, log: Pick<Logger, 'warn'>): Promise<OpenPositionList> {
    return { positions: (await this.terminalPositions(filter, log)).map(bookPosition) };
  }

  async orders(filter: BookFilter, log: Pick<Logger, 'warn'>): Promise<RestingOrderList> {
    const orders = await this.read('orders', () => this.terminal.orders({ symbol: filter.symbol }), log);
    return { orders: orders.filter((o) => isFromSource(o.comment, filter.source)).map(bookOrder) };
  }

  async account(log: Pick<Logger, 'warn'>): Promise<TerminalAccountAnswer> {
    const info = await this.read('account_info', () => this.terminal.accountInfo(), log);
    return bookAccount(info, this.deadline.clock.now());
  }

  private read<T>(name: string, call: () => Promise<T>, log: Pick<Logger, 'warn'>): Promise<T> {
    return readTerminal(this.terminal, this.deadline, name, call, log);
  }
}

/**
 * A read of the terminal for a route: 503 `not_ready` while it is disconnected, and any failure
 * or silence past the deadline a retryable 503 `broker_unavailable` (its late answer dropped).
 */
export async function readTerminal<T>(
  terminal: TradingTerminal,
  deadline: Deadline,
  name: string,
  call: () => Promise<T>,
  log: Pick<Logger, 'warn'>,
): Promise<T> {
  if (!terminal.isConnected()) throw new AppError('not_ready', `the ${terminal.name} terminal is disconnected`, { headers: { 'retry-after': '5' } });
  try {
    return await withDeadline(call, deadline);
  } catch (err) {
    log.warn({ err }, `${name} failed`);
    throw errors.create('broker_unavailable', `the terminal did not answer ${name}: ${messageOf(err)}`, { headers: { 'retry-after': '1' } });
  }
}
