import { openDatabase, type SqliteDatabase } from '@fxdesk/core';
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

/** The schema of lab.db, in the order it grew (`user_version` counts those applied). */
/** Trades written in one transaction when a backtest finishes: about 13 ms of CPU each. */
const TRADES_PER_WRITE = 1000;

export const LAB_MIGRATIONS = [
  `CREATE TABLE sweeps (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     id TEXT NOT NULL UNIQUE,
     name TEXT,
     status TEXT NOT NULL,
     progress REAL NOT NULL DEFAULT 0,
     created_at TEXT NOT NULL,
     started_at TEXT,
     finished_at TEXT,
     error TEXT,
     settings TEXT NOT NULL,
     settings_count INTEGER NOT NULL,
     walk_forward TEXT
   );
   CREATE TABLE backtests (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     id TEXT NOT NULL UNIQUE,
     sweep_id TEXT REFERENCES sweeps (id) ON DELETE CASCADE,
     sweep_role TEXT,
     sweep_index INTEGER,
     name TEXT,
     status TEXT NOT NULL,
     progress REAL NOT NULL DEFAULT 0,
     created_at TEXT NOT NULL,
     started_at TEXT,
     finished_at TEXT,
     error TEXT,
     settings TEXT NOT NULL,
     candles INTEGER,
     signals INTEGER NOT NULL DEFAULT 0,
     skipped_signals INTEGER NOT NULL DEFAULT 0,
     metrics TEXT,
     equity TEXT
   );
   CREATE INDEX backtests_by_sweep ON backtests (sweep_id, seq);
   CREATE TABLE backtest_trades (
     backtest_id TEXT NOT NULL REFERENCES backtests (id) ON DELETE CASCADE,
     seq INTEGER NOT NULL,
     instrument TEXT NOT NULL,
     body TEXT NOT NULL,
     PRIMARY KEY (backtest_id, seq)
   ) WITHOUT ROWID;
   CREATE INDEX backtest_trades_by_instrument ON backtest_trades (backtest_id, instrument, seq);`,
  // The replica that runs each job and until when it answers for it (issue 15); a job from before
  // has neither, so it counts as abandoned.
  `ALTER TABLE sweeps ADD COLUMN owner TEXT NOT NULL DEFAULT '';
   ALTER TABLE sweeps ADD COLUMN lease_expires_at TEXT NOT NULL DEFAULT '';
   ALTER TABLE backtests ADD COLUMN owner TEXT NOT NULL DEFAULT '';
   ALTER TABLE backtests ADD COLUMN lease_expires_at TEXT NOT NULL DEFAULT '';
   CREATE INDEX sweeps_unfinished ON sweeps (owner) WHERE status IN ('queued', 'running');
   CREATE INDEX backtests_unfinished ON backtests (owner) WHERE status IN ('queued', 'running');`,
];

type Table = 'backtests' | 'sweeps';

const UNFINISHED = "status IN ('queued', 'running')";

/**
 * The lab's SQLite file (DATA_DIR/lab.db): backtests with their trades and equity curve, sweeps.
 * A file of its own, not strategy.db: a year's backtest writes thousands of trade rows that the
 * live signals' FULL-synchronous file need not carry, results can always be computed again (so
 * NORMAL is enough), and moving lab.db away then starting once with --reset clears the lab
 * without touching a signal (without --reset its identity marker refuses the start). Each call runs
 * at once on the event loop; the promises only give it the interface the PostgreSQL store needs.
 */
export class SqliteLabStore implements LabStore {
  private readonly db: SqliteDatabase;

  /** `replicaId`: one process per DATA_DIR, so every job in the file is this process's to resume or fail. */
  constructor(
    file: string,
    readonly replicaId = 'local',
  ) {
    this.db = openDatabase(file, { migrations: LAB_MIGRATIONS, synchronous: 'NORMAL' });
  }

  async failAbandoned(at: string, { includeOwn }: { includeOwn: boolean }): Promise<FailedJobs> {
    const fail = (table: Table) =>
      this.db
        .prepare(
          `UPDATE ${table} SET status = 'failed', error = ?, finished_at = ?
           WHERE ${UNFINISHED} AND ((owner = ? AND ?) OR (owner <> ? AND lease_expires_at <= ?))
           RETURNING id${table === 'backtests' ? ', sweep_id' : ', NULL AS sweep_id'}`,
        )
        .all(JSON.stringify(INTERRUPTED), at, this.replicaId, includeOwn ? 1 : 0, this.replicaId, at) as Array<{ id: string; sweep_id: string | null }>;
    return this.db.transaction(() => {
      const sweeps = fail('sweeps').map((row) => row.id);
      const backtests = fail('backtests')
        .filter((row) => row.sweep_id === null)
        .map((row) => row.id);
      return { backtests, sweeps };
    })();
  }

