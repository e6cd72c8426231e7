import { randomUUID } from 'node:crypto';
import type { Clock, TimerHandle } from '@fxdesk/primitives';
import type {
  Backtest,
  BacktestCandlesQuery,
  BacktestEquity,
  BacktestList,
  BacktestListQuery,
  BacktestRequest,
  BacktestTrades,
  BacktestTradesQuery,
  LabJobCreated,
  LabEvent,
  LabJobError,
  LabMetrics,
  LabRules,
  PairCandles,
  RankMetric,
  Sweep,
  SweepList,
  SweepListQuery,
  SweepRequest,
  SweepResult,
  WalkForwardResult,
} from '@fxdesk/schemas';
import { TIMEFRAME_SECONDS } from '@fxdesk/schemas';
import type { Logger } from 'pino';
import type { StrategyConfig } from '../config.js';
import { downstreamFailure, errors } from '../errors.js';
import { latestWrite } from '../latest-write.js';
import type { StrategyRules } from '../rules.js';
import { calendarSpanSec, type LabHistory } from './candles.js';
import { backtestCandles } from './chart.js';
import { ColumnsBuilder, firstAtOrAfter, sliceColumns, type CandleColumns } from './columns.js';
import {
  apiRules,
  candlesBetween,
  planBacktest,
  planSweep,
  type BacktestPlan,
  type Catalog,
  type HistoryHours,
  type PlanConfig,
  type PlannedPair,
  type SweepPlan,
} from './plan.js';
import type { FailedJobs, JobKind, LabStore, StoredSweep } from './store.js';
import { outOfSampleTotal, rankOrder, type WalkForwardWindow } from './sweep.js';
import type { BacktestJob, BacktestPair, BacktestResult, LabCandle } from './types.js';

/** Runs one backtest off the event loop: the LabPool (lab/pool.ts), or a test's stand-in. */
export interface LabRunner {
  run(job: BacktestJob, options?: { onProgress?: (fraction: number) => void; signal?: AbortSignal }): Promise<BacktestResult>;
}

/** What the lab is made of: its store, its candles (and when the history has them) and its threads. */
export interface LabDeps {
  store: LabStore;
  history: LabHistory;
  /** The history's hours, by which a request's candles are counted against LAB_MAX_CANDLES. */
  hours: HistoryHours;
  runner: LabRunner;
}

export type LabConfig = PlanConfig & Pick<StrategyConfig, 'LAB_WORKERS' | 'LAB_MAX_QUEUE' | 'CHART_CANDLES'>;

/** Hears every job's changes (the console's event hub: `lab` events). */
export interface LabListener {
  labChanged(event: LabEvent): void;
}

/** The share of a job's progress that loading its candles counts for. */
const LOAD_SHARE = 0.2;

/** Progress is written when it moved by at least this much (or reached the end). */
const PROGRESS_STEP = 0.01;

/**
 * The periods of a job's range read from the history at a time: each part's candles (as objects)
 * go into the pair's columns before the next part is read, so loading holds the columns and one
 * part (some 20 MB), never the whole range as objects.
 */
const LOAD_PART_CANDLES = 100_000;

/** Seconds a client is told to wait when the queue is full. */
const QUEUE_FULL_RETRY_SECONDS = 30;

interface QueuedJob {
  kind: JobKind;
  id: string;
  abort: AbortController;
  run: (signal: AbortSignal) => Promise<void>;
}

/** The candles a job loaded: the traded pairs and the pairs their conversion needs. */
interface LoadedCandles {
  pairs: BacktestPair[];
  conversion: BacktestPair[];
}

/** A job that ended early: cancelled, or the service closing. */
class Stopped extends Error {}

/**
 * How often a replica renews the leases of its unfinished jobs (and so learns which of them were
 * cancelled on another replica), and fails the jobs of replicas whose lease ran out.
 */
export const JOB_CHECK_MS = 1000;
/** How long a job's lease lasts: a job its replica has not renewed for this long is failed (INTERRUPTED) by another. */
export const JOB_LEASE_MS = 30_000;

