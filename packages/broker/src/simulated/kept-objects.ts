import type { TerminalRecord } from '../terminal.js';
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

/** An order or deal of the history. */
export function recordOf(ticket: string, fields: Omit<TerminalRecord, 'ticket'>): TerminalRecord {
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
