import type { HistoryRecord } from './kept-objects.js';
import type { SavedAccount, SavedPosition, SavedRestingOrder, SimulatedTerminalStore, TerminalStateChanges } from './terminal-store.js';

/**
 * What a simulated terminal changed since it last saved, by ticket: the live records, positions
 * and resting orders (undefined once gone). A save copies them out as rows at once (the terminal
 * goes on changing the live objects while the store writes) and writes only those.
 */
export class TerminalChanges {
  private records = new Map<string, HistoryRecord>();
  private positions = new Map<string, SavedPosition | undefined>();
  private resting = new Map<string, SavedRestingOrder | undefined>();

  constructor(private readonly store: SimulatedTerminalStore) {}

  recordChanged(record: HistoryRecord): void {
    this.records.set(record.ticket, record);
  }

  /** A position opened, or one whose volume or stops changed: saved as it is at the save. */
  positionChanged(position: SavedPosition): void {
    this.positions.set(position.ticket, position);
  }

  positionClosed(ticket: string): void {
    this.positions.set(ticket, undefined);
  }

  orderRested(order: SavedRestingOrder): void {
    this.resting.set(order.record.ticket, order);
  }

  /** The order left the book: its record changed with it (filled, cancelled, expired). */
  orderUnrested(order: SavedRestingOrder): void {
    this.resting.set(order.record.ticket, undefined);
    this.records.set(order.record.ticket, order.record);
  }

  /** Writes the changes with the account; settles once they are durable. A failed save is tried again with the next one. */
  async save(account: SavedAccount, historyLimit: number): Promise<void> {
    const changes = this.take(account, historyLimit);
    try {
      await this.store.save(changes);
    } catch (err) {
      this.putBack(changes);
      throw err;
    }
  }

  /** The records made or changed since the last save (their live objects). */
  pendingRecords(): IterableIterator<HistoryRecord> {
    return this.records.values();
  }

  private take(account: SavedAccount, historyLimit: number): TerminalStateChanges {
    const changes: TerminalStateChanges = {
      account: { ...account },
      records: [...this.records.values()].map((record) => ({ ...record })),
      historyLimit,
      openedPositions: [],
      closedPositions: [],
      restingOrders: [],
      unrestedOrders: [],
    };
    for (const [ticket, position] of this.positions) {
      if (position) changes.openedPositions.push(positionRow(position));
      else changes.closedPositions.push(ticket);
    }
    for (const [ticket, order] of this.resting) {
      if (order) changes.restingOrders.push(restingRow(order));
      else changes.unrestedOrders.push(ticket);
    }
    this.records = new Map();
    this.positions = new Map();
    this.resting = new Map();
    return changes;
  }

  /** Puts back what a failed save did not write, under what changed since (a row changed again is written as it is now). */
  private putBack(changes: TerminalStateChanges): void {
    const keep = <T>(map: Map<string, T>, ticket: string, value: T) => {
      if (!map.has(ticket)) map.set(ticket, value);
    };
    for (const record of changes.records) keep(this.records, record.ticket, record);
    for (const position of changes.openedPositions) keep(this.positions, position.ticket, position);
    for (const ticket of changes.closedPositions) keep(this.positions, ticket, undefined);
    for (const order of changes.restingOrders) keep(this.resting, order.record.ticket, order);
    for (const ticket of changes.unrestedOrders) keep(this.resting, ticket, undefined);
  }
}

function positionRow(p: SavedPosition): SavedPosition {
  return {
    ticket: p.ticket,
    seq: p.seq,
    symbol: p.symbol,
    side: p.side,
    volume: p.volume,
    openPoints: p.openPoints,
    slPoints: p.slPoints,
    tpPoints: p.tpPoints,
    magic: p.magic,
    comment: p.comment,
    time: p.time,
  };
}

function restingRow(o: SavedRestingOrder): SavedRestingOrder {
  return { record: { ...o.record }, seq: o.seq, pricePoints: o.pricePoints, slPoints: o.slPoints, tpPoints: o.tpPoints, expiresAt: o.expiresAt };
}