/**
 * The strategy lab's jobs: backtests and sweeps, queued (at most LAB_MAX_QUEUE waiting), up to
 * LAB_WORKERS at a time, each loading its candles once (warm-up included) and running every
 * backtest on the runner's worker threads, never on the event loop. Every state change is in
 * the store, so results outlive the process and every replica on the store reads them. A job
 * runs on the replica that queued it, which renews its lease every JOB_CHECK_MS and stops it
 * when the store says another replica cancelled it; a job whose replica stopped is failed
 * (INTERRUPTED): by that replica at its next start, or by any other once its lease has passed.
 */
export class LabJobs {
  private readonly pending: QueuedJob[] = [];
  private readonly active = new Map<string, { job: QueuedJob; done: Promise<void> }>();
  private readonly idleWaiters: Array<() => void> = [];
  private isClosed = false;
  private timer: TimerHandle | undefined;
  private checking: Promise<void> | undefined;
  /** Progress writes on their way to the store. */
  private readonly writes = new Set<Promise<void>>();
  /** The `lab` events told, one store read after another, so the listener hears each job's states in order. */
  private telling: Promise<unknown> = Promise.resolve();

  constructor(private readonly o: { config: LabConfig; lab: LabDeps; clock: Clock; logger: Logger; listener?: LabListener }) {}

  /** At the service's start: fails the jobs no replica runs any more (this one's from before a restart included), then checks every JOB_CHECK_MS. */
  async start(): Promise<void> {
    const failed = await this.o.lab.store.failAbandoned(this.now(), { includeOwn: true });
    if (failed.backtests.length + failed.sweeps.length > 0) this.o.logger.warn(failed, 'lab jobs interrupted by the last stop marked failed');
    await this.tellFailed(failed);
    this.schedule();
  }

  /** Checks and queues a backtest; 422 for a request that cannot run, 503 LAB_QUEUE_FULL when the queue is. */
  async submitBacktest(request: BacktestRequest): Promise<LabJobCreated> {
    const plan = planBacktest(request, { config: this.o.config, catalog: await this.catalog(), hours: this.o.lab.hours, nowMs: this.o.clock.now() });
    this.checkQueue();
    const id = randomUUID();
    await this.o.lab.store.insertBacktest({ id, name: request.name ?? null, settings: plan.settings, ...this.stamps() });
    await this.told('backtest', id);
    this.enqueue({ kind: 'backtest', id, abort: new AbortController(), run: (signal) => this.runBacktest(id, plan, signal) });
    return { id };
  }

  /** Checks and queues a sweep with its backtests (each queued, openable at once). */
  async submitSweep(request: SweepRequest): Promise<LabJobCreated> {
    const plan = planSweep(request, { config: this.o.config, catalog: await this.catalog(), hours: this.o.lab.hours, nowMs: this.o.clock.now() });
    this.checkQueue();
    const id = randomUUID();
    const stamps = this.stamps();
    const memberIds = plan.settings.map(() => randomUUID());
    const members = plan.settings.map((rules, index) => ({
      id: memberIds[index] as string,
      name: null,
      settings: { ...plan.base.settings, rules: apiRules(rules) },
      ...stamps,
      sweep: { id, role: 'member' as const, index },
    }));
    const settings = {
      base: plan.base.settings,
      grid: request.grid ?? null,
      random: request.random ?? null,
      rank_by: request.rank_by,
      walk_forward: request.walk_forward ?? null,
    };
    const walkForward = plan.windows.length > 0 ? walkForwardOf(plan.windows, []) : null;
    await this.o.lab.store.insertSweep({ id, name: request.name ?? null, settingsCount: plan.settings.length, settings, ...stamps }, members, walkForward);
    // Its backtests are told from when they start: 256 `queued` events at once would say nothing the sweep's does not.
    await this.told('sweep', id);
    this.enqueue({ kind: 'sweep', id, abort: new AbortController(), run: (signal) => this.runSweep(id, plan, memberIds, request.rank_by, signal) });
    return { id };
  }

  async backtest(id: string): Promise<Backtest> {
    const backtest = await this.o.lab.store.backtest(id);
    if (!backtest) throw errors.create('backtest_not_found', `no backtest ${id}`);
    return backtest;
  }

  async backtests(query: BacktestListQuery): Promise<BacktestList> {
    const page = await this.o.lab.store.backtests({ limit: query.limit, before: cursorOf(query.cursor), sweepId: query.sweep_id });
    return { backtests: page.items, next_cursor: page.next === null ? null : String(page.next) };
  }

