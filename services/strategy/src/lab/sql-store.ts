import { openStoreDatabase, type Database, type Schema, type SqlParams } from '@fxdesk/core';
import {
  LAB_SKIP_REASONS,
  type Backtest,
  type BacktestSettings,
  type BacktestSummary,
  type EquityPoint,
  type LabJobError,
  type LabData,
  type LabJobStatus,
  type LabSkips,
  type LabTrade,
  type WalkForwardResult,
} from '@fxdesk/schemas';
import {
  INTERRUPTED,
  type FailedJobs,
  type JobKind,
  type JobState,
  type LabStore,
  type NewBacktest,
  type NewSweep,
  type Page,
  type StoredSweep,
  type SweepBacktest,
  type SweepRole,
  type SweepSettings,
} from './store.js';
import type { BacktestResult } from './types.js';

const UNFINISHED = "status IN ('queued', 'running')";

/**
 * The lab's schema, one list for both engines. Its first two steps are lab.db's history (its
 * `user_version` counts on); the third gives the tables and indexes the names they have had in
 * PostgreSQL, where services may share one database, with its index of the backtests started
 * alone. A PostgreSQL database of the per-engine store of before (store `strategy_lab`, version 1)
 * already has that schema.
 */
export const LAB_SCHEMA: Schema = {
  name: 'strategy_lab',
  migrations: [
    (d) => {
      const { key, text, integer, real, increasingKey } = d.types;
      return `CREATE TABLE sweeps (
         seq ${increasingKey},
         id ${key} NOT NULL UNIQUE,
         name ${text},
         status ${key} NOT NULL,
         progress ${real} NOT NULL DEFAULT 0,
         created_at ${text} NOT NULL,
         started_at ${text},
         finished_at ${text},
         error ${text},
         settings ${text} NOT NULL,
         settings_count ${integer} NOT NULL,
         walk_forward ${text}
       );
       CREATE TABLE backtests (
         seq ${increasingKey},
         id ${key} NOT NULL UNIQUE,
         sweep_id ${key} REFERENCES sweeps (id) ON DELETE CASCADE,
         sweep_role ${key},
         sweep_index ${integer},
         name ${text},
         status ${key} NOT NULL,
         progress ${real} NOT NULL DEFAULT 0,
         created_at ${text} NOT NULL,
         started_at ${text},
         finished_at ${text},
         error ${text},
         settings ${text} NOT NULL,
         candles ${integer},
         signals ${integer} NOT NULL DEFAULT 0,
         skipped_signals ${integer} NOT NULL DEFAULT 0,
         metrics ${text},
         equity ${text}
       );
       CREATE INDEX backtests_by_sweep ON backtests (sweep_id, seq);
       CREATE TABLE backtest_trades (
         backtest_id ${key} NOT NULL REFERENCES backtests (id) ON DELETE CASCADE,
         seq ${integer} NOT NULL,
         instrument ${key} NOT NULL,
         body ${text} NOT NULL,
         PRIMARY KEY (backtest_id, seq)
       )${d.withoutRowid};
       CREATE INDEX backtest_trades_by_instrument ON backtest_trades (backtest_id, instrument, seq);`;
    },
    // The replica that runs each job and until when it answers for it (issue 15); a job from before
    // has neither, so it counts as abandoned.
    (d) => `ALTER TABLE sweeps ADD COLUMN owner ${d.types.key} NOT NULL DEFAULT '';
       ALTER TABLE sweeps ADD COLUMN lease_expires_at ${d.types.key} NOT NULL DEFAULT '';
       ALTER TABLE backtests ADD COLUMN owner ${d.types.key} NOT NULL DEFAULT '';
       ALTER TABLE backtests ADD COLUMN lease_expires_at ${d.types.key} NOT NULL DEFAULT '';
       CREATE INDEX sweeps_unfinished ON sweeps (owner) WHERE ${UNFINISHED};
       CREATE INDEX backtests_unfinished ON backtests (owner) WHERE ${UNFINISHED};`,
    // One store for both engines (issue 22): PostgreSQL's names. SQLite renames a table's
    // references with it, but not its indexes: they are made again.
    `ALTER TABLE sweeps RENAME TO strategy_lab_sweeps;
     ALTER TABLE backtests RENAME TO strategy_lab_backtests;
     ALTER TABLE backtest_trades RENAME TO strategy_lab_trades;
     DROP INDEX sweeps_unfinished;
     DROP INDEX backtests_unfinished;
     DROP INDEX backtests_by_sweep;
     DROP INDEX backtest_trades_by_instrument;
     CREATE INDEX strategy_lab_sweeps_unfinished ON strategy_lab_sweeps (owner) WHERE ${UNFINISHED};
     CREATE INDEX strategy_lab_backtests_by_sweep ON strategy_lab_backtests (sweep_id, seq);
     CREATE INDEX strategy_lab_backtests_alone ON strategy_lab_backtests (seq) WHERE sweep_id IS NULL;
     CREATE INDEX strategy_lab_backtests_unfinished ON strategy_lab_backtests (owner) WHERE ${UNFINISHED};
     CREATE INDEX strategy_lab_trades_by_instrument ON strategy_lab_trades (backtest_id, instrument, seq);`,
    // What a backtest ran on (issue 26): its candles' source and digest; a backtest from before has none.
    (d) => `ALTER TABLE strategy_lab_backtests ADD COLUMN data ${d.types.text};`,
  ],
  postgresBefore: { store: 'strategy_lab', versions: { 1: 3 } },
};

