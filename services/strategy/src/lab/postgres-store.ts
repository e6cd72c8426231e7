import { inTransaction, openPostgres, postgresHealth, type PostgresClient, type PostgresPool } from '@fxdesk/core';
import type { Backtest, BacktestSummary, EquityPoint, LabJobError, LabTrade, WalkForwardResult } from '@fxdesk/schemas';
import type { BacktestResult } from './types.js';
import {
  BACKTEST_COLUMNS,
  backtestColumns,
  clampProgress,
  INTERRUPTED,
  pageOf,
  resultColumns,
  summaryOf,
  SWEEP_COLUMNS,
  sweepBacktestOf,
  toBacktest,
  toSweep,
  tradePageOf,
  type BacktestRow,
  type FailedJobs,
  type JobKind,
  type JobState,
  type LabStore,
  type NewBacktest,
  type NewSweep,
  type Page,
  type StoredSweep,
  type SweepBacktest,
  type SweepRow,
} from './store.js';

/**
 * The lab's schema in PostgreSQL (counted as store `strategy_lab` in fxdesk_schema): lab.db's
 * tables under a `strategy_lab_` prefix. Text compared or sorted uses the "C" collation, SQLite's
 * byte order.
 */
export const POSTGRES_LAB_MIGRATIONS = [
  `CREATE TABLE strategy_lab_sweeps (
     seq              BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
     id               TEXT COLLATE "C" NOT NULL UNIQUE,
     name             TEXT,
     status           TEXT COLLATE "C" NOT NULL,
     progress         DOUBLE PRECISION NOT NULL DEFAULT 0,
     created_at       TEXT NOT NULL,
     started_at       TEXT,
     finished_at      TEXT,
     error            TEXT,
     settings         TEXT NOT NULL,
     settings_count   INTEGER NOT NULL,
     walk_forward     TEXT,
     owner            TEXT COLLATE "C" NOT NULL,
     lease_expires_at TEXT COLLATE "C" NOT NULL
   );
   CREATE INDEX strategy_lab_sweeps_unfinished ON strategy_lab_sweeps (owner) WHERE status IN ('queued', 'running');
   CREATE TABLE strategy_lab_backtests (
     seq              BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
     id               TEXT COLLATE "C" NOT NULL UNIQUE,
     sweep_id         TEXT COLLATE "C" REFERENCES strategy_lab_sweeps (id) ON DELETE CASCADE,
     sweep_role       TEXT COLLATE "C",
     sweep_index      INTEGER,
     name             TEXT,
     status           TEXT COLLATE "C" NOT NULL,
     progress         DOUBLE PRECISION NOT NULL DEFAULT 0,
     created_at       TEXT NOT NULL,
     started_at       TEXT,
     finished_at      TEXT,
     error            TEXT,
     settings         TEXT NOT NULL,
     candles          INTEGER,
     signals          INTEGER NOT NULL DEFAULT 0,
     skipped_signals  INTEGER NOT NULL DEFAULT 0,
     metrics          TEXT,
     equity           TEXT,
     owner            TEXT COLLATE "C" NOT NULL,
     lease_expires_at TEXT COLLATE "C" NOT NULL
   );
   CREATE INDEX strategy_lab_backtests_by_sweep ON strategy_lab_backtests (sweep_id, seq);
   CREATE INDEX strategy_lab_backtests_alone ON strategy_lab_backtests (seq) WHERE sweep_id IS NULL;
   CREATE INDEX strategy_lab_backtests_unfinished ON strategy_lab_backtests (owner) WHERE status IN ('queued', 'running');
   CREATE TABLE strategy_lab_trades (
     backtest_id TEXT COLLATE "C" NOT NULL REFERENCES strategy_lab_backtests (id) ON DELETE CASCADE,
     seq         INTEGER NOT NULL,
     instrument  TEXT COLLATE "C" NOT NULL,
     body        TEXT NOT NULL,
     PRIMARY KEY (backtest_id, seq)
   );
   CREATE INDEX strategy_lab_trades_by_instrument ON strategy_lab_trades (backtest_id, instrument, seq);`,
];

type Table = 'strategy_lab_backtests' | 'strategy_lab_sweeps';

