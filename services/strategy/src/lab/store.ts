import { openDatabase, type SqliteDatabase } from '@fxdesk/core';
import type { Backtest, BacktestSettings, BacktestSummary, EquityPoint, LabJobError, LabJobStatus, LabTrade, Sweep, WalkForwardResult } from '@fxdesk/schemas';
import type { BacktestResult } from './types.js';

const MIGRATIONS = [
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
];

/** What a sweep's backtest is to it: one of its settings over the whole range, or a walk-forward window's out-of-sample run. */
export type SweepRole = 'member' | 'out_of_sample';

export interface NewBacktest {
  id: string;
  name: string | null;
  settings: BacktestSettings;
  createdAt: string;
  sweep?: { id: string; role: SweepRole; index: number };
}

export type SweepSettings = Sweep['settings'];

export interface NewSweep {
  id: string;
  name: string | null;
  settings: SweepSettings;
  settingsCount: number;
  createdAt: string;
}

/** A sweep as stored: its record without the ranking (read from its backtests). */
export type StoredSweep = Omit<Sweep, 'results'>;

/** A backtest of a sweep with where it stands in it. */
export interface SweepBacktest {
  role: SweepRole;
  index: number;
  backtest: BacktestSummary;
}

export interface Page<T> {
  items: T[];
  /** The seq to pass as `before`/`after` for the next page; null on the last. */
  next: number | null;
}

/** Why unfinished jobs fail when a process starts: they were running (or waiting) in a process that stopped. */
export const INTERRUPTED: LabJobError = { code: 'INTERRUPTED', message: 'interrupted by a restart' };

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
}

interface SweepRow extends JobRow {
  settings: string;
  settings_count: number;
  walk_forward: string | null;
}

const BACKTEST_COLUMNS =
  'seq, id, sweep_id, sweep_role, sweep_index, name, status, progress, created_at, started_at, finished_at, error, settings, candles, signals, skipped_signals, metrics';

type Table = 'backtests' | 'sweeps';

/**
 * The lab's SQLite file (DATA_DIR/lab.db): backtests with their trades and equity curve, sweeps.
 * A file of its own, not strategy.db: a year's backtest writes thousands of trade rows that the
 * live signals' FULL-synchronous file need not carry, results can always be computed again (so
 * NORMAL is enough), and deleting lab.db clears the lab without touching a signal.
 */
export class LabStore {
  private readonly db: SqliteDatabase;

  constructor(file: string) {
    this.db = openDatabase(file, { migrations: MIGRATIONS, synchronous: 'NORMAL' });
  }

  /**
   * Fails every job left queued or running by a process that stopped: the queue lives in memory,
   * so nothing would ever finish them. Returns how many of each.
   */
  interruptUnfinished(at: string): { backtests: number; sweeps: number } {
    const fail = (table: Table) =>
      this.db
        .prepare(`UPDATE ${table} SET status = 'failed', error = ?, finished_at = ? WHERE status IN ('queued', 'running')`)
        .run(JSON.stringify(INTERRUPTED), at).changes;
    return this.db.transaction(() => ({ sweeps: fail('sweeps'), backtests: fail('backtests') }))();
  }

  insertBacktest(backtest: NewBacktest): void {
    this.db
      .prepare(
        `INSERT INTO backtests (id, sweep_id, sweep_role, sweep_index, name, status, created_at, settings)
         VALUES (?, ?, ?, ?, ?, 'queued', ?, ?)`,
      )
      .run(
        backtest.id,
        backtest.sweep?.id ?? null,
        backtest.sweep?.role ?? null,
        backtest.sweep?.index ?? null,
        backtest.name,
        backtest.createdAt,
        JSON.stringify(backtest.settings),
      );
  }

  /** queued → running; false when it is no longer queued (cancelled meanwhile). */
  startBacktest(id: string, at: string): boolean {
    return this.start('backtests', id, at);
  }

  setBacktestProgress(id: string, progress: number): void {
    this.setProgress('backtests', id, progress);
  }