/** Trades written in one transaction when a backtest finishes: a few milliseconds of CPU each on SQLite. */
const TRADES_PER_WRITE = 1000;

const BACKTEST_COLUMNS =
  'seq, id, sweep_id, sweep_role, sweep_index, name, status, progress, created_at, started_at, finished_at, error, settings, candles, signals, skipped_signals, metrics, data';
const SWEEP_COLUMNS = 'seq, id, name, status, progress, created_at, started_at, finished_at, error, settings, settings_count, walk_forward';
type Table = 'strategy_lab_backtests' | 'strategy_lab_sweeps';
const BACKTESTS: Table = 'strategy_lab_backtests';
const SWEEPS: Table = 'strategy_lab_sweeps';
const TRADES = 'strategy_lab_trades';

const NEW_BACKTEST_COLUMNS = ['id', 'sweep_id', 'sweep_role', 'sweep_index', 'name', 'created_at', 'settings', 'owner', 'lease_expires_at', 'status'];
const INSERT_BACKTEST = `INSERT INTO ${BACKTESTS} (${NEW_BACKTEST_COLUMNS.join(', ')}) VALUES (${NEW_BACKTEST_COLUMNS.map((c) => `@${c}`).join(', ')})`;
const TRADE_COLUMNS = ['backtest_id', 'seq', 'instrument', 'body'];

/** Unfinished jobs nobody runs: this replica's with `includeOwn`, another's whose lease has passed. */
const ABANDONED = `${UNFINISHED} AND ((owner = @replica AND @includeOwn = 1) OR (owner <> @replica AND lease_expires_at <= @at))`;

/** The only replica of a SQLite file: one process holds its DATA_DIR. */
const SOLE_REPLICA = 'local';

export interface LabStoreOptions {
  /** DATABASE_URL: PostgreSQL when set, else the SQLite `file`. */
  databaseUrl?: string;
  /** lab.db (databasePath(DATA_DIR, 'lab')); `:memory:` by default. */
  file?: string;
  /** The replica whose jobs this store inserts and renews; 'local' by default, for a file only one process opens. */
  replicaId?: string;
}

/**
 * The lab's records, written once for both engines. Without DATABASE_URL they live in
 * DATA_DIR/lab.db, a file of its own rather than strategy.db: a year's backtest writes thousands
 * of trade rows that the live signals' FULL-synchronous file need not carry, results can always
 * be computed again (so NORMAL is enough), and moving lab.db away then starting once with --reset
 * clears the lab without touching a signal (without --reset its identity marker refuses the
 * start). With DATABASE_URL they live in PostgreSQL, shared by every replica (on a pool of their
 * own of 4 connections): a job posted to one is read, followed and cancelled through any.
 *
 * Each method is one call of the port (so one group commit on SQLite), but a finished backtest's:
 * its trades go in parts, then one write marks it done.
 */
export class SqlLabStore implements LabStore {
  constructor(
    private readonly db: Database,
    readonly replicaId: string,
  ) {}

