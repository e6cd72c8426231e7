import type { SimulatedTerminalStore } from '@fxdesk/broker';
import { GroupCommit, openDatabase, type GroupCommitStats, type SqliteDatabase } from '@fxdesk/core';
import type { BrokerTickets, Reconciliation, SignalFailure, SignalRecord, SignalState, TradeOutcome } from '@fxdesk/schemas';
import { NO_TICKETS } from './outcome.js';
import { SqliteTerminalStore } from './terminal-store.js';

/** The schema of execution.db, in the order it grew (`user_version` counts those applied). */
export const MIGRATIONS = [
  `CREATE TABLE signals (
     signal_id       TEXT PRIMARY KEY,
     payload_hash    TEXT NOT NULL,
     state           TEXT NOT NULL CHECK (state IN ('processing','filled','partially_filled','placed','rejected','unknown')),
     request_json    TEXT NOT NULL,
     request_id      TEXT NOT NULL,
     order_comment   TEXT NOT NULL,
     http_status     INTEGER,
     response_body   TEXT,
     order_ticket    TEXT,
     deal_ticket     TEXT,
     position_ticket TEXT,
     result_json     TEXT,
     error_json      TEXT,
     reconciliation_json TEXT,
     received_at     TEXT NOT NULL,
     completed_at    TEXT,
     updated_at      TEXT NOT NULL
   );
   CREATE INDEX signals_processing ON signals (state) WHERE state = 'processing';`,
  // The simulated terminal's account (terminal-store.ts); an order resting keeps its order record.
  `CREATE TABLE sim_account (
     id              INTEGER PRIMARY KEY CHECK (id = 1),
     balance         REAL NOT NULL,
     processed_up_to INTEGER NOT NULL,
     next_ticket     INTEGER NOT NULL,
     next_seq        INTEGER NOT NULL
   );
   CREATE TABLE sim_records (
     ticket   INTEGER PRIMARY KEY,
     kind     TEXT NOT NULL CHECK (kind IN ('order','deal')),
     symbol   TEXT NOT NULL,
     type     TEXT NOT NULL,
     volume   TEXT NOT NULL,
     price    TEXT NOT NULL,
     magic    INTEGER NOT NULL,
     comment  TEXT NOT NULL,
     time     INTEGER NOT NULL,
     position INTEGER,
     state    TEXT NOT NULL
   );
   CREATE TABLE sim_positions (
     ticket      INTEGER PRIMARY KEY,
     seq         INTEGER NOT NULL,
     symbol      TEXT NOT NULL,
     side        TEXT NOT NULL CHECK (side IN ('buy','sell')),
     volume      TEXT NOT NULL,
     open_points INTEGER NOT NULL,
     sl_points   INTEGER,
     tp_points   INTEGER,
     magic       INTEGER NOT NULL,
     comment     TEXT NOT NULL,
     time        INTEGER NOT NULL
   );
   CREATE TABLE sim_resting_orders (
     ticket       INTEGER PRIMARY KEY,
     record_json  TEXT NOT NULL,
     seq          INTEGER NOT NULL,
     price_points INTEGER NOT NULL,
     sl_points    INTEGER,
     tp_points    INTEGER,
     expires_at   INTEGER
   );`,
  // GET /v1/signals: the symbol and source as columns, and one index per filter that also
  // serves the order (received_at, signal_id), so a page is a range read at any depth. The state
  // index takes over the start-up search for `processing` rows.
  `ALTER TABLE signals ADD COLUMN symbol TEXT;
   ALTER TABLE signals ADD COLUMN source TEXT;
   UPDATE signals SET symbol = json_extract(request_json, '$.symbol'), source = json_extract(request_json, '$.source');
   DROP INDEX signals_processing;
   CREATE INDEX signals_received ON signals (received_at, signal_id);
   CREATE INDEX signals_state ON signals (state, received_at, signal_id);
   CREATE INDEX signals_symbol ON signals (symbol, received_at, signal_id);
   CREATE INDEX signals_source ON signals (source, received_at, signal_id);`,
];

