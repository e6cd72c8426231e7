import type {
  Backtest,
  BacktestSettings,
  BacktestSummary,
  EquityPoint,
  LabData,
  LabJobError,
  LabJobStatus,
  LabTrade,
  Sweep,
  WalkForwardResult,
} from '@fxdesk/schemas';
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
 * One implementation, written once for both engines (lab/sql-store.ts), passes the contract
 * (test/lab-store.contract.ts) on each: SQLite (lab.db), the embedded default, and PostgreSQL for
 * several replicas on one database. Status moves are guarded (a job moves from queued or running
 * only), so a job cancelled on one replica never becomes done on another.
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
  /** running → done with its results (and the data it ran on), in one transaction; false when it is no longer running (cancelled meanwhile). */
  finishBacktest(id: string, result: BacktestResult, at: string, data?: LabData | null): Promise<boolean>;
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
