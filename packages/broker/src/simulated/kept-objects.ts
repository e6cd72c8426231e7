import type { DealEntry, DealReason, TerminalDeal, TerminalRecord } from '../terminal.js';
import type { HeapEntry } from './indexed-heap.js';
import type { SavedPosition, SavedRestingOrder } from './terminal-store.js';
import type { BookEntry } from './trigger-book.js';

/*
 * What a simulated terminal keeps for each order: its records (up to `historyLimit`, for hours),
 * its position while open, its place in the book while resting. Each is made by one object
 * literal that names every field. On Node 20 a spread followed by a key the source lacks,
 * `{ ...saved, stops: [] }`, gives every object a hidden class of its own (a map and a
 * descriptor array: 420 bytes in old space per position, more than the position itself); a
 * spread after another property, `{ ticket, ...fields }`, puts most fields in a second array.
 */

/** An open position (hedging: each deal opens its own). */
export interface Position extends SavedPosition {
  /** The volume in hundredths of a lot (the volume step), a whole number. */
  hundredths: number;
  /** Its SL and TP levels in the symbol's trigger book, when it has them. */
  slStop: BookEntry<Position> | undefined;
  tpStop: BookEntry<Position> | undefined;
}

/** A pending order resting in its symbol's trigger book. */
export interface RestingOrder extends SavedRestingOrder {
  trigger: BookEntry<RestingOrder> | undefined;
  expiry: HeapEntry<RestingOrder> | undefined;
}

/**
 * An order or deal of the history, with what a deal also carries (null and 0 on an order): the
 * order that made it, its entry and reason, and its realized profit in the account currency.
 */
export interface HistoryRecord extends TerminalRecord {
  dealOrder: string | null;
  entry: DealEntry | null;
  reason: DealReason | null;
  profit: number;
}

/** An order or deal of the history; a record saved before deals carried their facts takes an order's (none). */
export function recordOf(ticket: string, fields: Omit<TerminalRecord, 'ticket'> & Partial<HistoryRecord>): HistoryRecord {
  return {
    ticket,
    kind: fields.kind,
    symbol: fields.symbol,
    type: fields.type,
    volume: fields.volume,
    price: fields.price,
    magic: fields.magic,
    comment: fields.comment,
    time: fields.time,
    position: fields.position,
    state: fields.state,
    dealOrder: fields.dealOrder ?? null,
    entry: fields.entry ?? null,
    reason: fields.reason ?? null,
    profit: fields.profit ?? 0,
  };
}

/** A history record as `findByComment` answers it, without the deal's facts. */
export function terminalRecordOf(r: TerminalRecord): TerminalRecord {
  return {
    kind: r.kind,
    ticket: r.ticket,
    symbol: r.symbol,
    type: r.type,
    volume: r.volume,
    price: r.price,
    magic: r.magic,
    comment: r.comment,
    time: r.time,
    position: r.position,
    state: r.state,
  };
}

/**
 * A deal of the history as `deals` answers it. A deal saved before deals carried their facts is
 * read as the simulated terminal makes them: an SL or TP exit by its comment (`[sl 1.0812]`),
 * else an entry by the expert, at a profit of 0 (unknown).
 */
export function terminalDealOf(r: HistoryRecord): TerminalDeal {
  const stop = /^\[(sl|tp) /.exec(r.comment)?.[1] as 'sl' | 'tp' | undefined;
  return {
    ticket: r.ticket,
    order: r.dealOrder,
    position: r.position,
    symbol: r.symbol,
    side: r.type === 'sell' ? 'sell' : 'buy',
    entry: r.entry ?? (stop ? 'out' : 'in'),
    volume: r.volume,
    price: r.price,
    profit: r.profit,
    // The simulated account charges neither commission nor swap.
    commission: 0,
    swap: 0,
    time: r.time,
    comment: r.comment,
    magic: r.magic,
    reason: r.reason ?? stop ?? 'expert',
  };
}

/** An open position, not yet in the trigger book. */
export function positionOf(saved: SavedPosition): Position {
  return {
    ticket: saved.ticket,
    seq: saved.seq,
    symbol: saved.symbol,
    side: saved.side,
    volume: saved.volume,
    openPoints: saved.openPoints,
    slPoints: saved.slPoints,
    tpPoints: saved.tpPoints,
    magic: saved.magic,
    comment: saved.comment,
    time: saved.time,
    // Volumes passed the 0.01 step check (or are a liquidity cap in whole lots).
    hundredths: Math.round(Number(saved.volume) * 100),
    slStop: undefined,
    tpStop: undefined,
  };
}

/** A resting order, not yet in the trigger book. */
export function restingOrderOf(saved: SavedRestingOrder): RestingOrder {
  return {
    record: saved.record,
    seq: saved.seq,
    pricePoints: saved.pricePoints,
    slPoints: saved.slPoints,
    tpPoints: saved.tpPoints,
    expiresAt: saved.expiresAt,
    trigger: undefined,
    expiry: undefined,
  };
}

/**
 * `text` in a string of its own. A request's comment may be a slice or a concatenation (the
 * execution service's `<source>:<tag>` concatenates a slice of a 64-character digest), which
 * keeps its parts alive with it: 168 bytes for 31 characters that take 48 on their own.
 */
export function ownedText(text: string): string {
  return JSON.parse(JSON.stringify(text)) as string;
}