/** A signal about to be claimed. */
export interface SignalClaim {
  signalId: string;
  payloadHash: string;
  /** The body as received, JSON. */
  requestJson: string;
  requestId: string;
  orderComment: string;
  symbol: string;
  source: string;
  receivedAt: string;
}

/** What an earlier claim of the same signal_id left. */
export interface ExistingSignal {
  payloadHash: string;
  state: SignalState;
  httpStatus: number | null;
  responseBody: string | null;
}

/** Where a page of the list ends: its last row, in (received_at, signal_id) order. */
export interface ListPosition {
  receivedAt: string;
  signalId: string;
}

/** The rows GET /v1/signals selects: each filter given must hold. */
export interface SignalFilter {
  state?: SignalState;
  symbol?: string;
  source?: string;
  /** received_at at or after this (ISO text, as stored). */
  receivedFrom?: string;
  /** received_at before this (ISO text, as stored). */
  receivedBefore?: string;
  /** Only rows older than this position: the page after the one that ended there. */
  after?: ListPosition;
}

/**
 * The SELECT of one page, newest first: equality on the filtered columns, then a range on
 * (received_at, signal_id), which one index per filter serves in order (keyset paging: the cost of
 * a page does not grow with its depth, unlike OFFSET). One row past `limit` tells whether more follow.
 */
export function listQuery(filter: SignalFilter, limit: number): { sql: string; params: Record<string, string | number> } {
  const where: string[] = [];
  const params: Record<string, string | number> = { limit: limit + 1 };
  for (const column of ['state', 'symbol', 'source'] as const) {
    const value = filter[column];
    if (value === undefined) continue;
    where.push(`${column} = @${column}`);
    params[column] = value;
  }
  if (filter.receivedFrom !== undefined) {
    where.push('received_at >= @receivedFrom');
    params.receivedFrom = filter.receivedFrom;
  }
  if (filter.receivedBefore !== undefined) {
    where.push('received_at < @receivedBefore');
    params.receivedBefore = filter.receivedBefore;
  }
  if (filter.after !== undefined) {
    where.push('(received_at, signal_id) < (@afterReceivedAt, @afterSignalId)');
    params.afterReceivedAt = filter.after.receivedAt;
    params.afterSignalId = filter.after.signalId;
  }
  const condition = where.length > 0 ? `WHERE ${where.join(' AND ')} ` : '';
  return { sql: `SELECT * FROM signals ${condition}ORDER BY received_at DESC, signal_id DESC LIMIT @limit`, params };
}

export type ClaimResult = { claimed: true } | { claimed: false; existing: ExistingSignal };

/** The final state of a signal and the exact answer to replay. */
export interface SignalOutcome {
  state: Exclude<SignalState, 'processing'>;
  httpStatus: number;
  responseBody: string;
  tickets: BrokerTickets;
  result: TradeOutcome | null;
  error: SignalFailure | null;
  completedAt: string;
}

/** A row left in `processing`: the answer it gets is built by the caller. */
export interface InterruptedSignal {
  signalId: string;
  requestId: string;
  orderComment: string;
}

interface ExistingRow {
  payload_hash: string;
  state: SignalState;
  http_status: number | null;
  response_body: string | null;
}

function existingOf(row: ExistingRow): ExistingSignal {
  return { payloadHash: row.payload_hash, state: row.state, httpStatus: row.http_status, responseBody: row.response_body };
}

interface SignalRow {
  signal_id: string;
  payload_hash: string;
  state: SignalState;
  request_json: string;
  request_id: string;
  order_comment: string;
  http_status: number | null;
  response_body: string | null;
  order_ticket: string | null;
  deal_ticket: string | null;
  position_ticket: string | null;
  result_json: string | null;
  error_json: string | null;
  reconciliation_json: string | null;
  received_at: string;
  completed_at: string | null;
  updated_at: string;
}

function parseJson<T>(text: string | null): T | null {
  return text === null ? null : (JSON.parse(text) as T);
}