  /** Opens lab.db, or the lab's tables in PostgreSQL, and brings its schema up to date (safe when replicas start at once). */
  static async open(options: LabStoreOptions = {}): Promise<SqlLabStore> {
    const db = await openStoreDatabase({
      databaseUrl: options.databaseUrl,
      file: options.file ?? ':memory:',
      schema: LAB_SCHEMA,
      sqlite: { synchronous: 'NORMAL' },
      postgres: { maxConnections: 4 },
    });
    return new SqlLabStore(db, options.replicaId ?? SOLE_REPLICA);
  }

  async failAbandoned(at: string, { includeOwn }: { includeOwn: boolean }): Promise<FailedJobs> {
    const params = { error: JSON.stringify(INTERRUPTED), at, replica: this.replicaId, includeOwn };
    const fail = `SET status = 'failed', error = @error, finished_at = @at WHERE ${ABANDONED}`;
    return this.db.transaction(async (tx) => {
      const sweeps = await tx.query<{ id: string }>(`UPDATE ${SWEEPS} ${fail} RETURNING id`, params);
      const backtests = await tx.query<{ id: string; sweep_id: string | null }>(`UPDATE ${BACKTESTS} ${fail} RETURNING id, sweep_id`, params);
      return { backtests: backtests.filter((row) => row.sweep_id === null).map((row) => row.id), sweeps: sweeps.map((row) => row.id) };
    });
  }

  async renewLeases(until: string): Promise<Set<string>> {
    const params = { until, replica: this.replicaId };
    const renew = (table: Table) => `UPDATE ${table} SET lease_expires_at = @until WHERE owner = @replica AND ${UNFINISHED} RETURNING id`;
    const rows = await this.db.transaction(async (tx) => [
      ...(await tx.query<{ id: string }>(renew(SWEEPS), params)),
      ...(await tx.query<{ id: string }>(renew(BACKTESTS), params)),
    ]);
    return new Set(rows.map((row) => row.id));
  }

  async insertBacktest(backtest: NewBacktest): Promise<void> {
    await this.db.run(INSERT_BACKTEST, this.newBacktestRow(backtest));
  }

  async startBacktest(id: string, at: string): Promise<boolean> {
    return this.start(BACKTESTS, id, at);
  }

  async setBacktestProgress(id: string, progress: number): Promise<void> {
    await this.setProgress(BACKTESTS, id, progress);
  }

  /**
   * The trades go in parts of TRADES_PER_WRITE, a turn of the event loop between them, while the
   * backtest is still running (its trades are read only once it is done), then one write marks it
   * done: on SQLite, a backtest of 18,555 trades written in one transaction held the service's
   * loop for 240 ms of CPU. A backtest that is no longer running (cancelled, deleted or failed by
   * another replica meanwhile) keeps none of them: each part holds the backtest's row while it
   * writes, so a cancel comes before a part or after it.
   */
  async finishBacktest(id: string, result: BacktestResult, at: string, data: LabData | null = null): Promise<boolean> {
    for (let from = 0; from < result.trades.length; from += TRADES_PER_WRITE) {
      if (from > 0) await new Promise((resolve) => setImmediate(resolve));
      const part = result.trades.slice(from, from + TRADES_PER_WRITE);
      const isWritten = await this.db.transaction(async (tx) => {
        const row = await tx.one<{ status: LabJobStatus }>(`SELECT status FROM ${BACKTESTS} WHERE id = @id ${tx.dialect.forUpdate}`, { id });
        if (row?.status !== 'running') return false;
        const trades = part.map((trade, k) => ({ backtest_id: id, seq: from + k, instrument: trade.instrument, body: JSON.stringify(trade) }));
        await tx.insertMany(TRADES, TRADE_COLUMNS, trades);
        return true;
      });
      if (!isWritten) return this.dropTrades(id);
    }
    const done = await this.db.run(
      `UPDATE ${BACKTESTS} SET status = 'done', progress = 1, finished_at = @at, candles = @candles, signals = @signals,
         skipped_signals = @skipped, metrics = @metrics, equity = @equity, data = @data
       WHERE id = @id AND status = 'running'`,
      {
        id,
        at,
        candles: result.candles,
        signals: result.signals,
        skipped: result.skipped_signals,
        metrics: JSON.stringify(result.metrics),
        equity: JSON.stringify(result.equity),
        data: data === null ? null : JSON.stringify(data),
      },
    );
    return done.changes === 1 || this.dropTrades(id);
  }

