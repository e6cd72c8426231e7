import { inTransaction, openPostgres, postgresHealth, type GroupCommitStats, type PostgresPool } from '@fxdesk/core';
import type { BrokerTickets, Reconciliation, SignalRecord, TradeOutcome } from '@fxdesk/schemas';
import type { QueryConfig, QueryResultRow } from 'pg';
import {
  abandonedOutcome,
  claimColumns,
  interruptedOf,
  existingOf,
  listConditions,
  outcomeColumns,
  pageOf,
  RECORD_COLUMNS,
  recordOf,
  type AbandonedAnswer,
  type AbandonedRow,
  type ClaimResult,
  type ExistingRow,
  type ExistingSignal,
  type InterruptedSignal,
  type SignalClaim,
  type SignalFilter,
  type SignalOutcome,
  type SignalPage,
  type SignalRow,
  type SignalStore,
} from './store.js';

/**
 * The schema of the signals in PostgreSQL (counted as store `execution` in fxdesk_schema). The
 * columns mirror execution.db's; timestamps and ids compared as text use the "C" collation, the
 * byte order SQLite compares in, so the list's order does not depend on the database's locale.
 */
export const POSTGRES_MIGRATIONS = [
  `CREATE TABLE signals (
     signal_id           TEXT COLLATE "C" PRIMARY KEY,
     payload_hash        TEXT NOT NULL,
     state               TEXT NOT NULL CHECK (state IN ('processing','filled','partially_filled','placed','rejected','unknown')),
     request_json        TEXT NOT NULL,
     request_id          TEXT NOT NULL,
     order_comment       TEXT NOT NULL,
     symbol              TEXT NOT NULL,
     source              TEXT NOT NULL,
     http_status         INTEGER,
     response_body       TEXT,
     order_ticket        TEXT,
     deal_ticket         TEXT,
     position_ticket     TEXT,
     result_json         TEXT,
     error_json          TEXT,
     reconciliation_json TEXT,
     owner               TEXT NOT NULL,
     lease_expires_at    TEXT COLLATE "C" NOT NULL,
     received_at         TEXT COLLATE "C" NOT NULL,
     completed_at        TEXT,
     updated_at          TEXT NOT NULL
   );
   CREATE INDEX signals_received ON signals (received_at, signal_id);
   CREATE INDEX signals_state ON signals (state, received_at, signal_id);
   CREATE INDEX signals_symbol ON signals (symbol, received_at, signal_id);
   CREATE INDEX signals_source ON signals (source, received_at, signal_id);`,
];

const CLAIM = `INSERT INTO signals (signal_id, payload_hash, state, request_json, request_id, order_comment, symbol, source, received_at, updated_at, owner, lease_expires_at)
  VALUES ($1, $2, 'processing', $3, $4, $5, $6, $7, $8, $8, $9, $10)
  ON CONFLICT (signal_id) DO NOTHING RETURNING signal_id`;
const EXISTING = 'SELECT payload_hash, state, http_status, response_body FROM signals WHERE signal_id = $1';
const COMPLETE = `UPDATE signals SET state = $2, http_status = $3, response_body = $4, order_ticket = $5, deal_ticket = $6, position_ticket = $7,
    result_json = $8, error_json = $9, completed_at = $10, updated_at = $10
  WHERE signal_id = $1 AND state = 'processing'`;
const RELEASE = "DELETE FROM signals WHERE signal_id = $1 AND state = 'processing' AND owner = $2";
const FIND = `SELECT ${RECORD_COLUMNS} FROM signals WHERE signal_id = $1`;
// SKIP LOCKED: a row another replica is completing or recovering right now is not abandoned.
const ABANDONED = `SELECT signal_id, request_id, order_comment FROM signals
  WHERE state = 'processing' AND ((owner = $1 AND $3) OR (owner <> $1 AND lease_expires_at <= $2)) FOR UPDATE SKIP LOCKED`;
const LATE_RESULT = `UPDATE signals SET order_ticket = $2, deal_ticket = $3, position_ticket = $4, result_json = $5, updated_at = $6
  WHERE signal_id = $1 AND state = 'unknown' AND result_json IS NULL`;
const RECONCILIATION = "UPDATE signals SET reconciliation_json = $2, updated_at = $3 WHERE signal_id = $1 AND state = 'unknown'";

/** A claim lost and then found gone (released in between) is tried again, this many times at most. */
const CLAIM_ATTEMPTS = 5;

function completeValues(signalId: string, outcome: SignalOutcome): unknown[] {
  const c = outcomeColumns(signalId, outcome);
  return [c.signalId, c.state, c.httpStatus, c.responseBody, c.order, c.deal, c.position, c.resultJson, c.errorJson, c.completedAt];
}

/**
 * The signals in PostgreSQL (DATABASE_URL), for several replicas on one database. The claim is
 * one atomic statement, INSERT … ON CONFLICT DO NOTHING RETURNING: PostgreSQL's unique index lets
 * exactly one of any number of concurrent inserts of a signal_id through, on any replica; the
 * others read the row that stands. Each write is its own transaction, durable when it returns
 * (the server's synchronous_commit); the server groups concurrent commits' WAL flushes itself.
 * Statements are named, so each connection of the pool prepares them once.
 */
