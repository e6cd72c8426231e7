import type { Backtest, BacktestSettings, BacktestSummary, EquityPoint, LabJobError, LabJobStatus, LabTrade, Sweep, WalkForwardResult } from '@fxdesk/schemas';
import type { BacktestResult } from './types.js';

/** What a sweep's backtest is to it: one of its settings over the whole range, or a walk-forward window's out-of-sample run. */
export type SweepRole = 'member' | 'out_of_sample';

export interface NewBacktest {
  id: string;
  name: string | null;
  settings: BacktestSettings;
  createdAt: string;
  /** Until when this replica answers for the job (ISO); it renews the lease while the job is unfinished. */
  leaseExpiresAt: string;
  sweep?: { id: string; role: SweepRole; index: number };
}

export type SweepSettings = Sweep['settings'];

export interface NewSweep {
  id: string;
  name: string | null;
  settings: SweepSettings;
  settingsCount: number;
  createdAt: string;
  leaseExpiresAt: string;
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

/** A job's state alone: what the `lab` event carries. */
export interface JobState {
  status: LabJobStatus;
  progress: number;
  sweep_id: string | null;
}

export type JobKind = 'backtest' | 'sweep';

/** The jobs a call failed: the backtests started alone (with their sweep's ids apart) and the sweeps. */
export interface FailedJobs {
  backtests: string[];
  sweeps: string[];
}

/** Why unfinished jobs fail when no replica runs them any more: the one running them stopped (or died). */
export const INTERRUPTED: LabJobError = { code: 'INTERRUPTED', message: 'interrupted by a restart' };

/**
 * The lab's records: backtests with their trades and equity curve, and sweeps, as one replica sees
 * them. A job belongs to the replica that queued it (the queue lives in its memory): that one
 * runs it and renews its lease while it is unfinished. Any replica reads every job, and moves one
 * to `cancelled` (its runner sees that at its next renewal and stops); a job whose replica died
 * is failed by any other once its lease has passed.
 *
 * Two implementations pass the same contract (test/lab-store.contract.ts): SQLite (lab.db), the
 * embedded default (lab/sqlite-store.ts), and PostgreSQL for several replicas on one database
 * (lab/postgres-store.ts). Status moves are guarded (a job moves from queued or running only), so
 * a job cancelled on one replica never becomes done on another.
 */
export interface LabStore {
  /** The replica whose jobs this store inserts and renews. */
  readonly replicaId: string;
  /**
   * Fails (INTERRUPTED) the unfinished jobs nobody runs: other replicas' whose lease ended at or
   * before `at`, and with `includeOwn` every one of this replica's (at its start, or as it stops:
   * its queue lived in its memory). A live replica's job within its lease is left alone.
   */
  failAbandoned(at: string, options: { includeOwn: boolean }): Promise<FailedJobs>;
  /** Extends the lease of this replica's unfinished jobs; the ids of those still unfinished (one cancelled or deleted elsewhere is not among them). */
  renewLeases(until: string): Promise<Set<string>>;

  insertBacktest(backtest: NewBacktest): Promise<void>;
  /** queued → running; false when it is no longer queued (cancelled meanwhile). */
  startBacktest(id: string, at: string): Promise<boolean>;
  setBacktestProgress(id: string, progress: number): Promise<void>;
  /** running → done with its results, in one transaction; false when it is no longer running (cancelled meanwhile). */
  finishBacktest(id: string, result: BacktestResult, at: string): Promise<boolean>;
  /** queued or running → failed; false when it had already ended. */
  failBacktest(id: string, error: LabJobError, at: string): Promise<boolean>;
  /** queued or running → cancelled; false when it had already ended. */
  cancelBacktest(id: string, at: string): Promise<boolean>;
  backtest(id: string): Promise<Backtest | undefined>;
  jobState(kind: JobKind, id: string): Promise<JobState | undefined>;
  /** Newest first: the backtests started alone, or one sweep's. `before` is the previous page's `next`. */
  backtests(options: { limit: number; before?: number; sweepId?: string }): Promise<Page<BacktestSummary>>;
  /** A sweep's backtests in the order it made them. */
  sweepBacktests(sweepId: string): Promise<SweepBacktest[]>;
  /** A backtest's trades in entry order, from after `after` (the previous page's `next`). */
  trades(id: string, options: { limit: number; after?: number; instrument?: string }): Promise<Page<LabTrade>>;
  /** The equity curve; empty until the backtest is done, undefined when there is no such backtest. */
  equity(id: string): Promise<EquityPoint[] | undefined>;
  /** Deletes a backtest and its trades; false when there was none. */
  deleteBacktest(id: string): Promise<boolean>;