const BACKTESTS: Table = 'strategy_lab_backtests';
const SWEEPS: Table = 'strategy_lab_sweeps';
const UNFINISHED = "status IN ('queued', 'running')";
const INSERT_BACKTEST = `INSERT INTO ${BACKTESTS} (id, sweep_id, sweep_role, sweep_index, name, created_at, settings, owner, lease_expires_at, status)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'queued')`;

/**
 * The lab's records in PostgreSQL (DATABASE_URL), shared by every replica: a backtest posted to
 * one is read, followed and cancelled through any. Each write is its own transaction but a
 * backtest's results with its trades, and a sweep with its backtests, which are one each.
 * Statements are named, so each connection of the pool prepares them once.
 */
export class PostgresLabStore implements LabStore {
  private closed = false;

  constructor(
    private readonly pool: PostgresPool,
    readonly replicaId: string,
  ) {}

  /** Connects to the database and brings the lab's schema up to date (safe when replicas start at once). */
  static async open(url: string, replicaId: string): Promise<PostgresLabStore> {
    const pool = await openPostgres({ url, store: 'strategy_lab', migrations: POSTGRES_LAB_MIGRATIONS, maxConnections: 4 });
    return new PostgresLabStore(pool, replicaId);
  }

  private async rows<R>(name: string, text: string, values: unknown[] = []): Promise<R[]> {
    return (await this.pool.query({ name, text, values })).rows as R[];
  }

  private async changed(name: string, text: string, values: unknown[]): Promise<boolean> {
    return ((await this.pool.query({ name, text, values })).rowCount ?? 0) > 0;
  }

  async failAbandoned(at: string, { includeOwn }: { includeOwn: boolean }): Promise<FailedJobs> {
    const values = [JSON.stringify(INTERRUPTED), at, this.replicaId, includeOwn];
    const where = `${UNFINISHED} AND ((owner = $3 AND $4::boolean) OR (owner <> $3 AND lease_expires_at <= $2))`;
    return inTransaction(this.pool, async (client) => {
      const fail = async (table: Table, returning: string) =>
        (
          await client.query<{ id: string; sweep_id: string | null }>({
            name: `fail_abandoned_${table}`,
            text: `UPDATE ${table} SET status = 'failed', error = $1, finished_at = $2 WHERE ${where} RETURNING ${returning}`,
            values,
          })
        ).rows;
      const sweeps = (await fail(SWEEPS, 'id, NULL AS sweep_id')).map((row) => row.id);
      const backtests = (await fail(BACKTESTS, 'id, sweep_id')).filter((row) => row.sweep_id === null).map((row) => row.id);
      return { backtests, sweeps };
    });
  }

  async renewLeases(until: string): Promise<Set<string>> {
    const renew = (table: Table) =>
      this.rows<{ id: string }>(`renew_${table}`, `UPDATE ${table} SET lease_expires_at = $1 WHERE owner = $2 AND ${UNFINISHED} RETURNING id`, [
        until,
        this.replicaId,
      ]);
    const [sweeps, backtests] = await Promise.all([renew(SWEEPS), renew(BACKTESTS)]);
    return new Set([...sweeps, ...backtests].map((row) => row.id));
  }

  async insertBacktest(backtest: NewBacktest): Promise<void> {
    await this.pool.query({ name: 'insert_backtest', text: INSERT_BACKTEST, values: backtestColumns(backtest, this.replicaId) });
  }

  async startBacktest(id: string, at: string): Promise<boolean> {
    return this.start(BACKTESTS, id, at);
  }

  async setBacktestProgress(id: string, progress: number): Promise<void> {
    await this.setProgress(BACKTESTS, id, progress);
  }

  async finishBacktest(id: string, result: BacktestResult, at: string): Promise<boolean> {
    return inTransaction(this.pool, async (client) => {
      const done = await client.query({
        name: 'finish_backtest',
        text: `UPDATE ${BACKTESTS} SET status = 'done', progress = 1, finished_at = $1, candles = $2, signals = $3, skipped_signals = $4, metrics = $5, equity = $6
               WHERE id = $7 AND status = 'running'`,
        values: [at, ...resultColumns(result), id],
      });
      if (done.rowCount !== 1) return false;
      await insertTrades(client, id, result);
      return true;
    });
  }

  async failBacktest(id: string, error: LabJobError, at: string): Promise<boolean> {
    return this.fail(BACKTESTS, id, error, at);
  }