export class PostgresSignalStore implements SignalStore {
  readonly commitStats: GroupCommitStats = { commits: 0, operations: 0, failedCommits: 0 };
  /** The statement name of each combination of list filters met so far (at most 64). */
  private readonly listNames = new Map<string, string>();
  private closed = false;

  constructor(
    private readonly pool: PostgresPool,
    readonly replicaId: string,
  ) {}

  /** Connects to the database and brings its schema up to date (safe when replicas start at once). */
  static async open(url: string, replicaId: string): Promise<PostgresSignalStore> {
    const pool = await openPostgres({ url, store: 'execution', migrations: POSTGRES_MIGRATIONS });
    return new PostgresSignalStore(pool, replicaId);
  }

  private async query<R extends QueryResultRow>(name: string, text: string, values: unknown[]): Promise<R[]> {
    const config: QueryConfig = { name, text, values };
    return (await this.pool.query<R>(config)).rows;
  }

  /** A write, counted as one commit of one operation. */
  private async write(name: string, text: string, values: unknown[]): Promise<number> {
    try {
      const { rowCount } = await this.pool.query({ name, text, values });
      this.commitStats.commits += 1;
      this.commitStats.operations += 1;
      return rowCount ?? 0;
    } catch (err) {
      this.commitStats.failedCommits += 1;
      throw err;
    }
  }

  async claim(claim: SignalClaim): Promise<ClaimResult> {
    const c = claimColumns(claim, this.replicaId);
    const values = [c.signalId, c.payloadHash, c.requestJson, c.requestId, c.orderComment, c.symbol, c.source, c.receivedAt, c.owner, c.leaseExpiresAt];
    for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
      if ((await this.write('claim', CLAIM, values)) === 1) return { claimed: true };
      // Read in a statement of its own: the insert's snapshot may predate the row it conflicted with.
      const existing = await this.existing(claim.signalId);
      if (existing) return { claimed: false, existing };
    }
    throw new Error(`signal ${claim.signalId} neither inserted nor found after ${CLAIM_ATTEMPTS} attempts`);
  }

  async existing(signalId: string): Promise<ExistingSignal | undefined> {
    const [row] = await this.query<ExistingRow>('existing', EXISTING, [signalId]);
    return row ? existingOf(row) : undefined;
  }

  async complete(signalId: string, outcome: SignalOutcome): Promise<void> {
    if ((await this.write('complete', COMPLETE, completeValues(signalId, outcome))) !== 1) throw new Error(`signal ${signalId} was not processing`);
  }

  async release(signalId: string): Promise<void> {
    await this.write('release', RELEASE, [signalId, this.replicaId]);
  }

  async find(signalId: string): Promise<SignalRecord | undefined> {
    const [row] = await this.query<SignalRow>('find', FIND, [signalId]);
    return row ? recordOf(row) : undefined;
  }

  /** The SELECT of one page, newest first; one row past `limit` tells whether more follow. */
  static listStatement(filter: SignalFilter, limit: number): { text: string; values: unknown[] } {
    const values: unknown[] = [];
    const where = listConditions(filter, (_name, value) => {
      values.push(value);
      return `$${values.length}`;
    });
    values.push(limit + 1);
    const condition = where.length > 0 ? `WHERE ${where.join(' AND ')} ` : '';
    return { text: `SELECT ${RECORD_COLUMNS} FROM signals ${condition}ORDER BY received_at DESC, signal_id DESC LIMIT $${values.length}`, values };
  }

  async list(filter: SignalFilter, limit: number): Promise<SignalPage> {
    const { text, values } = PostgresSignalStore.listStatement(filter, limit);
    let name = this.listNames.get(text);
    if (name === undefined) {
      name = `list_${this.listNames.size}`;
      this.listNames.set(text, name);
    }
    return pageOf(await this.query<SignalRow>(name, text, values), limit);
  }

  async failAbandoned(at: string, answer: AbandonedAnswer, { includeOwn }: { includeOwn: boolean }): Promise<InterruptedSignal[]> {
    const signals = await inTransaction(this.pool, async (client) => {
      const { rows } = await client.query<AbandonedRow>(ABANDONED, [this.replicaId, at, includeOwn]);
      const found = rows.map(interruptedOf);
      for (const signal of found) await client.query(COMPLETE, completeValues(signal.signalId, abandonedOutcome(signal, answer, at)));
      return found;
    });
    this.commitStats.commits += 1;
    this.commitStats.operations += 1;
    return signals;
  }

  async recordLateResult(signalId: string, tickets: BrokerTickets, result: TradeOutcome, at: string): Promise<void> {
    await this.write('late_result', LATE_RESULT, [signalId, tickets.order, tickets.deal, tickets.position, JSON.stringify(result), at]);
  }

  async recordReconciliation(signalId: string, reconciliation: Reconciliation): Promise<void> {
    await this.write('reconciliation', RECONCILIATION, [signalId, JSON.stringify(reconciliation), reconciliation.checked_at]);
  }

  health(): Promise<{ ok: boolean; detail: string }> {
    return postgresHealth(this.pool);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }
}