  async trades(id: string, query: BacktestTradesQuery): Promise<BacktestTrades> {
    await this.backtest(id);
    const page = await this.o.lab.store.trades(id, { limit: query.limit, after: cursorOf(query.cursor), instrument: query.instrument });
    return { trades: page.items, next_cursor: page.next === null ? null : String(page.next) };
  }

  /** Most candles {@link candles} answers (CHART_CANDLES). */
  get chartCandles(): number {
    return this.o.config.CHART_CANDLES;
  }

  /** One pair's candles of a backtest with the indicators on its rules, for a chart (lab/chart.ts). */
  async candles(id: string, query: BacktestCandlesQuery): Promise<PairCandles> {
    return backtestCandles(await this.backtest(id), query, { history: this.o.lab.history, catalog: () => this.catalog(), symbolMap: this.o.config.SYMBOL_MAP });
  }

  async equity(id: string): Promise<BacktestEquity> {
    const points = await this.o.lab.store.equity(id);
    if (points === undefined) throw errors.create('backtest_not_found', `no backtest ${id}`);
    return { points };
  }

  /**
   * Cancels a queued or running backtest (answering it, now cancelled) or deletes one that has
   * ended (undefined). A sweep's backtest goes with its sweep only (409 BACKTEST_IN_SWEEP). The
   * job may run on another replica: it stops there at that replica's next check.
   */
  async deleteBacktest(id: string): Promise<Backtest | undefined> {
    const backtest = await this.backtest(id);
    if (backtest.sweep_id !== null) {
      throw errors.create('backtest_in_sweep', `backtest ${id} belongs to sweep ${backtest.sweep_id}: DELETE /sweeps/${backtest.sweep_id} instead`);
    }
    if (await this.cancel('backtest', id)) return this.backtest(id);
    await this.o.lab.store.deleteBacktest(id);
    return undefined;
  }

  async sweep(id: string): Promise<Sweep> {
    const stored = await this.o.lab.store.sweep(id);
    if (!stored) throw errors.create('sweep_not_found', `no sweep ${id}`);
    return { ...stored, results: await this.results(stored) };
  }

  async sweeps(query: SweepListQuery): Promise<SweepList> {
    const page = await this.o.lab.store.sweeps({ limit: query.limit, before: cursorOf(query.cursor) });
    const sweeps = await Promise.all(
      page.items.map(async ({ walk_forward: _, ...stored }) => {
        const [best] = await this.results({ ...stored, walk_forward: null });
        return { ...stored, best: best?.rank === 1 ? best : null };
      }),
    );
    return { sweeps, next_cursor: page.next === null ? null : String(page.next) };
  }

  /** Cancels a queued or running sweep (answering it, now cancelled) or deletes one that has ended, with its backtests (undefined). */
  async deleteSweep(id: string): Promise<Sweep | undefined> {
    await this.sweep(id);
    if (await this.cancel('sweep', id)) return this.sweep(id);
    await this.o.lab.store.deleteSweep(id);
    return undefined;
  }

  /** Resolves when the check of the jobs that is running, if any, is done (tests). */
  async whenChecked(): Promise<void> {
    await this.checking;
  }