  async cancelBacktest(id: string, at: string): Promise<boolean> {
    return this.cancel(BACKTESTS, id, at);
  }

  async backtest(id: string): Promise<Backtest | undefined> {
    const [row] = await this.rows<BacktestRow>('backtest', `SELECT ${BACKTEST_COLUMNS} FROM ${BACKTESTS} WHERE id = $1`, [id]);
    return row && toBacktest(row);
  }

  async jobState(kind: JobKind, id: string): Promise<JobState | undefined> {
    const [row] =
      kind === 'backtest'
        ? await this.rows<JobState>('backtest_state', `SELECT status, progress, sweep_id FROM ${BACKTESTS} WHERE id = $1`, [id])
        : await this.rows<JobState>('sweep_state', `SELECT status, progress, NULL AS sweep_id FROM ${SWEEPS} WHERE id = $1`, [id]);
    return row;
  }

  async backtests(options: { limit: number; before?: number; sweepId?: string }): Promise<Page<BacktestSummary>> {
    const before = options.before ?? Number.MAX_SAFE_INTEGER;
    const rows =
      options.sweepId === undefined
        ? await this.rows<BacktestRow>(
            'backtests_alone',
            `SELECT ${BACKTEST_COLUMNS} FROM ${BACKTESTS} WHERE sweep_id IS NULL AND seq < $1 ORDER BY seq DESC LIMIT $2`,
            [before, options.limit + 1],
          )
        : await this.rows<BacktestRow>(
            'backtests_of_sweep',
            `SELECT ${BACKTEST_COLUMNS} FROM ${BACKTESTS} WHERE sweep_id = $1 AND seq < $2 ORDER BY seq DESC LIMIT $3`,
            [options.sweepId, before, options.limit + 1],
          );
    return pageOf(rows, options.limit, (row) => summaryOf(toBacktest(row)));
  }

  async sweepBacktests(sweepId: string): Promise<SweepBacktest[]> {
    const rows = await this.rows<BacktestRow>(
      'sweep_backtests',
      `SELECT ${BACKTEST_COLUMNS} FROM ${BACKTESTS} WHERE sweep_id = $1 ORDER BY sweep_role, sweep_index`,
      [sweepId],
    );
    return rows.map(sweepBacktestOf);
  }

  async trades(id: string, options: { limit: number; after?: number; instrument?: string }): Promise<Page<LabTrade>> {
    const after = options.after ?? -1;
    const rows =
      options.instrument === undefined
        ? await this.rows<{ seq: number; body: string }>(
            'trades',
            'SELECT seq, body FROM strategy_lab_trades WHERE backtest_id = $1 AND seq > $2 ORDER BY seq LIMIT $3',
            [id, after, options.limit + 1],
          )
        : await this.rows<{ seq: number; body: string }>(
            'trades_of_instrument',
            'SELECT seq, body FROM strategy_lab_trades WHERE backtest_id = $1 AND instrument = $2 AND seq > $3 ORDER BY seq LIMIT $4',
            [id, options.instrument, after, options.limit + 1],
          );
    return tradePageOf(rows, options.limit);
  }

  async equity(id: string): Promise<EquityPoint[] | undefined> {
    const [row] = await this.rows<{ equity: string | null }>('equity', `SELECT equity FROM ${BACKTESTS} WHERE id = $1`, [id]);
    if (row === undefined) return undefined;
    return row.equity === null ? [] : (JSON.parse(row.equity) as EquityPoint[]);
  }

  async deleteBacktest(id: string): Promise<boolean> {
    return this.changed('delete_backtest', `DELETE FROM ${BACKTESTS} WHERE id = $1`, [id]);
  }

  async insertSweep(sweep: NewSweep, members: NewBacktest[], walkForward: WalkForwardResult | null): Promise<void> {
    await inTransaction(this.pool, async (client) => {
      await client.query({
        name: 'insert_sweep',
        text: `INSERT INTO ${SWEEPS} (id, name, status, created_at, settings, settings_count, walk_forward, owner, lease_expires_at)
               VALUES ($1, $2, 'queued', $3, $4, $5, $6, $7, $8)`,
        values: [
          sweep.id,
          sweep.name,
          sweep.createdAt,
          JSON.stringify(sweep.settings),
          sweep.settingsCount,
          walkForward && JSON.stringify(walkForward),
          this.replicaId,
          sweep.leaseExpiresAt,
        ],
      });
      for (const member of members) await client.query({ name: 'insert_backtest', text: INSERT_BACKTEST, values: backtestColumns(member, this.replicaId) });
    });
  }

