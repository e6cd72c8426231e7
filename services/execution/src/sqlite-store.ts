import type { SimulatedTerminalStore } from '@fxdesk/broker';
import { openDatabase, StorageHealth, WatchedGroupCommit, type GroupCommitStats, type SqliteDatabase, type StorageHealthOptions } from '@fxdesk/core';
import type { BrokerTickets, Reconciliation, SignalRecord, TradeOutcome } from '@fxdesk/schemas';
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
  // Claims of several replicas (issue 15): the replica that made each claim and until when it
  // answers for it. Rows of before are nobody's and long expired, so a start takes them over.
  `ALTER TABLE signals ADD COLUMN owner TEXT NOT NULL DEFAULT '';
   ALTER TABLE signals ADD COLUMN lease_expires_at TEXT NOT NULL DEFAULT '';`,
];

/** The SELECT of one page, newest first; one row past `limit` tells whether more follow. */
export function listQuery(filter: SignalFilter, limit: number): { sql: string; params: Record<string, string | number> } {
  const params: Record<string, string | number> = { limit: limit + 1 };
  const where = listConditions(filter, (name, value) => {
    params[name] = value;
    return `@${name}`;
  });
  const condition = where.length > 0 ? `WHERE ${where.join(' AND ')} ` : '';
  return { sql: `SELECT ${RECORD_COLUMNS} FROM signals ${condition}ORDER BY received_at DESC, signal_id DESC LIMIT @limit`, params };
}

/**
 * The signals in SQLite (WAL, synchronous=FULL), the embedded default: one process holds the file
 * (the service's DATA_DIR lock). Every write is group-committed: its promise settles only once
 * the write is on disk, and the writes of one event-loop turn share one commit.
 */
export class SqliteSignalStore implements SignalStore {
  private readonly writer: WatchedGroupCommit;
  private readonly statements;
  /** The prepared SELECT of each combination of list filters met so far (at most 64). */
  private readonly listStatements = new Map<string, ReturnType<SqliteDatabase['prepare']>>();

