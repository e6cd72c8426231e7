/**
 * Where a simulated terminal keeps its account across restarts. The terminal saves what an
 * order_send changed before it answers; what ticks change later (fills, stops, expiries) is
 * saved with the next order_send, and re-applied after a restart from `processedUpTo`, with the
 * same result, because the market's ticks are a pure function of time.
 *
 * The store also holds the terminal's order history: a terminal on a store keeps none of it in
 * memory (only its open positions and resting orders), and asks the store for `findByComment`.
 */
import type { DealFilter, TerminalDeal, TerminalRecord } from '../terminal.js';
import type { HistoryRecord } from './kept-objects.js';

/** An open position as saved (its volume, levels and open price in whole points). */
export interface SavedPosition {
  ticket: string;
  /** Opening sequence: positions a tick closes are closed in this order. */
  seq: number;
  symbol: string;
  side: 'buy' | 'sell';
  volume: string;
  openPoints: number;
  slPoints: number | null;
  tpPoints: number | null;
  magic: number;
  comment: string;
  /** Epoch milliseconds. */
  time: number;
}

/** A resting pending order as saved, with its order record. */
export interface SavedRestingOrder {
  record: HistoryRecord;
  /** Placement sequence: orders a tick triggers are activated in this order. */
  seq: number;
  pricePoints: number;
  slPoints: number | null;
  tpPoints: number | null;
  /** Epoch ms from which the order no longer exists; null = good till cancelled. */
  expiresAt: number | null;
}

/** The account's balance, counters and the instant up to which ticks were applied. */
export interface SavedAccount {
  balance: number;
  /** Ticks up to this instant had been applied to resting orders and stops. */
  processedUpTo: number;
  nextTicket: number;
  nextSeq: number;
}

/** A saved account, as a restarted terminal starts from it. */
export interface SavedTerminalState extends SavedAccount {
  /** Open positions, in opening order. */
  positions: SavedPosition[];
  /** Resting orders, in placement order (their records also when older than the history). */
  resting: SavedRestingOrder[];
}

/** What changed since the previous save: rows to write or delete by ticket, and the account. */
export interface TerminalStateChanges {
  account: SavedAccount;
  /** Orders and deals made or changed, deals with their order, entry, reason and profit. */
  records: HistoryRecord[];
  /** The history keeps at least the latest this many records; the store drops older ones at its own pace. */
  historyLimit: number;
  openedPositions: SavedPosition[];
  closedPositions: string[];
  restingOrders: SavedRestingOrder[];
  /** Orders no longer resting (filled, cancelled or expired). */
  unrestedOrders: string[];
}

/**
 * Durable storage of a simulated terminal's account. `save` calls come in order, each with the
 * changes since the one before; a store applies each one whole or not at all.
 */
export interface SimulatedTerminalStore {
  /** The saved account (without its history: see `findRecords`); undefined when none was saved. */
  load(): SavedTerminalState | undefined;
  /** Applies the changes; settles once they are durable. */
  save(changes: TerminalStateChanges): Promise<void>;
  /**
   * The saved records among the latest `historyLimit` whose magic is `magic` and whose comment
   * starts with `commentPrefix`, in any order. Synchronous: a terminal asks it rarely (to
   * reconcile an order whose outcome it did not hear), and the rows are on local disk.
   */
  findRecords(commentPrefix: string, magic: number, historyLimit: number): TerminalRecord[];
  /** The saved deals among the latest `historyLimit` records that `filter` takes (`isDealInFilter`), in any order; synchronous, as `findRecords`. */
  findDeals(filter: DealFilter, historyLimit: number): TerminalDeal[];
}