  async renewLeases(until: string): Promise<Set<string>> {
    const renew = (table: Table) =>
      this.db.prepare(`UPDATE ${table} SET lease_expires_at = ? WHERE owner = ? AND ${UNFINISHED} RETURNING id`).all(until, this.replicaId) as Array<{
        id: string;
      }>;
    return new Set([...renew('sweeps'), ...renew('backtests')].map((row) => row.id));
  }

  async insertBacktest(backtest: NewBacktest): Promise<void> {
    this.insertBacktestNow(backtest);
  }

  async startBacktest(id: string, at: string): Promise<boolean> {
    return this.start('backtests', id, at);
  }

  async setBacktestProgress(id: string, progress: number): Promise<void> {
    this.setProgress('backtests', id, progress);
  }

  /**
   * The trades go in parts of TRADES_PER_WRITE, a turn of the event loop between them, while the
   * backtest is still running (its trades are read only once it is done), then one write marks it
   * done: a backtest of 18,555 trades written in one transaction held the service's loop for
   * 240 ms of CPU. A backtest that is no longer running (cancelled, deleted or failed by another
   * replica meanwhile) keeps none of them.
   */
  async finishBacktest(id: string, result: BacktestResult, at: string): Promise<boolean> {
    const isRunning = this.db.prepare<[string], { status: string }>('SELECT status FROM backtests WHERE id = ?');
    const insert = this.db.prepare('INSERT INTO backtest_trades (backtest_id, seq, instrument, body) VALUES (?, ?, ?, ?)');
    const writePart = this.db.transaction((from: number) => {
      if (isRunning.get(id)?.status !== 'running') return false;
      const to = Math.min(from + TRADES_PER_WRITE, result.trades.length);
      for (let seq = from; seq < to; seq++) {
        const trade = result.trades[seq] as LabTrade;
        insert.run(id, seq, trade.instrument, JSON.stringify(trade));
      }
      return true;
    });
    for (let from = 0; from < result.trades.length; from += TRADES_PER_WRITE) {
      if (from > 0) await new Promise((resolve) => setImmediate(resolve));
      if (!writePart(from)) return this.dropTrades(id);
    }
    const done = this.db
      .prepare(
        `UPDATE backtests SET status = 'done', progress = 1, finished_at = ?, candles = ?, signals = ?, skipped_signals = ?, metrics = ?, equity = ?
         WHERE id = ? AND status = 'running'`,
      )
      .run(at, ...resultColumns(result), id);
    return done.changes === 1 || this.dropTrades(id);
  }

  /** Forgets the trades written for a backtest that ended otherwise than done; always false. */
  private dropTrades(id: string): false {
    this.db.prepare("DELETE FROM backtest_trades WHERE backtest_id = ? AND NOT EXISTS (SELECT 1 FROM backtests WHERE id = ? AND status = 'done')").run(id, id);
    return false;
  }

  async failBacktest(id: string, error: LabJobError, at: string): Promise<boolean> {
    return this.fail('backtests', id, error, at);
  }

  async cancelBacktest(id: string, at: string): Promise<boolean> {
    return this.cancel('backtests', id, at);
  }

  async backtest(id: string): Promise<Backtest | undefined> {
    const row = this.db.prepare(`SELECT ${BACKTEST_COLUMNS} FROM backtests WHERE id = ?`).get(id) as BacktestRow | undefined;
    return row && toBacktest(row);
  }

  async jobState(kind: JobKind, id: string): Promise<JobState | undefined> {
    const query =
      kind === 'backtest'
        ? 'SELECT status, progress, sweep_id FROM backtests WHERE id = ?'
        : 'SELECT status, progress, NULL AS sweep_id FROM sweeps WHERE id = ?';
    return this.db.prepare(query).get(id) as JobState | undefined;
  }

  async backtests(options: { limit: number; before?: number; sweepId?: string }): Promise<Page<BacktestSummary>> {
    const rows = this.db
      .prepare(`SELECT ${BACKTEST_COLUMNS} FROM backtests WHERE sweep_id IS ? AND seq < ? ORDER BY seq DESC LIMIT ?`)
      .all(options.sweepId ?? null, options.before ?? Number.MAX_SAFE_INTEGER, options.limit + 1) as BacktestRow[];
    return pageOf(rows, options.limit, (row) => summaryOf(toBacktest(row)));
  }

  async sweepBacktests(sweepId: string): Promise<SweepBacktest[]> {
    const rows = this.db.prepare(`SELECT ${BACKTEST_COLUMNS} FROM backtests WHERE sweep_id = ? ORDER BY sweep_role, sweep_index`).all(sweepId) as BacktestRow[];
    return rows.map(sweepBacktestOf);
  }

  async trades(id: string, options: { limit: number; after?: number; instrument?: string }): Promise<Page<LabTrade>> {
    const where = options.instrument === undefined ? '' : 'AND instrument = ?';
    const args = options.instrument === undefined ? [] : [options.instrument];
    const rows = this.db
      .prepare(
        `SELECT seq, body FROM backtest_trades WHERE backtest_id = ? AND seq > ? ${where}
           AND EXISTS (SELECT 1 FROM backtests WHERE id = backtest_id AND status = 'done') ORDER BY seq LIMIT ?`,
      )
      .all(id, options.after ?? -1, ...args, options.limit + 1) as Array<{ seq: number; body: string }>;
    return tradePageOf(rows, options.limit);
  }