  async failBacktest(id: string, error: LabJobError, at: string): Promise<boolean> {
    return this.fail(BACKTESTS, id, error, at);
  }

  async cancelBacktest(id: string, at: string): Promise<boolean> {
    return this.cancel(BACKTESTS, id, at);
  }

  async backtest(id: string): Promise<Backtest | undefined> {
    const row = await this.db.one<BacktestRow>(`SELECT ${BACKTEST_COLUMNS} FROM ${BACKTESTS} WHERE id = @id`, { id });
    return row && toBacktest(row);
  }

  async jobState(kind: JobKind, id: string): Promise<JobState | undefined> {
    const sql =
      kind === 'backtest'
        ? `SELECT status, progress, sweep_id FROM ${BACKTESTS} WHERE id = @id`
        : `SELECT status, progress, NULL AS sweep_id FROM ${SWEEPS} WHERE id = @id`;
    return this.db.one<JobState & Record<string, unknown>>(sql, { id });
  }

  async backtests(options: { limit: number; before?: number; sweepId?: string }): Promise<Page<BacktestSummary>> {
    const params = { before: options.before ?? Number.MAX_SAFE_INTEGER, limit: options.limit + 1 };
    const rows =
      options.sweepId === undefined
        ? await this.db.query<BacktestRow>(
            `SELECT ${BACKTEST_COLUMNS} FROM ${BACKTESTS} WHERE sweep_id IS NULL AND seq < @before ORDER BY seq DESC LIMIT @limit`,
            params,
          )
        : await this.db.query<BacktestRow>(
            `SELECT ${BACKTEST_COLUMNS} FROM ${BACKTESTS} WHERE sweep_id = @sweepId AND seq < @before ORDER BY seq DESC LIMIT @limit`,
            { ...params, sweepId: options.sweepId },
          );
    return pageOf(rows, options.limit, (row) => summaryOf(toBacktest(row)));
  }

  async sweepBacktests(sweepId: string): Promise<SweepBacktest[]> {
    const rows = await this.db.query<BacktestRow>(`SELECT ${BACKTEST_COLUMNS} FROM ${BACKTESTS} WHERE sweep_id = @sweepId ORDER BY sweep_role, sweep_index`, {
      sweepId,
    });
    return rows.map((row) => ({ role: row.sweep_role ?? 'member', index: row.sweep_index ?? 0, backtest: summaryOf(toBacktest(row)) }));
  }

  async trades(id: string, options: { limit: number; after?: number; instrument?: string }): Promise<Page<LabTrade>> {
    const params = { id, after: options.after ?? -1, limit: options.limit + 1 };
    const ofDone = `AND EXISTS (SELECT 1 FROM ${BACKTESTS} WHERE id = backtest_id AND status = 'done') ORDER BY seq LIMIT @limit`;
    const rows =
      options.instrument === undefined
        ? await this.db.query<TradeRow>(`SELECT seq, body FROM ${TRADES} WHERE backtest_id = @id AND seq > @after ${ofDone}`, params)
        : await this.db.query<TradeRow>(`SELECT seq, body FROM ${TRADES} WHERE backtest_id = @id AND seq > @after AND instrument = @instrument ${ofDone}`, {
            ...params,
            instrument: options.instrument,
          });
    return pageOf(rows, options.limit, (row) => JSON.parse(row.body) as LabTrade);
  }

  async equity(id: string): Promise<EquityPoint[] | undefined> {
    const row = await this.db.one<{ equity: string | null }>(`SELECT equity FROM ${BACKTESTS} WHERE id = @id`, { id });
    if (row === undefined) return undefined;
    return row.equity === null ? [] : (JSON.parse(row.equity) as EquityPoint[]);
  }

  async deleteBacktest(id: string): Promise<boolean> {
    return (await this.db.run(`DELETE FROM ${BACKTESTS} WHERE id = @id`, { id })).changes === 1;
  }