  /** Resolves when no job is queued or running here (tests). */
  whenIdle(): Promise<void> {
    if (this.pending.length === 0 && this.active.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Stops every job: what was queued or running here is failed (INTERRUPTED), as the next start would. */
  async close(): Promise<void> {
    this.isClosed = true;
    if (this.timer) this.o.clock.clearTimer(this.timer);
    this.pending.length = 0;
    const running = [...this.active.values()];
    for (const { job } of running) job.abort.abort(new Stopped('the service is stopping'));
    await Promise.all([this.checking, ...running.map(({ done }) => done)]);
    while (this.writes.size > 0) await Promise.all([...this.writes]);
    await this.o.lab.store.failAbandoned(this.now(), { includeOwn: true });
    await this.telling;
  }

  private async catalog(): Promise<Catalog> {
    try {
      const symbols = await this.o.lab.history.catalog();
      return new Map(symbols.map((s) => [s.symbol, s.digits]));
    } catch (err) {
      throw downstreamFailure(err, 'market-data');
    }
  }

  private checkQueue(): void {
    if (this.isClosed) throw errors.create('lab_queue_full', 'the service is stopping', { headers: { 'retry-after': String(QUEUE_FULL_RETRY_SECONDS) } });
    if (this.pending.length < this.o.config.LAB_MAX_QUEUE) return;
    throw errors.create('lab_queue_full', `${this.pending.length} lab jobs are waiting already (LAB_MAX_QUEUE); retry when one has started`, {
      headers: { 'retry-after': String(QUEUE_FULL_RETRY_SECONDS) },
    });
  }

  private enqueue(job: QueuedJob): void {
    this.pending.push(job);
    this.pump();
  }

  /** Starts queued jobs while fewer than LAB_WORKERS run. */
  private pump(): void {
    while (!this.isClosed && this.active.size < this.o.config.LAB_WORKERS && this.pending.length > 0) {
      const job = this.pending.shift() as QueuedJob;
      const done = job
        .run(job.abort.signal)
        .catch((err: unknown) => this.o.logger.error({ err, id: job.id }, `lab ${job.kind} failed unexpectedly`))
        .finally(() => {
          this.active.delete(job.id);
          this.pump();
          this.notifyIdle();
        });
      this.active.set(job.id, { job, done });
    }
  }

  private notifyIdle(): void {
    if (this.pending.length > 0 || this.active.size > 0) return;
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  /** Stops a job queued or running here (its record is the caller's to move). */
  private stopHere(id: string): void {
    const queued = this.pending.findIndex((job) => job.id === id);
    if (queued >= 0) this.pending.splice(queued, 1);
    this.active.get(id)?.job.abort.abort(new Stopped('cancelled'));
    this.notifyIdle();
  }

  /** Cancels a queued or running job, here or on the replica running it; false when it has ended. */
  private async cancel(kind: JobKind, id: string): Promise<boolean> {
    const { store } = this.o.lab;
    const at = this.now();
    this.stopHere(id);
    if (kind === 'backtest') return this.told('backtest', id, await store.cancelBacktest(id, at));
    if (!(await this.told('sweep', id, await store.cancelSweep(id, at)))) return false;
    for (const { backtest } of await store.sweepBacktests(id)) await this.endMember(backtest.id, () => store.cancelBacktest(backtest.id, at));
    return true;
  }

  /** The next check, JOB_CHECK_MS after the last one ended. */
  private schedule(): void {
    if (this.isClosed) return;
    this.timer = this.o.clock.setTimeout(() => {
      this.checking = this.check().finally(() => {
        this.checking = undefined;
        this.schedule();
      });
    }, JOB_CHECK_MS);
    this.timer.unref();
  }

  /**
   * Renews the leases of the jobs queued or running here and stops those the store no longer
   * has unfinished (cancelled or deleted on another replica); fails other replicas' jobs whose
   * lease ran out (their replica died).
   */
  private async check(): Promise<void> {
    const { store } = this.o.lab;
    try {
      // Only jobs already stored are judged: one queued while the renewal runs is not in its answer yet.
      const here = [...this.pending.map((job) => job.id), ...this.active.keys()];
      if (here.length > 0) {
        const unfinished = await store.renewLeases(this.stamps().leaseExpiresAt);
        for (const id of here) if (!unfinished.has(id)) this.stopHere(id);
      }
      const failed = await store.failAbandoned(this.now(), { includeOwn: false });
      if (failed.backtests.length + failed.sweeps.length > 0) this.o.logger.warn(failed, 'lab jobs of a replica that stopped answering marked failed');
      await this.tellFailed(failed);
    } catch (err) {
      this.o.logger.warn({ err }, 'checking the lab jobs failed; trying again');
    }
  }

  private async tellFailed(failed: FailedJobs): Promise<void> {
    for (const id of failed.sweeps) await this.told('sweep', id);
    for (const id of failed.backtests) await this.told('backtest', id);
  }

  /**
   * Tells the listener a job's state as the store has it now, when `changed`; answers `changed`.
   * `ifRunning`: only while it runs (progress written as it is cancelled is no news).
   */
  private async told(kind: LabEvent['kind'], id: string, changed = true, ifRunning = false): Promise<boolean> {
    const { listener } = this.o;
    if (!changed || !listener) return changed;
    const telling = this.telling.then(async () => {
      const state = await this.o.lab.store.jobState(kind, id);
      if (state && (!ifRunning || state.status === 'running')) listener.labChanged({ kind, id, ...state });
    });
    this.telling = telling.catch((err: unknown) => this.o.logger.warn({ err, id }, 'reading a lab job for its event failed'));
    await this.telling;
    return changed;
  }

  /** Ends a sweep's backtest (cancelled, failed), told when it had started: its queued state never was. */
  private async endMember(id: string, end: () => Promise<boolean>): Promise<void> {
    const hasStarted = (await this.o.lab.store.jobState('backtest', id))?.status === 'running';
    if ((await end()) && hasStarted) await this.told('backtest', id);
  }

  private async runBacktest(id: string, plan: BacktestPlan, signal: AbortSignal): Promise<void> {
    const { store } = this.o.lab;
    if (!(await this.told('backtest', id, await store.startBacktest(id, this.now())))) return;
    const progress = this.progressWriter('backtest', id);
    const startedMs = this.o.clock.now();
    try {
      const candles = await this.load(plan, (f) => progress(f * LOAD_SHARE), signal);
      const result = await this.run(jobOf(plan, candles, plan.rules), (f) => progress(LOAD_SHARE + f * (1 - LOAD_SHARE)), signal);
      if (await this.told('backtest', id, await store.finishBacktest(id, result, this.now()))) {
        this.o.logger.info({ id, trades: result.trades.length, candles: result.candles, ms: this.o.clock.now() - startedMs }, 'backtest done');
      }
    } catch (err) {
      if (signal.aborted) return;
      const error = jobError(err);
      await this.told('backtest', id, await store.failBacktest(id, error, this.now()));
      this.o.logger.warn({ id, err }, `backtest failed: ${error.message}`);
    }
  }

  /**
   * A sweep: its candles loaded once; every setting over the whole range (its member backtests)
   * and, with a walk-forward, every setting on each window's in-sample part (metrics kept in
   * memory), then the window's best on its out-of-sample part (a backtest of the sweep). At most
   * LAB_WORKERS backtests are on the runner at once; a member that fails is failed alone.
   */
  private async runSweep(id: string, plan: SweepPlan, memberIds: string[], rankBy: RankMetric, signal: AbortSignal): Promise<void> {
    const { store } = this.o.lab;
    if (!(await this.told('sweep', id, await store.startSweep(id, this.now())))) return;
    const windows = plan.windows;
    const units = plan.settings.length * (1 + windows.length) + windows.length;
    const partial = new Map<string, number>();
    let finished = 0;
    const write = this.progressWriter('sweep', id);
    const report = () => write(LOAD_SHARE + ((1 - LOAD_SHARE) * (finished + [...partial.values()].reduce((a, b) => a + b, 0))) / units);
    const unit = async <T>(key: string, work: (onProgress: (f: number) => void) => Promise<T>): Promise<T> => {
      try {
        return await work((f) => {
          partial.set(key, f);
          report();
        });
      } finally {
        partial.delete(key);
        finished++;
        report();
      }
    };

    try {
      const candles = await this.load(plan.base, (f) => write(f * LOAD_SHARE), signal);
      const inSample = windows.map(() => new Array<number | null>(plan.settings.length).fill(null));
      const chosen: WindowChoice[] = [];
      const tasks: Array<() => Promise<void>> = [];
      plan.settings.forEach((rules, index) => {
        const memberId = memberIds[index] as string;
        tasks.push(() => unit(memberId, (onProgress) => this.runMember(memberId, jobOf(plan.base, candles, rules), onProgress, signal)));
      });
      const inSampleCandles = windows.map((w) => sliceCandles(candles, w.inSample, plan.base.warmup));
      const outOfSampleCandles = windows.map((w) => sliceCandles(candles, w.outOfSample, plan.base.warmup));
      const remaining = windows.map(() => plan.settings.length);
      windows.forEach((window, w) => {
        const range = { fromSec: window.inSample.fromSec, toSec: window.inSample.toSec };
        plan.settings.forEach((rules, index) => {
          tasks.push(() =>
            unit(`in-sample ${w} ${index}`, async (onProgress) => {
              const job = { ...jobOf(plan.base, inSampleCandles[w] as LoadedCandles, rules), ...range };
              const result = await this.run(job, onProgress, signal).catch((err: unknown) => {
                if (signal.aborted) throw err;
                this.o.logger.warn({ id, window: w, index, err }, 'sweep in-sample run failed');
                return null;
              });
              (inSample[w] as Array<number | null>)[index] = result ? metricOf(result, rankBy) : null;
              remaining[w] = (remaining[w] as number) - 1;
              if (remaining[w] === 0)
                tasks.push(() => unit(`out-of-sample ${w}`, (p) => this.runWindow(id, plan, w, outOfSampleCandles, inSample, rankBy, chosen, p, signal)));
            }),
          );
        });
      });
      await runLimited(tasks, this.o.config.LAB_WORKERS, signal);
      if (windows.length > 0) await store.setWalkForward(id, walkForwardOf(windows, chosen, rankBy));
      await this.told('sweep', id, await store.finishSweep(id, this.now()));
      this.o.logger.info({ id, settings: plan.settings.length, windows: windows.length }, 'sweep done');
    } catch (err) {
      if (signal.aborted) return;
      const error = jobError(err);
      await this.told('sweep', id, await store.failSweep(id, error, this.now()));
      for (const memberId of memberIds) await this.endMember(memberId, () => store.failBacktest(memberId, error, this.now()));
      this.o.logger.warn({ id, err }, `sweep failed: ${error.message}`);
    }
  }

  /** One setting of a sweep over its whole range, stored as its backtest. */
  private async runMember(id: string, job: BacktestJob, onProgress: (f: number) => void, signal: AbortSignal): Promise<void> {
    const { store } = this.o.lab;
    if (!(await this.told('backtest', id, await store.startBacktest(id, this.now())))) return;
    const progress = this.progressWriter('backtest', id);
    try {
      const result = await this.run(
        job,
        (f) => {
          onProgress(f);
          progress(f);
        },
        signal,
      );
      await this.told('backtest', id, await store.finishBacktest(id, result, this.now()));
    } catch (err) {
      if (signal.aborted) throw err;
      await this.told('backtest', id, await store.failBacktest(id, jobError(err), this.now()));
    }
  }

  /** A walk-forward window's choice (the best in-sample) run on its out-of-sample part, as a backtest of the sweep. */
  private async runWindow(
    sweepId: string,
    plan: SweepPlan,
    w: number,
    outOfSampleCandles: LoadedCandles[],
    inSample: Array<Array<number | null>>,
    rankBy: RankMetric,
    chosen: WindowChoice[],
    onProgress: (f: number) => void,
    signal: AbortSignal,
  ): Promise<void> {
    const { store } = this.o.lab;
    const window = plan.windows[w] as WalkForwardWindow;
    const values = inSample[w] as Array<number | null>;
    const best = rankOrder(values, rankBy)[0] as number;
    const rules = plan.settings[best] as StrategyRules;
    const id = randomUUID();
    const settings = { ...plan.base.settings, rules: apiRules(rules), from: isoOf(window.outOfSample.fromSec), to: isoOf(window.outOfSample.toSec) };
    await store.insertBacktest({ id, name: null, settings, ...this.stamps(), sweep: { id: sweepId, role: 'out_of_sample', index: w } });
    const choice: WindowChoice = { window: w, rules: apiRules(rules), inSampleMetric: values[best] ?? null, backtestId: id, result: null };
    chosen.push(choice);
    await store.setWalkForward(sweepId, walkForwardOf(plan.windows, chosen));
    await this.runMember(id, { ...jobOf(plan.base, outOfSampleCandles[w] as LoadedCandles, rules), ...window.outOfSample }, onProgress, signal);
    const backtest = await store.backtest(id);
    choice.result = backtest?.metrics?.overall ?? null;
    await store.setWalkForward(sweepId, walkForwardOf(plan.windows, chosen));
  }

  /**
   * Writes a job's progress (by steps, {@link progressWriter}) and tells it while the job runs,
   * one write at a time (the newest next), so the store never goes back.
   */
  private progressWriter(kind: LabEvent['kind'], id: string): (fraction: number) => void {
    const { store } = this.o.lab;
    const write = latestWrite(
      async (fraction: number) => {
        await (kind === 'backtest' ? store.setBacktestProgress(id, fraction) : store.setSweepProgress(id, fraction));
        await this.told(kind, id, true, true);
      },
      { onError: (err) => this.o.logger.warn({ err, id }, 'writing a lab job’s progress failed'), pending: this.writes },
    );
    return progressWriter(write);
  }

  /** A backtest on the runner; a cancelled signal rejects at once. */
  private run(job: BacktestJob, onProgress: (f: number) => void, signal: AbortSignal): Promise<BacktestResult> {
    signal.throwIfAborted();
    return this.o.lab.runner.run(job, { onProgress, signal });
  }

  /**
   * The candles of a plan's pairs as columns, one pair after another: `warmup` candles before
   * fromSec (read from early enough to cover weekends), then those of [fromSec, toSec), a part of
   * LOAD_PART_CANDLES periods at a time. Settles at once when the signal aborts, whatever the
   * market is doing.
   */
  private async load(plan: BacktestPlan, onProgress: (f: number) => void, signal: AbortSignal): Promise<LoadedCandles> {
    const all = [...plan.pairs, ...plan.conversion];
    const loaded: BacktestPair[] = [];
    const partSec = LOAD_PART_CANDLES * TIMEFRAME_SECONDS[plan.timeframe];
    const parts: Array<[number, number]> = [[plan.fromSec - calendarSpanSec(plan.warmup, plan.timeframe), plan.fromSec]];
    for (let fromSec = plan.fromSec; fromSec < plan.toSec; fromSec += partSec) parts.push([fromSec, Math.min(plan.toSec, fromSec + partSec)]);
    // Room for what the plan counted: the columns are made once when the history has them all.
    const expected = plan.warmup + candlesBetween(plan.timeframe, plan.fromSec, plan.toSec, this.o.lab.hours);
    for (const [i, pair] of all.entries()) {
      const columns = new ColumnsBuilder(expected);
      for (const [p, [fromSec, toSec]] of parts.entries()) {
        const reading = this.o.lab.history.candles(pair.symbol, plan.timeframe, fromSec, toSec, (f) => onProgress((i + (p + f) / parts.length) / all.length));
        const candles = await untilAborted(reading, signal).catch((err: unknown) => {
          if (signal.aborted) throw err;
          throw new CandlesUnavailable(`the market could not give the candles of ${pair.symbol}: ${err instanceof Error ? err.message : String(err)}`, {
            cause: err,
          });
        });
        // Of the warm-up's part, its last `warmup` candles.
        for (let k = p === 0 ? Math.max(0, candles.length - plan.warmup) : 0; k < candles.length; k++) columns.push(candles[k] as LabCandle);
      }
      loaded.push(pairOf(pair, columns.finish()));
      onProgress((i + 1) / all.length);
    }
    return { pairs: loaded.slice(0, plan.pairs.length), conversion: loaded.slice(plan.pairs.length) };
  }

  /** A sweep's ranking: its member backtests, best first by the metric; those not done yet last, unranked. */
  private async results(sweep: StoredSweep): Promise<SweepResult[]> {
    const rankBy = sweep.settings.rank_by;
    const members = (await this.o.lab.store.sweepBacktests(sweep.id)).filter((m) => m.role === 'member');
    const values = members.map(({ backtest }) => (backtest.status === 'done' && backtest.metrics ? metricValue(backtest.metrics.overall, rankBy) : null));
    const done = members.map(({ backtest }) => backtest.status === 'done');
    const order = rankOrder(values, rankBy).sort((a, b) => Number(done[b]) - Number(done[a]));
    let rank = 0;
    return order.map((index) => {
      const { backtest } = members[index] as (typeof members)[number];
      return {
        rank: done[index] ? ++rank : null,
        rules: backtest.settings.rules,
        backtest_id: backtest.id,
        status: backtest.status,
        metric: values[index] ?? null,
      };
    });
  }

  private now(): string {
    return new Date(this.o.clock.now()).toISOString();
  }

  /** A new job's creation time and its first lease. */
  private stamps(): { createdAt: string; leaseExpiresAt: string } {
    const now = this.o.clock.now();
    return { createdAt: new Date(now).toISOString(), leaseExpiresAt: new Date(now + JOB_LEASE_MS).toISOString() };
  }
}

/** A walk-forward window's chosen settings and, once run, their out-of-sample figures. */
interface WindowChoice {
  window: number;
  rules: LabRules;
  inSampleMetric: number | null;
  backtestId: string;
  /** The out-of-sample backtest's overall metrics, once it is done. */
  result: LabMetrics | null;
}

function walkForwardOf(windows: WalkForwardWindow[], chosen: WindowChoice[], rankBy?: RankMetric): WalkForwardResult {
  const choiceOf = (w: number) => chosen.find((c) => c.window === w);
  const rows = windows.map((window) => {
    const choice = choiceOf(window.index);
    return {
      index: window.index,
      in_sample: { from: isoOf(window.inSample.fromSec), to: isoOf(window.inSample.toSec) },
      out_of_sample: { from: isoOf(window.outOfSample.fromSec), to: isoOf(window.outOfSample.toSec) },
      chosen: choice
        ? {
            rules: choice.rules,
            in_sample_metric: choice.inSampleMetric,
            out_of_sample_metric: choice.result && rankBy ? metricValue(choice.result, rankBy) : null,
            backtest_id: choice.backtestId,
          }
        : null,
    };
  });
  const results = chosen.map((c) => c.result);
  const total =
    rankBy === undefined || results.length < windows.length
      ? null
      : {
          metric: outOfSampleTotal(
            results.map((m) => (m ? metricValue(m, rankBy) : null)),
            rankBy,
          ),
          net_profit: results.reduce((sum, m) => sum + (m?.net_profit ?? 0), 0),
          trade_count: results.reduce((sum, m) => sum + (m?.trade_count ?? 0), 0),
        };
  return { windows: rows, out_of_sample_total: total };
}

function metricOf(result: BacktestResult, rankBy: RankMetric): number | null {
  return metricValue(result.metrics.overall, rankBy);
}

function metricValue(metrics: Record<RankMetric, number | null>, rankBy: RankMetric): number | null {
  const value = metrics[rankBy];
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/** Runs the tasks (a list that may grow while it runs) at most `limit` at a time; the first failure stops the rest. */
async function runLimited(tasks: Array<() => Promise<void>>, limit: number, signal: AbortSignal): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < tasks.length) {
      signal.throwIfAborted();
      const task = tasks[next++] as () => Promise<void>;
      await task();
    }
  };
  // A lane that finds no task may quit while another's task is about to add more: lanes start again until none is left.
  while (next < tasks.length) await Promise.all(Array.from({ length: Math.min(limit, tasks.length - next) }, lane));
}

function jobOf(plan: BacktestPlan, candles: LoadedCandles, rules: StrategyRules): BacktestJob {
  return {
    timeframe: plan.timeframe,
    pairs: candles.pairs,
    conversion: candles.conversion,
    rules,
    fills: plan.settings.fill_model,
    initialBalance: plan.settings.initial_balance,
    accountCurrency: plan.settings.account_currency,
    fromSec: plan.fromSec,
    toSec: plan.toSec,
  };
}

function pairOf(pair: PlannedPair, candles: CandleColumns): BacktestPair {
  return { instrument: pair.instrument, symbol: pair.symbol, digits: pair.digits, candles };
}

/**
 * A part of a walk-forward window as a backtest of that range alone would read it: `warmup`
 * candles before fromSec, then those up to toSec. The same arrays serve every setting.
 */
function sliceCandles(candles: LoadedCandles, { fromSec, toSec }: { fromSec: number; toSec: number }, warmup: number): LoadedCandles {
  const slice = (pair: BacktestPair): BacktestPair => {
    const start = Math.max(0, firstAtOrAfter(pair.candles.time, fromSec) - warmup);
    return { ...pair, candles: sliceColumns(pair.candles, start, firstAtOrAfter(pair.candles.time, toSec)) };
  };
  return { pairs: candles.pairs.map(slice), conversion: candles.conversion.map(slice) };
}

function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** Writes a job's progress when it moved by a step or reached the end, never backwards. */
function progressWriter(write: (fraction: number) => void): (fraction: number) => void {
  let written = 0;
  return (fraction) => {
    if (fraction < written + PROGRESS_STEP && fraction < 1) return;
    written = Math.min(1, fraction);
    write(written);
  };
}

/** A job's failure as its record shows it: the market's history failing is CANDLES_UNAVAILABLE. */
function jobError(err: unknown): LabJobError {
  if (err instanceof CandlesUnavailable) return { code: 'CANDLES_UNAVAILABLE', message: err.message };
  return { code: 'FAILED', message: err instanceof Error ? err.message : String(err) };
}

/** The market could not give a job's candles. */
class CandlesUnavailable extends Error {}

function cursorOf(cursor: string | undefined): number | undefined {
  return cursor === undefined ? undefined : Number(cursor);
}

function isoOf(sec: number): string {
  return new Date(sec * 1000).toISOString();
}