  /** running → done with its results, in one transaction; false when it is no longer running (cancelled meanwhile). */
  finishBacktest(id: string, result: BacktestResult, at: string): boolean {
    return this.db.transaction(() => {
      const done = this.db
        .prepare(
          `UPDATE backtests SET status = 'done', progress = 1, finished_at = ?, candles = ?, signals = ?, skipped_signals = ?, metrics = ?, equity = ?
           WHERE id = ? AND status = 'running'`,
        )
        .run(at, result.candles, result.signals, result.skipped_signals, JSON.stringify(result.metrics), JSON.stringify(result.equity), id);
      if (done.changes === 0) return false;
      const insert = this.db.prepare('INSERT INTO backtest_trades (backtest_id, seq, instrument, body) VALUES (?, ?, ?, ?)');
      result.trades.forEach((trade, seq) => insert.run(id, seq, trade.instrument, JSON.stringify(trade)));
      return true;
    })();
  }

  /** queued or running → failed; false when it had already ended. */
  failBacktest(id: string, error: LabJobError, at: string): boolean {
    return this.fail('backtests', id, error, at);
  }

  /** queued or running → cancelled; false when it had already ended. */
  cancelBacktest(id: string, at: string): boolean {
    return this.cancel('backtests', id, at);
  }

  backtest(id: string): Backtest | undefined {
    const row = this.db.prepare(`SELECT ${BACKTEST_COLUMNS} FROM backtests WHERE id = ?`).get(id) as BacktestRow | undefined;
    return row && toBacktest(row);
  }

  /** A job's state alone (what the `lab` event carries), without parsing its record. */
  jobState(kind: 'backtest' | 'sweep', id: string): { status: LabJobStatus; progress: number; sweep_id: string | null } | undefined {
    const query =
      kind === 'backtest'
        ? 'SELECT status, progress, sweep_id FROM backtests WHERE id = ?'
        : 'SELECT status, progress, NULL AS sweep_id FROM sweeps WHERE id = ?';
    return this.db.prepare(query).get(id) as { status: LabJobStatus; progress: number; sweep_id: string | null } | undefined;
  }

  /** The sweep a backtest belongs to, when it does. */
  sweepOf(backtestId: string): string | null | undefined {
    const row = this.db.prepare('SELECT sweep_id FROM backtests WHERE id = ?').get(backtestId) as { sweep_id: string | null } | undefined;
    return row?.sweep_id;
  }

  /** Newest first: the backtests started alone, or one sweep's. `before` is the previous page's `next`. */
  backtests(options: { limit: number; before?: number; sweepId?: string }): Page<BacktestSummary> {
    const rows = this.db
      .prepare(`SELECT ${BACKTEST_COLUMNS} FROM backtests WHERE sweep_id IS ? AND seq < ? ORDER BY seq DESC LIMIT ?`)
      .all(options.sweepId ?? null, options.before ?? Number.MAX_SAFE_INTEGER, options.limit + 1) as BacktestRow[];
    return pageOf(rows, options.limit, (row) => summaryOf(toBacktest(row)));
  }

  /** A sweep's backtests in the order it made them. */
  sweepBacktests(sweepId: string): SweepBacktest[] {
    const rows = this.db.prepare(`SELECT ${BACKTEST_COLUMNS} FROM backtests WHERE sweep_id = ? ORDER BY sweep_role, sweep_index`).all(sweepId) as BacktestRow[];
    return rows.map((row) => ({ role: row.sweep_role ?? 'member', index: row.sweep_index ?? 0, backtest: summaryOf(toBacktest(row)) }));
  }

  /** A backtest's trades in entry order, from after `after` (the previous page's `next`). */
  trades(id: string, options: { limit: number; after?: number; instrument?: string }): Page<LabTrade> {
    const where = options.instrument === undefined ? '' : 'AND instrument = ?';
    const args = options.instrument === undefined ? [] : [options.instrument];
    const rows = this.db
      .prepare(`SELECT seq, body FROM backtest_trades WHERE backtest_id = ? AND seq > ? ${where} ORDER BY seq LIMIT ?`)
      .all(id, options.after ?? -1, ...args, options.limit + 1) as Array<{ seq: number; body: string }>;
    const more = rows.length > options.limit;
    const kept = more ? rows.slice(0, options.limit) : rows;
    return { items: kept.map((row) => JSON.parse(row.body) as LabTrade), next: more ? (kept.at(-1)?.seq ?? null) : null };
  }

  /** The equity curve; empty until the backtest is done, undefined when there is no such backtest. */
  equity(id: string): EquityPoint[] | undefined {
    const row = this.db.prepare('SELECT equity FROM backtests WHERE id = ?').get(id) as { equity: string | null } | undefined;
    if (row === undefined) return undefined;
    return row.equity === null ? [] : (JSON.parse(row.equity) as EquityPoint[]);
  }