  async insertSweep(sweep: NewSweep, members: NewBacktest[], walkForward: WalkForwardResult | null): Promise<void> {
    const row = {
      id: sweep.id,
      name: sweep.name,
      createdAt: sweep.createdAt,
      settings: JSON.stringify(sweep.settings),
      settingsCount: sweep.settingsCount,
      walkForward: walkForward && JSON.stringify(walkForward),
      owner: this.replicaId,
      leaseExpiresAt: sweep.leaseExpiresAt,
    };
    await this.db.transaction(async (tx) => {
      await tx.run(
        `INSERT INTO ${SWEEPS} (id, name, status, created_at, settings, settings_count, walk_forward, owner, lease_expires_at)
         VALUES (@id, @name, 'queued', @createdAt, @settings, @settingsCount, @walkForward, @owner, @leaseExpiresAt)`,
        row,
      );
      await tx.insertMany(
        BACKTESTS,
        NEW_BACKTEST_COLUMNS,
        members.map((member) => this.newBacktestRow(member)),
      );
    });
  }

  async startSweep(id: string, at: string): Promise<boolean> {
    return this.start(SWEEPS, id, at);
  }

  async setSweepProgress(id: string, progress: number): Promise<void> {
    await this.setProgress(SWEEPS, id, progress);
  }

  async setWalkForward(id: string, walkForward: WalkForwardResult): Promise<void> {
    await this.db.run(`UPDATE ${SWEEPS} SET walk_forward = @walkForward WHERE id = @id`, { id, walkForward: JSON.stringify(walkForward) });
  }

  async finishSweep(id: string, at: string): Promise<boolean> {
    return (
      (await this.db.run(`UPDATE ${SWEEPS} SET status = 'done', progress = 1, finished_at = @at WHERE id = @id AND status = 'running'`, { id, at })).changes ===
      1
    );
  }

  async failSweep(id: string, error: LabJobError, at: string): Promise<boolean> {
    return this.fail(SWEEPS, id, error, at);
  }

  async cancelSweep(id: string, at: string): Promise<boolean> {
    return this.cancel(SWEEPS, id, at);
  }

  async sweep(id: string): Promise<StoredSweep | undefined> {
    const row = await this.db.one<SweepRow>(`SELECT ${SWEEP_COLUMNS} FROM ${SWEEPS} WHERE id = @id`, { id });
    return row && toSweep(row);
  }

  async sweeps(options: { limit: number; before?: number }): Promise<Page<StoredSweep>> {
    const rows = await this.db.query<SweepRow>(`SELECT ${SWEEP_COLUMNS} FROM ${SWEEPS} WHERE seq < @before ORDER BY seq DESC LIMIT @limit`, {
      before: options.before ?? Number.MAX_SAFE_INTEGER,
      limit: options.limit + 1,
    });
    return pageOf(rows, options.limit, toSweep);
  }

  async deleteSweep(id: string): Promise<boolean> {
    return (await this.db.run(`DELETE FROM ${SWEEPS} WHERE id = @id`, { id })).changes === 1;
  }

  /** PostgreSQL: whether it answers; SQLite: whether lab.db can write (a full disk or a damaged file says not). */
  health(): Promise<{ ok: boolean; detail: string }> {
    return this.db.health();
  }

  close(): Promise<void> {
    return this.db.close();
  }

  /** Forgets the trades written for a backtest that ended otherwise than done; always false. */
  private async dropTrades(id: string): Promise<false> {
    await this.db.run(`DELETE FROM ${TRADES} WHERE backtest_id = @id AND NOT EXISTS (SELECT 1 FROM ${BACKTESTS} WHERE id = @id AND status = 'done')`, { id });
    return false;
  }

  private newBacktestRow(backtest: NewBacktest): SqlParams {
    return {
      id: backtest.id,
      sweep_id: backtest.sweep?.id ?? null,
      sweep_role: backtest.sweep?.role ?? null,
      sweep_index: backtest.sweep?.index ?? null,
      name: backtest.name,
      created_at: backtest.createdAt,
      settings: JSON.stringify(backtest.settings),
      owner: this.replicaId,
      lease_expires_at: backtest.leaseExpiresAt,
      status: 'queued',
    };
  }

  private async start(table: Table, id: string, at: string): Promise<boolean> {
    return (await this.db.run(`UPDATE ${table} SET status = 'running', started_at = @at WHERE id = @id AND status = 'queued'`, { id, at })).changes === 1;
  }