function toRecord(row: SignalRow): SignalRecord {
  return {
    signal_id: row.signal_id,
    state: row.state,
    request: JSON.parse(row.request_json) as Record<string, unknown>,
    order_comment: row.order_comment,
    tickets: { order: row.order_ticket, deal: row.deal_ticket, position: row.position_ticket },
    result: parseJson<TradeOutcome>(row.result_json),
    error: parseJson<SignalFailure>(row.error_json),
    http_status: row.http_status,
    reconciliation: parseJson<Reconciliation>(row.reconciliation_json),
    received_at: row.received_at,
    completed_at: row.completed_at,
    updated_at: row.updated_at,
  };
}

/**
 * The durable record of every signal (SQLite, WAL, synchronous=FULL). The row of a signal_id is
 * created by one atomic INSERT (the idempotency claim) in state `processing`, and moves once to
 * its final state with the exact HTTP answer to replay. Every write is group-committed: its
 * promise settles only once the write is on disk.
 */
export class SignalStore {
  private readonly writer: GroupCommit;
  private readonly statements;
  /** The prepared SELECT of each combination of list filters met so far (at most 64). */
  private readonly listStatements = new Map<string, ReturnType<SqliteDatabase['prepare']>>();

  constructor(private readonly db: SqliteDatabase) {
    this.writer = new GroupCommit(db);
    this.statements = {
      insert: db.prepare(
        `INSERT INTO signals (signal_id, payload_hash, state, request_json, request_id, order_comment, symbol, source, received_at, updated_at)
         VALUES (@signalId, @payloadHash, 'processing', @requestJson, @requestId, @orderComment, @symbol, @source, @receivedAt, @receivedAt)
         ON CONFLICT (signal_id) DO NOTHING`,
      ),
      existing: db.prepare<[string], ExistingRow>('SELECT payload_hash, state, http_status, response_body FROM signals WHERE signal_id = ?'),
      complete: db.prepare(
        `UPDATE signals SET state = @state, http_status = @httpStatus, response_body = @responseBody,
           order_ticket = @order, deal_ticket = @deal, position_ticket = @position,
           result_json = @resultJson, error_json = @errorJson, completed_at = @completedAt, updated_at = @completedAt
         WHERE signal_id = @signalId AND state = 'processing'`,
      ),
      release: db.prepare("DELETE FROM signals WHERE signal_id = ? AND state = 'processing'"),
      find: db.prepare<[string], SignalRow>('SELECT * FROM signals WHERE signal_id = ?'),
      processing: db.prepare<[], { signal_id: string; request_id: string; order_comment: string }>(
        "SELECT signal_id, request_id, order_comment FROM signals WHERE state = 'processing'",
      ),
      lateResult: db.prepare(
        `UPDATE signals SET order_ticket = @order, deal_ticket = @deal, position_ticket = @position,
           result_json = @resultJson, updated_at = @at
         WHERE signal_id = @signalId AND state = 'unknown' AND result_json IS NULL`,
      ),
      reconciliation: db.prepare("UPDATE signals SET reconciliation_json = @json, updated_at = @at WHERE signal_id = @signalId AND state = 'unknown'"),
    };
  }

  /** Opens (and migrates) the store's database file; `:memory:` for tests. */
  static open(file: string): SignalStore {
    // SQLite's own default cache (2 MiB) rather than better-sqlite3's 16 MB: rows are written once
    // and read back by id or a recent page, and the larger cache filled at a megabyte a minute under
    // the soak's load with pages the kernel caches anyway (claims and outcomes ran no slower).
    return new SignalStore(openDatabase(file, { synchronous: 'FULL', migrations: MIGRATIONS, pageCacheKiB: 2048 }));
  }

  get commitStats(): GroupCommitStats {
    return this.writer.stats;
  }

  /** The simulated terminal's account, in the same file: its saves join these group commits. */
  simulatedTerminalStore(): SimulatedTerminalStore {
    return new SqliteTerminalStore(this.db, this.writer);
  }

