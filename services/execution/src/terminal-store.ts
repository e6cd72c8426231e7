import {
  terminalDealOf,
  type DealFilter,
  type HistoryRecord,
  type SavedPosition,
  type SavedRestingOrder,
  type SavedTerminalState,
  type SimulatedTerminalStore,
  type TerminalDeal,
  type TerminalRecord,
  type TerminalStateChanges,
} from '@fxdesk/broker';
import type { GroupCommit, SqliteStoreDatabase } from '@fxdesk/core';

interface AccountRow {
  balance: number;
  processed_up_to: number;
  next_ticket: number;
  next_seq: number;
}

interface RecordRow {
  ticket: number;
  kind: TerminalRecord['kind'];
  symbol: string;
  type: TerminalRecord['type'];
  volume: string;
  price: string;
  magic: number;
  comment: string;
  time: number;
  position: number | null;
  state: TerminalRecord['state'];
}

interface DealRow extends RecordRow {
  deal_order: number | null;
  entry: HistoryRecord['entry'];
  reason: HistoryRecord['reason'];
  profit: number;
}

/** The record columns, as findByComment reads them. */
const RECORD_COLUMNS = 'ticket, kind, symbol, type, volume, price, magic, comment, time, position, state';

interface PositionRow {
  ticket: number;
  seq: number;
  symbol: string;
  side: SavedPosition['side'];
  volume: string;
  open_points: number;
  sl_points: number | null;
  tp_points: number | null;
  magic: number;
  comment: string;
  time: number;
}

interface RestingRow {
  ticket: number;
  record_json: string;
  seq: number;
  price_points: number;
  sl_points: number | null;
  tp_points: number | null;
  expires_at: number | null;
}

function recordOf(row: RecordRow): TerminalRecord {
  return { ...row, ticket: String(row.ticket), position: row.position === null ? null : String(row.position) };
}

function dealOf(row: DealRow): TerminalDeal {
  const { deal_order: dealOrder, entry, reason, profit, ...record } = row;
  return terminalDealOf({ ...recordOf(record), dealOrder: dealOrder === null ? null : String(dealOrder), entry, reason, profit });
}

function positionOf(row: PositionRow): SavedPosition {
  return {
    ticket: String(row.ticket),
    seq: row.seq,
    symbol: row.symbol,
    side: row.side,
    volume: row.volume,
    openPoints: row.open_points,
    slPoints: row.sl_points,
    tpPoints: row.tp_points,
    magic: row.magic,
    comment: row.comment,
    time: row.time,
  };
}

function restingOf(row: RestingRow): SavedRestingOrder {
  return {
    record: JSON.parse(row.record_json) as HistoryRecord,
    seq: row.seq,
    pricePoints: row.price_points,
    slPoints: row.sl_points,
    tpPoints: row.tp_points,
    expiresAt: row.expires_at,
  };
}

/** Records written between two trims of the history to its limit. */
const TRIM_EVERY = 1_000;

/**
 * The simulated terminal's account in the service's SQLite file (tables `sim_account`,
 * `sim_records`, `sim_positions`, `sim_resting_orders`, made by EXECUTION_SCHEMA), whichever
 * database holds the signals: on the file's connection and group commit
 * (`SqliteStoreDatabase.connection` and `.writer`), so a save joins the signals' commits when they
 * are in the same file: its rows are written in the batch's transaction and it settles once that
 * is on disk. Tickets are stored as integers. SQLite only: it is each process's stand-in for a
 * broker, not state replicas share.
 */
export class SqliteTerminalStore implements SimulatedTerminalStore {
  private readonly writer: GroupCommit;
  private readonly statements;
  /** Records written since the history was last trimmed; the first save trims. */
  private writtenSinceTrim = TRIM_EVERY;