  private async setProgress(table: Table, id: string, progress: number): Promise<void> {
    await this.db.run(`UPDATE ${table} SET progress = @progress WHERE id = @id AND status = 'running'`, { id, progress: Math.min(1, Math.max(0, progress)) });
  }

  private async fail(table: Table, id: string, error: LabJobError, at: string): Promise<boolean> {
    const sql = `UPDATE ${table} SET status = 'failed', error = @error, finished_at = @at WHERE id = @id AND ${UNFINISHED}`;
    return (await this.db.run(sql, { id, error: JSON.stringify(error), at })).changes === 1;
  }

  private async cancel(table: Table, id: string, at: string): Promise<boolean> {
    return (await this.db.run(`UPDATE ${table} SET status = 'cancelled', finished_at = @at WHERE id = @id AND ${UNFINISHED}`, { id, at })).changes === 1;
  }
}

interface JobRow {
  seq: number;
  id: string;
  name: string | null;
  status: LabJobStatus;
  progress: number;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  error: string | null;
  [column: string]: unknown;
}

interface BacktestRow extends JobRow {
  sweep_id: string | null;
  sweep_role: SweepRole | null;
  sweep_index: number | null;
  settings: string;
  candles: number | null;
  signals: number;
  skipped_signals: number;
  metrics: string | null;
  data: string | null;
}

interface SweepRow extends JobRow {
  settings: string;
  settings_count: number;
  walk_forward: string | null;
}

interface TradeRow {
  seq: number;
  body: string;
  [column: string]: unknown;
}

/** A page of `limit` items from rows read one past it: the extra row tells that more exist. */
function pageOf<R extends { seq: number }, T>(rows: R[], limit: number, map: (row: R) => T): Page<T> {
  const more = rows.length > limit;
  const kept = more ? rows.slice(0, limit) : rows;
  const last = kept.at(-1);
  return { items: kept.map(map), next: more && last ? last.seq : null };
}

function jobFields(row: JobRow) {
  return {
    id: row.id,
    name: row.name,
    status: row.status,
    progress: row.progress,
    created_at: row.created_at,
    started_at: row.started_at,
    finished_at: row.finished_at,
    error: row.error === null ? null : (JSON.parse(row.error) as LabJobError),
  };
}

function toBacktest(row: BacktestRow): Backtest {
  return {
    ...jobFields(row),
    settings: JSON.parse(row.settings) as BacktestSettings,
    candles: row.candles,
    signals: row.signals,
    skipped_signals: row.skipped_signals,
    metrics: row.metrics === null ? null : withEverySkip(JSON.parse(row.metrics) as NonNullable<Backtest['metrics']>),
    data: row.data === null ? null : (JSON.parse(row.data) as LabData),
    sweep_id: row.sweep_id,
  };
}

/** A run's skip counts with every reason of this build: one stored before a reason was added (insufficient_margin, issue 26) skipped none for it. */
function withEverySkip(metrics: NonNullable<Backtest['metrics']>): NonNullable<Backtest['metrics']> {
  const { skipped } = metrics;
  if (!skipped) return metrics;
  const full = (counts: LabSkips): LabSkips => ({ ...NO_SKIPS, ...counts });
  const perPair = Object.fromEntries(Object.entries(skipped.per_pair).map(([pair, counts]) => [pair, full(counts)]));
  return { ...metrics, skipped: { overall: full(skipped.overall), per_pair: perPair } };
}

const NO_SKIPS = Object.fromEntries(LAB_SKIP_REASONS.map((reason) => [reason, 0])) as LabSkips;

/** A backtest's record as lists show it: the overall metrics only. */
function summaryOf(backtest: Backtest): BacktestSummary {
  const { metrics, ...rest } = backtest;
  return { ...rest, metrics: metrics === null ? null : { overall: metrics.overall } };
}

function toSweep(row: SweepRow): StoredSweep {
  return {
    ...jobFields(row),
    settings: JSON.parse(row.settings) as SweepSettings,
    settings_count: row.settings_count,
    walk_forward: row.walk_forward === null ? null : (JSON.parse(row.walk_forward) as WalkForwardResult),
  };
}