  async startSweep(id: string, at: string): Promise<boolean> {
    return this.start(SWEEPS, id, at);
  }

  async setSweepProgress(id: string, progress: number): Promise<void> {
    await this.setProgress(SWEEPS, id, progress);
  }

  async setWalkForward(id: string, walkForward: WalkForwardResult): Promise<void> {
    await this.pool.query({
      name: 'set_walk_forward',
      text: `UPDATE ${SWEEPS} SET walk_forward = $1 WHERE id = $2`,
      values: [JSON.stringify(walkForward), id],
    });
  }

  async finishSweep(id: string, at: string): Promise<boolean> {
    return this.changed('finish_sweep', `UPDATE ${SWEEPS} SET status = 'done', progress = 1, finished_at = $1 WHERE id = $2 AND status = 'running'`, [at, id]);
  }

  async failSweep(id: string, error: LabJobError, at: string): Promise<boolean> {
    return this.fail(SWEEPS, id, error, at);
  }

  async cancelSweep(id: string, at: string): Promise<boolean> {
    return this.cancel(SWEEPS, id, at);
  }

  async sweep(id: string): Promise<StoredSweep | undefined> {
    const [row] = await this.rows<SweepRow>('sweep', `SELECT ${SWEEP_COLUMNS} FROM ${SWEEPS} WHERE id = $1`, [id]);
    return row && toSweep(row);
  }

  async sweeps(options: { limit: number; before?: number }): Promise<Page<StoredSweep>> {
    const rows = await this.rows<SweepRow>('sweeps', `SELECT ${SWEEP_COLUMNS} FROM ${SWEEPS} WHERE seq < $1 ORDER BY seq DESC LIMIT $2`, [
      options.before ?? Number.MAX_SAFE_INTEGER,
      options.limit + 1,
    ]);
    return pageOf(rows, options.limit, toSweep);
  }

  async deleteSweep(id: string): Promise<boolean> {
    return this.changed('delete_sweep', `DELETE FROM ${SWEEPS} WHERE id = $1`, [id]);
  }

  health(): Promise<{ ok: boolean; detail: string }> {
    return postgresHealth(this.pool);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }

  private start(table: Table, id: string, at: string): Promise<boolean> {
    return this.changed(`start_${table}`, `UPDATE ${table} SET status = 'running', started_at = $1 WHERE id = $2 AND status = 'queued'`, [at, id]);
  }

  private async setProgress(table: Table, id: string, progress: number): Promise<void> {
    await this.pool.query({
      name: `progress_${table}`,
      text: `UPDATE ${table} SET progress = $1 WHERE id = $2 AND status = 'running'`,
      values: [clampProgress(progress), id],
    });
  }

  private fail(table: Table, id: string, error: LabJobError, at: string): Promise<boolean> {
    return this.changed(`fail_${table}`, `UPDATE ${table} SET status = 'failed', error = $1, finished_at = $2 WHERE id = $3 AND ${UNFINISHED}`, [
      JSON.stringify(error),
      at,
      id,
    ]);
  }

  private cancel(table: Table, id: string, at: string): Promise<boolean> {
    return this.changed(`cancel_${table}`, `UPDATE ${table} SET status = 'cancelled', finished_at = $1 WHERE id = $2 AND ${UNFINISHED}`, [at, id]);
  }
}

/** A backtest's trades in one statement per thousand, from arrays (a year's run writes thousands). */
async function insertTrades(client: PostgresClient, id: string, result: BacktestResult): Promise<void> {
  const CHUNK = 1000;
  for (let start = 0; start < result.trades.length; start += CHUNK) {
    const chunk = result.trades.slice(start, start + CHUNK);
    await client.query({
      name: 'insert_trades',
      text: `INSERT INTO strategy_lab_trades (backtest_id, seq, instrument, body)
             SELECT $1, seq, instrument, body FROM unnest($2::integer[], $3::text[], $4::text[]) AS t (seq, instrument, body)`,
      values: [id, chunk.map((_, i) => start + i), chunk.map((trade) => trade.instrument), chunk.map((trade) => JSON.stringify(trade))],
    });
  }
}