  /** Deletes a backtest and its trades; false when there was none. */
  deleteBacktest(id: string): boolean {
    return this.db.prepare('DELETE FROM backtests WHERE id = ?').run(id).changes === 1;
  }

  insertSweep(sweep: NewSweep): void {
    this.db
      .prepare(`INSERT INTO sweeps (id, name, status, created_at, settings, settings_count) VALUES (?, ?, 'queued', ?, ?, ?)`)
      .run(sweep.id, sweep.name, sweep.createdAt, JSON.stringify(sweep.settings), sweep.settingsCount);
  }

  startSweep(id: string, at: string): boolean {
    return this.start('sweeps', id, at);
  }

  setSweepProgress(id: string, progress: number): void {
    this.setProgress('sweeps', id, progress);
  }

  setWalkForward(id: string, walkForward: WalkForwardResult): void {
    this.db.prepare('UPDATE sweeps SET walk_forward = ? WHERE id = ?').run(JSON.stringify(walkForward), id);
  }

  finishSweep(id: string, at: string): boolean {
    return this.db.prepare(`UPDATE sweeps SET status = 'done', progress = 1, finished_at = ? WHERE id = ? AND status = 'running'`).run(at, id).changes === 1;
  }

  failSweep(id: string, error: LabJobError, at: string): boolean {
    return this.fail('sweeps', id, error, at);
  }

  cancelSweep(id: string, at: string): boolean {
    return this.cancel('sweeps', id, at);
  }

  sweep(id: string): StoredSweep | undefined {
    const row = this.db.prepare('SELECT * FROM sweeps WHERE id = ?').get(id) as SweepRow | undefined;
    return row && toSweep(row);
  }

  /** Newest first. */
  sweeps(options: { limit: number; before?: number }): Page<StoredSweep> {
    const rows = this.db
      .prepare('SELECT * FROM sweeps WHERE seq < ? ORDER BY seq DESC LIMIT ?')
      .all(options.before ?? Number.MAX_SAFE_INTEGER, options.limit + 1) as SweepRow[];
    return pageOf(rows, options.limit, toSweep);
  }

  /** Deletes a sweep with its backtests; false when there was none. */
  deleteSweep(id: string): boolean {
    return this.db.prepare('DELETE FROM sweeps WHERE id = ?').run(id).changes === 1;
  }

  /** Runs `work` in one transaction. */
  transaction<T>(work: () => T): T {
    return this.db.transaction(work)();
  }

  /** Throws when the database cannot be read. */
  ping(): void {
    this.db.prepare('SELECT 1').get();
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  private start(table: Table, id: string, at: string): boolean {
    return this.db.prepare(`UPDATE ${table} SET status = 'running', started_at = ? WHERE id = ? AND status = 'queued'`).run(at, id).changes === 1;
  }

  private setProgress(table: Table, id: string, progress: number): void {
    this.db.prepare(`UPDATE ${table} SET progress = ? WHERE id = ? AND status = 'running'`).run(Math.min(1, Math.max(0, progress)), id);
  }

  private fail(table: Table, id: string, error: LabJobError, at: string): boolean {
    return (
      this.db
        .prepare(`UPDATE ${table} SET status = 'failed', error = ?, finished_at = ? WHERE id = ? AND status IN ('queued', 'running')`)
        .run(JSON.stringify(error), at, id).changes === 1
    );
  }

  private cancel(table: Table, id: string, at: string): boolean {
    return (
      this.db.prepare(`UPDATE ${table} SET status = 'cancelled', finished_at = ? WHERE id = ? AND status IN ('queued', 'running')`).run(at, id).changes === 1
    );
  }
}

function pageOf<R extends { seq: number }, T>(rows: R[], limit: number, map: (row: R) => T): Page<T> {
  const more = rows.length > limit;
  const kept = more ? rows.slice(0, limit) : rows;
  return { items: kept.map(map), next: more ? (kept.at(-1)?.seq ?? null) : null };
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
    metrics: row.metrics === null ? null : (JSON.parse(row.metrics) as Backtest['metrics']),
    sweep_id: row.sweep_id,
  };
}

/** A backtest's record as lists show it: the overall metrics only. */
export function summaryOf(backtest: Backtest): BacktestSummary {
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