  /** `health`: how readiness learns the file cannot write (its clock, in tests). */
  constructor(
    private readonly db: SqliteDatabase,
    readonly replicaId: string,
    health: StorageHealthOptions = {},
  ) {
    this.writer = new WatchedGroupCommit(db, new StorageHealth(db, health));
    this.statements = {
      insert: db.prepare(
        `INSERT INTO signals (signal_id, payload_hash, state, request_json, request_id, order_comment, symbol, source, received_at, updated_at, owner, lease_expires_at)
         VALUES (@signalId, @payloadHash, 'processing', @requestJson, @requestId, @orderComment, @symbol, @source, @receivedAt, @receivedAt, @owner, @leaseExpiresAt)
         ON CONFLICT (signal_id) DO NOTHING`,
      ),
      existing: db.prepare<[string], ExistingRow>('SELECT payload_hash, state, http_status, response_body FROM signals WHERE signal_id = ?'),
      complete: db.prepare(
        `UPDATE signals SET state = @state, http_status = @httpStatus, response_body = @responseBody,
           order_ticket = @order, deal_ticket = @deal, position_ticket = @position,
           result_json = @resultJson, error_json = @errorJson, completed_at = @completedAt, updated_at = @completedAt
         WHERE signal_id = @signalId AND state = 'processing'`,
      ),
      release: db.prepare("DELETE FROM signals WHERE signal_id = ? AND state = 'processing' AND owner = ?"),
      find: db.prepare<[string], SignalRow>(`SELECT ${RECORD_COLUMNS} FROM signals WHERE signal_id = ?`),
      abandoned: db.prepare<{ owner: string; at: string; includeOwn: number }, AbandonedRow>(
        `SELECT signal_id, request_id, order_comment FROM signals
         WHERE state = 'processing' AND ((owner = @owner AND @includeOwn = 1) OR (owner <> @owner AND lease_expires_at <= @at))`,
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
  static open(file: string, replicaId: string): SqliteSignalStore {
    // SQLite's own default cache (2 MiB) rather than better-sqlite3's 16 MB: rows are written once
    // and read back by id or a recent page, and the larger cache filled at a megabyte a minute under
    // the soak's load with pages the kernel caches anyway (claims and outcomes ran no slower).
    return new SqliteSignalStore(openDatabase(file, { synchronous: 'FULL', migrations: MIGRATIONS, pageCacheKiB: 2048 }), replicaId);
  }

  get commitStats(): GroupCommitStats {
    return this.writer.stats;
  }

  /** The simulated terminal's account, in the same file: its saves join these group commits. */
  simulatedTerminalStore(): SimulatedTerminalStore {
    return new SqliteTerminalStore(this.db, this.writer);
  }

  /** One INSERT keyed by signal_id; in the same batch, a loser sees the winner's uncommitted row (`processing`). */
  claim(claim: SignalClaim): Promise<ClaimResult> {
    return this.writer.run(() => {
      if (this.statements.insert.run(claimColumns(claim, this.replicaId)).changes === 1) return { claimed: true } as const;
      const row = this.statements.existing.get(claim.signalId);
      if (!row) throw new Error(`signal ${claim.signalId} neither inserted nor found`);
      return { claimed: false, existing: existingOf(row) } as const;
    });
  }

  existing(signalId: string): Promise<ExistingSignal | undefined> {
    return this.writer.read(() => {
      const row = this.statements.existing.get(signalId);
      return row ? existingOf(row) : undefined;
    });
  }

  async complete(signalId: string, outcome: SignalOutcome): Promise<void> {
    const changes = await this.writer.run(() => this.statements.complete.run(outcomeColumns(signalId, outcome)).changes);
    if (changes !== 1) throw new Error(`signal ${signalId} was not processing`);
  }

  async release(signalId: string): Promise<void> {
    await this.writer.run(() => this.statements.release.run(signalId, this.replicaId));
  }

  find(signalId: string): Promise<SignalRecord | undefined> {
    return this.writer.read(() => {
      const row = this.statements.find.get(signalId);
      return row ? recordOf(row) : undefined;
    });
  }

  list(filter: SignalFilter, limit: number): Promise<SignalPage> {
    return this.writer.read(() => {
      const { sql, params } = listQuery(filter, limit);
      let statement = this.listStatements.get(sql);
      if (!statement) {
        statement = this.db.prepare(sql);
        this.listStatements.set(sql, statement);
      }
      return pageOf(statement.all(params) as SignalRow[], limit);
    });
  }

  failAbandoned(at: string, answer: AbandonedAnswer, { includeOwn }: { includeOwn: boolean }): Promise<InterruptedSignal[]> {
    return this.writer.run(() =>
      this.statements.abandoned.all({ owner: this.replicaId, at, includeOwn: includeOwn ? 1 : 0 }).map((row) => {
        const signal = interruptedOf(row);
        this.statements.complete.run(outcomeColumns(signal.signalId, abandonedOutcome(signal, answer, at)));
        return signal;
      }),
    );
  }

  async recordLateResult(signalId: string, tickets: BrokerTickets, result: TradeOutcome, at: string): Promise<void> {
    await this.writer.run(() => this.statements.lateResult.run({ signalId, ...tickets, resultJson: JSON.stringify(result), at }));
  }

  async recordReconciliation(signalId: string, reconciliation: Reconciliation): Promise<void> {
    await this.writer.run(() => this.statements.reconciliation.run({ signalId, json: JSON.stringify(reconciliation), at: reconciliation.checked_at }));
  }

  /** Not ok once a write failed for want of storage (damaged file, full disk, I/O error), until a probe write commits (see StorageHealth). */
  health(): Promise<{ ok: boolean; detail: string }> {
    return Promise.resolve(this.writable());
  }

  writable(): { ok: boolean; detail: string } {
    return this.writer.health.check();
  }

  close(): Promise<void> {
    void this.writer.close();
    this.db.close();
    return Promise.resolve();
  }
}