  async equity(id: string): Promise<EquityPoint[] | undefined> {
    const row = this.db.prepare('SELECT equity FROM backtests WHERE id = ?').get(id) as { equity: string | null } | undefined;
    if (row === undefined) return undefined;
    return row.equity === null ? [] : (JSON.parse(row.equity) as EquityPoint[]);
  }

  async deleteBacktest(id: string): Promise<boolean> {
    return this.db.prepare('DELETE FROM backtests WHERE id = ?').run(id).changes === 1;
  }

  async insertSweep(sweep: NewSweep, members: NewBacktest[], walkForward: WalkForwardResult | null): Promise<void> {
    this.db.transaction(() => {
      this.db
        .prepare(
          `INSERT INTO sweeps (id, name, status, created_at, settings, settings_count, walk_forward, owner, lease_expires_at)
           VALUES (?, ?, 'queued', ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          sweep.id,
          sweep.name,
          sweep.createdAt,
          JSON.stringify(sweep.settings),
          sweep.settingsCount,
          walkForward && JSON.stringify(walkForward),
          this.replicaId,
          sweep.leaseExpiresAt,
        );
      for (const member of members) this.insertBacktestNow(member);
    })();
  }

  async startSweep(id: string, at: string): Promise<boolean> {
    return this.start('sweeps', id, at);
  }

  async setSweepProgress(id: string, progress: number): Promise<void> {
    this.setProgress('sweeps', id, progress);
  }

  async setWalkForward(id: string, walkForward: WalkForwardResult): Promise<void> {
    this.db.prepare('UPDATE sweeps SET walk_forward = ? WHERE id = ?').run(JSON.stringify(walkForward), id);
  }

  async finishSweep(id: string, at: string): Promise<boolean> {
    return this.db.prepare(`UPDATE sweeps SET status = 'done', progress = 1, finished_at = ? WHERE id = ? AND status = 'running'`).run(at, id).changes === 1;
  }

  async failSweep(id: string, error: LabJobError, at: string): Promise<boolean> {
    return this.fail('sweeps', id, error, at);
  }

  async cancelSweep(id: string, at: string): Promise<boolean> {
    return this.cancel('sweeps', id, at);
  }

  async sweep(id: string): Promise<StoredSweep | undefined> {
    const row = this.db.prepare(`SELECT ${SWEEP_COLUMNS} FROM sweeps WHERE id = ?`).get(id) as SweepRow | undefined;
    return row && toSweep(row);
  }

  async sweeps(options: { limit: number; before?: number }): Promise<Page<StoredSweep>> {
    const rows = this.db
      .prepare(`SELECT ${SWEEP_COLUMNS} FROM sweeps WHERE seq < ? ORDER BY seq DESC LIMIT ?`)
      .all(options.before ?? Number.MAX_SAFE_INTEGER, options.limit + 1) as SweepRow[];
    return pageOf(rows, options.limit, toSweep);
  }

  async deleteSweep(id: string): Promise<boolean> {
    return this.db.prepare('DELETE FROM sweeps WHERE id = ?').run(id).changes === 1;
  }

  async health(): Promise<{ ok: boolean; detail: string }> {
    try {
      this.db.prepare('SELECT 1').get();
      return { ok: true, detail: 'lab database answers' };
    } catch (err) {
      return { ok: false, detail: `the lab database does not answer: ${err instanceof Error ? err.message : String(err)}` };
    }
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }

  private insertBacktestNow(backtest: NewBacktest): void {
    this.db
      .prepare(
        `INSERT INTO backtests (id, sweep_id, sweep_role, sweep_index, name, created_at, settings, owner, lease_expires_at, status)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'queued')`,
      )
      .run(...backtestColumns(backtest, this.replicaId));
  }

  private start(table: Table, id: string, at: string): boolean {
    return this.db.prepare(`UPDATE ${table} SET status = 'running', started_at = ? WHERE id = ? AND status = 'queued'`).run(at, id).changes === 1;
  }

  private setProgress(table: Table, id: string, progress: number): void {
    this.db.prepare(`UPDATE ${table} SET progress = ? WHERE id = ? AND status = 'running'`).run(clampProgress(progress), id);
  }

  private fail(table: Table, id: string, error: LabJobError, at: string): boolean {
    return (
      this.db.prepare(`UPDATE ${table} SET status = 'failed', error = ?, finished_at = ? WHERE id = ? AND ${UNFINISHED}`).run(JSON.stringify(error), at, id)
        .changes === 1
    );
  }

  private cancel(table: Table, id: string, at: string): boolean {
    return this.db.prepare(`UPDATE ${table} SET status = 'cancelled', finished_at = ? WHERE id = ? AND ${UNFINISHED}`).run(at, id).changes === 1;
  }
}