  /** A sweep with its member backtests (and its walk-forward's windows), in one transaction. */
  insertSweep(sweep: NewSweep, members: NewBacktest[], walkForward: WalkForwardResult | null): Promise<void>;
  startSweep(id: string, at: string): Promise<boolean>;
  setSweepProgress(id: string, progress: number): Promise<void>;
  setWalkForward(id: string, walkForward: WalkForwardResult): Promise<void>;
  finishSweep(id: string, at: string): Promise<boolean>;
  failSweep(id: string, error: LabJobError, at: string): Promise<boolean>;
  cancelSweep(id: string, at: string): Promise<boolean>;
  sweep(id: string): Promise<StoredSweep | undefined>;
  /** Newest first. */
  sweeps(options: { limit: number; before?: number }): Promise<Page<StoredSweep>>;
  /** Deletes a sweep with its backtests; false when there was none. */
  deleteSweep(id: string): Promise<boolean>;

  /** Whether the database answers now. */
  health(): Promise<{ ok: boolean; detail: string }>;
  close(): Promise<void>;
}

interface JobRow {
  seq: number | string;
  id: string;
  name: string | null;
  status: LabJobStatus;
  progress: number;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  error: string | null;
}

/** A backtest's row, as both databases return it (PostgreSQL's BIGINT seq as text). */
export interface BacktestRow extends JobRow {
  sweep_id: string | null;
  sweep_role: SweepRole | null;
  sweep_index: number | null;
  settings: string;
  candles: number | null;
  signals: number;
  skipped_signals: number;
  metrics: string | null;
}

export interface SweepRow extends JobRow {
  settings: string;
  settings_count: number;
  walk_forward: string | null;
}

/** The columns a backtest's record is read from (not its equity, nor its owner and lease). */
export const BACKTEST_COLUMNS =
  'seq, id, sweep_id, sweep_role, sweep_index, name, status, progress, created_at, started_at, finished_at, error, settings, candles, signals, skipped_signals, metrics';
export const SWEEP_COLUMNS = 'seq, id, name, status, progress, created_at, started_at, finished_at, error, settings, settings_count, walk_forward';

/** A page of `limit` items from rows read one past it: the extra row tells that more exist. */
export function pageOf<R extends { seq: number | string }, T>(rows: R[], limit: number, map: (row: R) => T): Page<T> {
  const more = rows.length > limit;
  const kept = more ? rows.slice(0, limit) : rows;
  const last = kept.at(-1);
  return { items: kept.map(map), next: more && last ? Number(last.seq) : null };
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

export function toBacktest(row: BacktestRow): Backtest {
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

export function toSweep(row: SweepRow): StoredSweep {
  return {
    ...jobFields(row),
    settings: JSON.parse(row.settings) as SweepSettings,
    settings_count: row.settings_count,
    walk_forward: row.walk_forward === null ? null : (JSON.parse(row.walk_forward) as WalkForwardResult),
  };
}

export function sweepBacktestOf(row: BacktestRow): SweepBacktest {
  return { role: row.sweep_role ?? 'member', index: row.sweep_index ?? 0, backtest: summaryOf(toBacktest(row)) };
}

/** A page of trades from rows read one past `limit`. */
export function tradePageOf(rows: Array<{ seq: number; body: string }>, limit: number): Page<LabTrade> {
  return pageOf(rows, limit, (row) => JSON.parse(row.body) as LabTrade);
}

/** The values a backtest's insert writes, in column order: id, sweep_id, sweep_role, sweep_index, name, created_at, settings, owner, lease_expires_at. */
export function backtestColumns(backtest: NewBacktest, owner: string): (string | number | null)[] {
  return [
    backtest.id,
    backtest.sweep?.id ?? null,
    backtest.sweep?.role ?? null,
    backtest.sweep?.index ?? null,
    backtest.name,
    backtest.createdAt,
    JSON.stringify(backtest.settings),
    owner,
    backtest.leaseExpiresAt,
  ];
}

/** The columns of a backtest's results, in the order `finishBacktest` writes them: candles, signals, skipped_signals, metrics, equity. */
export function resultColumns(result: BacktestResult): (string | number)[] {
  return [result.candles, result.signals, result.skipped_signals, JSON.stringify(result.metrics), JSON.stringify(result.equity)];
}

/** Progress as stored: within [0, 1]. */
export function clampProgress(progress: number): number {
  return Math.min(1, Math.max(0, progress));
}