  /**
   * The idempotency claim: one INSERT keyed by signal_id. Exactly one caller ever gets
   * `claimed: true` for an id; the others get the row as it stands (in the same batch, the
   * winner's uncommitted row, which is `processing`).
   */
  claim(claim: SignalClaim): Promise<ClaimResult> {
    return this.writer.run(() => {
      if (this.statements.insert.run(claim).changes === 1) return { claimed: true } as const;
      const row = this.statements.existing.get(claim.signalId);
      if (!row) throw new Error(`signal ${claim.signalId} neither inserted nor found`);
      return { claimed: false, existing: existingOf(row) } as const;
    });
  }

  /** What is stored under a signal_id, without claiming it. */
  existing(signalId: string): Promise<ExistingSignal | undefined> {
    return this.writer.read(() => {
      const row = this.statements.existing.get(signalId);
      return row ? existingOf(row) : undefined;
    });
  }

  /** Moves a claimed signal to its final state; settles once that is on disk. */
  async complete(signalId: string, outcome: SignalOutcome): Promise<void> {
    const changes = await this.writer.run(
      () =>
        this.statements.complete.run({
          signalId,
          state: outcome.state,
          httpStatus: outcome.httpStatus,
          responseBody: outcome.responseBody,
          ...outcome.tickets,
          resultJson: outcome.result === null ? null : JSON.stringify(outcome.result),
          errorJson: outcome.error === null ? null : JSON.stringify(outcome.error),
          completedAt: outcome.completedAt,
        }).changes,
    );
    if (changes !== 1) throw new Error(`signal ${signalId} was not processing`);
  }

  /** Drops a claim whose order was never sent (a retryable failure before order_send). */
  async release(signalId: string): Promise<void> {
    await this.writer.run(() => this.statements.release.run(signalId));
  }

  find(signalId: string): Promise<SignalRecord | undefined> {
    return this.writer.read(() => {
      const row = this.statements.find.get(signalId);
      return row ? toRecord(row) : undefined;
    });
  }

  /** One page of records, newest received first, and the position to continue from when more follow. */
  list(filter: SignalFilter, limit: number): Promise<{ records: SignalRecord[]; next: ListPosition | undefined }> {
    return this.writer.read(() => {
      const { sql, params } = listQuery(filter, limit);
      let statement = this.listStatements.get(sql);
      if (!statement) {
        statement = this.db.prepare(sql);
        this.listStatements.set(sql, statement);
      }
      const rows = statement.all(params) as SignalRow[];
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      return { records: page.map(toRecord), next: rows.length > limit && last ? { receivedAt: last.received_at, signalId: last.signal_id } : undefined };
    });
  }

  /**
   * At start-up: every row still `processing` was cut off by a crash somewhere between its claim
   * and its outcome, possibly inside order_send, so it becomes `unknown` and is never sent again.
   * `answer` builds each one's stored reply. Synchronous: it runs before the service listens.
   */
  failInterrupted(at: string, answer: (signal: InterruptedSignal) => { httpStatus: number; responseBody: string; error: SignalFailure }): InterruptedSignal[] {
    const rows = this.statements.processing.all().map((r) => ({ signalId: r.signal_id, requestId: r.request_id, orderComment: r.order_comment }));
    this.db.transaction(() => {
      for (const signal of rows) {
        const reply = answer(signal);
        this.statements.complete.run({
          signalId: signal.signalId,
          state: 'unknown',
          httpStatus: reply.httpStatus,
          responseBody: reply.responseBody,
          ...NO_TICKETS,
          resultJson: null,
          errorJson: JSON.stringify(reply.error),
          completedAt: at,
        });
      }
    })();
    return rows;
  }

  /** Keeps the answer order_send gave after its outcome was already stored as `unknown`. */
  async recordLateResult(signalId: string, tickets: BrokerTickets, result: TradeOutcome, at: string): Promise<void> {
    await this.writer.run(() => this.statements.lateResult.run({ signalId, ...tickets, resultJson: JSON.stringify(result), at }));
  }

  async recordReconciliation(signalId: string, reconciliation: Reconciliation): Promise<void> {
    await this.writer.run(() => this.statements.reconciliation.run({ signalId, json: JSON.stringify(reconciliation), at: reconciliation.checked_at }));
  }

  /** Commits what is queued and closes the file. */
  close(): void {
    this.writer.close();
    this.db.close();
  }
}
