import { compareDeals, type TerminalDeal, type TradingTerminal } from '@fxdesk/broker';
import type { Deal, DealList, DealListQuery } from '@fxdesk/schemas';
import type { Logger } from 'pino';
import { isFromSource, money, readTerminal } from './book.js';
import type { Deadline } from './deadline.js';
import { errors } from './errors.js';
import { sourceOfComment } from './order-comment.js';

/** Where a page of deals ends: its last deal, in (time, ticket) order. */
export interface DealPosition {
  time: number;
  ticket: string;
}

/** The cursor of GET /v1/deals: the last deal of a page, its time (epoch ms) and ticket joined by a newline, in base64url. */
export function encodeDealCursor(position: DealPosition): string {
  return Buffer.from(`${position.time}\n${position.ticket}`).toString('base64url');
}

export function decodeDealCursor(cursor: string): DealPosition {
  const [time, ticket] = Buffer.from(cursor, 'base64url').toString().split('\n');
  if (time === undefined || ticket === undefined || !/^\d{1,16}$/.test(time)) {
    throw errors.create('invalid_cursor', 'not a cursor this service issued: pass next_cursor as given');
  }
  return { time: Number(time), ticket };
}

/** The opening comment of each position whose entry deal is among `deals`. */
function entryComments(deals: TerminalDeal[]): Map<string, string> {
  const comments = new Map<string, string>();
  for (const deal of deals) if (deal.entry === 'in' && deal.position !== null) comments.set(deal.position, deal.comment);
  return comments;
}

/** A deal at the API edge: money as account-currency decimals, the time as ISO 8601, the source of its position's opening comment. */
export function dealOf(d: TerminalDeal, openingComment: string | undefined): Deal {
  return {
    ticket: d.ticket,
    order: d.order,
    position: d.position,
    symbol: d.symbol,
    side: d.side,
    entry: d.entry,
    volume: d.volume,
    price: d.price,
    profit: money(d.profit),
    commission: money(d.commission),
    swap: money(d.swap),
    magic: d.magic,
    comment: d.comment,
    reason: d.reason,
    source: openingComment === undefined ? null : sourceOfComment(openingComment),
    time: new Date(d.time).toISOString(),
  };
}

/**
 * GET /v1/deals: the terminal's history deals of a range (at most MAX_DEALS_RANGE_DAYS), read
 * live through a deadline, oldest first, a page at a time. Each page reads the whole range, so a
 * deal's source is the same on every page: the source its position's entry deal carries, when
 * that entry is in the range (an exit's own comment is the closing order's, or the venue's).
 */
export class DealHistory {
  constructor(
    private readonly terminal: TradingTerminal,
    private readonly deadline: Deadline,
  ) {}

  async list(query: DealListQuery, log: Pick<Logger, 'warn'>): Promise<DealList> {
    const after = query.cursor === undefined ? undefined : decodeDealCursor(query.cursor);
    const filter = { from: Date.parse(query.from), to: Date.parse(query.to), position: query.position, symbol: query.symbol };
    const deals = await readTerminal(this.terminal, this.deadline, 'deals', () => this.terminal.deals(filter), log);
    const openings = entryComments(deals);
    const openingOf = (d: TerminalDeal) => (d.position === null ? (d.entry === 'in' ? d.comment : undefined) : openings.get(d.position));
    const wanted = deals
      .filter((d) => (after === undefined || compareDeals(d, after) > 0) && (query.source === undefined || isFromSource(openingOf(d) ?? '', query.source)))
      .sort(compareDeals);
    const page = wanted.slice(0, query.limit);
    const last = page.at(-1);
    return {
      deals: page.map((d) => dealOf(d, openingOf(d))),
      next_cursor: last !== undefined && wanted.length > page.length ? encodeDealCursor(last) : null,
    };
  }
}