  constructor(file: SqliteStoreDatabase) {
    const db = file.connection;
    this.writer = file.writer;
    this.statements = {
      account: db.prepare<[], AccountRow>('SELECT balance, processed_up_to, next_ticket, next_seq FROM sim_account WHERE id = 1'),
      // Among the latest N records; the prefix compared as text (LIKE would read % and _ in it).
      findRecords: db.prepare<[{ limit: number; magic: number; prefix: string }], RecordRow>(
        `SELECT ${RECORD_COLUMNS} FROM (SELECT * FROM sim_records ORDER BY ticket DESC LIMIT @limit)
         WHERE magic = @magic AND substr(comment, 1, length(@prefix)) = @prefix`,
      ),
      // Deals of the time range among the latest N records (the oldest of them at OFFSET N − 1; all of them when fewer).
      findDeals: db.prepare<[{ limit: number; from: number; to: number; position: number | null; symbol: string | null }], DealRow>(
        `SELECT ${RECORD_COLUMNS}, deal_order, entry, reason, profit FROM sim_records
         WHERE kind = 'deal' AND time >= @from AND time < @to
           AND (@position IS NULL OR position = @position) AND (@symbol IS NULL OR symbol = @symbol)
           AND ticket >= coalesce((SELECT ticket FROM sim_records ORDER BY ticket DESC LIMIT 1 OFFSET @limit - 1), 0)`,
      ),
      positions: db.prepare<[], PositionRow>('SELECT * FROM sim_positions ORDER BY seq'),
      resting: db.prepare<[], RestingRow>('SELECT * FROM sim_resting_orders ORDER BY seq'),
      saveAccount: db.prepare(
        `INSERT OR REPLACE INTO sim_account (id, balance, processed_up_to, next_ticket, next_seq)
         VALUES (1, @balance, @processedUpTo, @nextTicket, @nextSeq)`,
      ),
      saveRecord: db.prepare(
        `INSERT OR REPLACE INTO sim_records (ticket, kind, symbol, type, volume, price, magic, comment, time, position, state, deal_order, entry, reason, profit)
         VALUES (@ticket, @kind, @symbol, @type, @volume, @price, @magic, @comment, @time, @position, @state, @dealOrder, @entry, @reason, @profit)`,
      ),
      // Keeps the latest N records (OFFSET N − 1 finds the oldest of them).
      trimHistory: db.prepare('DELETE FROM sim_records WHERE ticket < (SELECT ticket FROM sim_records ORDER BY ticket DESC LIMIT 1 OFFSET ?)'),
      openPosition: db.prepare(
        `INSERT OR REPLACE INTO sim_positions (ticket, seq, symbol, side, volume, open_points, sl_points, tp_points, magic, comment, time)
         VALUES (@ticket, @seq, @symbol, @side, @volume, @openPoints, @slPoints, @tpPoints, @magic, @comment, @time)`,
      ),
      closePosition: db.prepare('DELETE FROM sim_positions WHERE ticket = ?'),
      rest: db.prepare(
        `INSERT OR REPLACE INTO sim_resting_orders (ticket, record_json, seq, price_points, sl_points, tp_points, expires_at)
         VALUES (@ticket, @recordJson, @seq, @pricePoints, @slPoints, @tpPoints, @expiresAt)`,
      ),
      unrest: db.prepare('DELETE FROM sim_resting_orders WHERE ticket = ?'),
    };
  }

  /** Synchronous: the terminal is built before the service listens. */
  load(): SavedTerminalState | undefined {
    const account = this.statements.account.get();
    if (!account) return undefined;
    return {
      balance: account.balance,
      processedUpTo: account.processed_up_to,
      nextTicket: account.next_ticket,
      nextSeq: account.next_seq,
      positions: this.statements.positions.all().map(positionOf),
      resting: this.statements.resting.all().map(restingOf),
    };
  }

  save(changes: TerminalStateChanges): Promise<void> {
    return this.writer.run(() => {
      const { statements } = this;
      statements.saveAccount.run(changes.account);
      for (const record of changes.records) {
        statements.saveRecord.run({
          ...record,
          ticket: Number(record.ticket),
          position: record.position === null ? null : Number(record.position),
          dealOrder: record.dealOrder === null ? null : Number(record.dealOrder),
        });
      }
      // Trimmed every TRIM_EVERY records written, not on every save: the delete walks the latest N keys.
      this.writtenSinceTrim += changes.records.length;
      if (this.writtenSinceTrim >= TRIM_EVERY) {
        statements.trimHistory.run(changes.historyLimit - 1);
        this.writtenSinceTrim = 0;
      }
      for (const position of changes.openedPositions) statements.openPosition.run({ ...position, ticket: Number(position.ticket) });
      for (const ticket of changes.closedPositions) statements.closePosition.run(Number(ticket));
      for (const { record, seq, pricePoints, slPoints, tpPoints, expiresAt } of changes.restingOrders) {
        // Field by field: on Node 20, a spread followed by new keys gives every row a hidden class of its own.
        statements.rest.run({ ticket: Number(record.ticket), recordJson: JSON.stringify(record), seq, pricePoints, slPoints, tpPoints, expiresAt });
      }
      for (const ticket of changes.unrestedOrders) statements.unrest.run(Number(ticket));
    });
  }

  findRecords(commentPrefix: string, magic: number, historyLimit: number): TerminalRecord[] {
    return this.statements.findRecords.all({ limit: historyLimit, magic, prefix: commentPrefix }).map(recordOf);
  }

  findDeals(filter: DealFilter, historyLimit: number): TerminalDeal[] {
    const position = filter.position === undefined ? null : /^\d{1,15}$/.test(filter.position) ? Number(filter.position) : -1;
    return this.statements.findDeals.all({ limit: historyLimit, from: filter.from, to: filter.to, position, symbol: filter.symbol ?? null }).map(dealOf);
  }
}
