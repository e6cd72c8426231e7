import { randomUUID } from 'node:crypto';
import type { Clock } from '@fxdesk/primitives';
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
import type { Logger } from 'pino';
import type { StrategyConfig } from '../config.js';
import { downstreamFailure, errors } from '../errors.js';
import type { StrategyRules } from '../rules.js';
import { calendarSpanSec, firstAtOrAfter, type LabHistory } from './candles.js';
import { backtestCandles } from './chart.js';
import { apiRules, planBacktest, planSweep, type BacktestPlan, type Catalog, type PlanConfig, type PlannedPair, type SweepPlan } from './plan.js';
import type { LabStore, StoredSweep } from './store.js';
import { outOfSampleTotal, rankOrder, type WalkForwardWindow } from './sweep.js';
import type { BacktestJob, BacktestPair, BacktestResult, LabCandle } from './types.js';

/** Runs one backtest off the event loop: the LabPool (lab/pool.ts), or a test's stand-in. */
export interface LabRunner {
  run(job: BacktestJob, options?: { onProgress?: (fraction: number) => void; signal?: AbortSignal }): Promise<BacktestResult>;
}

/** What the lab is made of: its store, its candles and its threads. */
export interface LabDeps {
  store: LabStore;
  history: LabHistory;
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

/** Seconds a client is told to wait when the queue is full. */
const QUEUE_FULL_RETRY_SECONDS = 30;

interface QueuedJob {
  kind: 'backtest' | 'sweep';
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
 * The strategy lab's jobs: backtests and sweeps, queued (at most LAB_MAX_QUEUE waiting), up to
 * LAB_WORKERS at a time, each loading its candles once (warm-up included) and running every
 * backtest on the runner's worker threads, never on the event loop. Every state change is in
 * the store, so results outlive the process; a job the process was running when it stopped is
 * failed (INTERRUPTED) when the next one starts.
 */
export class LabJobs {
  private readonly pending: QueuedJob[] = [];
  private readonly active = new Map<string, { job: QueuedJob; done: Promise<void> }>();
  private readonly idleWaiters: Array<() => void> = [];
  private isClosed = false;

  constructor(private readonly o: { config: LabConfig; lab: LabDeps; clock: Clock; logger: Logger; listener?: LabListener }) {
    const interrupted = o.lab.store.interruptUnfinished(this.now());
    if (interrupted.backtests + interrupted.sweeps > 0) o.logger.warn(interrupted, 'lab jobs interrupted by the last stop marked failed');
  }

  /** Checks and queues a backtest; 422 for a request that cannot run, 503 LAB_QUEUE_FULL when the queue is. */
  async submitBacktest(request: BacktestRequest): Promise<LabJobCreated> {
    const plan = planBacktest(request, { config: this.o.config, catalog: await this.catalog(), nowMs: this.o.clock.now() });
    this.checkQueue();
    const id = randomUUID();
    this.o.lab.store.insertBacktest({ id, name: request.name ?? null, settings: plan.settings, createdAt: this.now() });
    this.told('backtest', id);
    this.enqueue({ kind: 'backtest', id, abort: new AbortController(), run: (signal) => this.runBacktest(id, plan, signal) });
    return { id };
  }

  /** Checks and queues a sweep with its backtests (each queued, openable at once). */
  async submitSweep(request: SweepRequest): Promise<LabJobCreated> {
    const plan = planSweep(request, { config: this.o.config, catalog: await this.catalog(), nowMs: this.o.clock.now() });
    this.checkQueue();
    const { store } = this.o.lab;
    const id = randomUUID();
    const createdAt = this.now();
    const memberIds = plan.settings.map(() => randomUUID());
    store.transaction(() => {
      store.insertSweep({
        id,
        name: request.name ?? null,
        settingsCount: plan.settings.length,
        createdAt,
        settings: {
          base: plan.base.settings,
          grid: request.grid ?? null,
          random: request.random ?? null,
          rank_by: request.rank_by,
          walk_forward: request.walk_forward ?? null,
        },
      });
      plan.settings.forEach((rules, index) => {
        const settings = { ...plan.base.settings, rules: apiRules(rules) };
        store.insertBacktest({ id: memberIds[index] as string, name: null, settings, createdAt, sweep: { id, role: 'member', index } });
      });
      if (plan.windows.length > 0) store.setWalkForward(id, walkForwardOf(plan.windows, []));
    });
    // Its backtests are told from when they start: 256 `queued` events at once would say nothing the sweep's does not.
    this.told('sweep', id);
    this.enqueue({ kind: 'sweep', id, abort: new AbortController(), run: (signal) => this.runSweep(id, plan, memberIds, request.rank_by, signal) });
    return { id };
  }

  backtest(id: string): Backtest {
    const backtest = this.o.lab.store.backtest(id);
    if (!backtest) throw errors.create('backtest_not_found', `no backtest ${id}`);
    return backtest;
  }

  backtests(query: BacktestListQuery): BacktestList {
    const page = this.o.lab.store.backtests({ limit: query.limit, before: cursorOf(query.cursor), sweepId: query.sweep_id });
    return { backtests: page.items, next_cursor: page.next === null ? null : String(page.next) };
  }

  trades(id: string, query: BacktestTradesQuery): BacktestTrades {
    this.backtest(id);
    const page = this.o.lab.store.trades(id, { limit: query.limit, after: cursorOf(query.cursor), instrument: query.instrument });
    return { trades: page.items, next_cursor: page.next === null ? null : String(page.next) };
  }

  /** Most candles {@link candles} answers (CHART_CANDLES). */
  get chartCandles(): number {
    return this.o.config.CHART_CANDLES;
  }

  /** One pair's candles of a backtest with the indicators on its rules, for a chart (lab/chart.ts). */
  async candles(id: string, query: BacktestCandlesQuery): Promise<PairCandles> {
    return backtestCandles(this.backtest(id), query, { history: this.o.lab.history, catalog: () => this.catalog(), symbolMap: this.o.config.SYMBOL_MAP });
  }

  equity(id: string): BacktestEquity {
    const points = this.o.lab.store.equity(id);
    if (points === undefined) throw errors.create('backtest_not_found', `no backtest ${id}`);
    return { points };
  }

  /**
   * Cancels a queued or running backtest (answering it, now cancelled) or deletes one that has
   * ended (undefined). A sweep's backtest goes with its sweep only (409 BACKTEST_IN_SWEEP).
   */
  deleteBacktest(id: string): Backtest | undefined {
    const backtest = this.backtest(id);
    if (backtest.sweep_id !== null) {
      throw errors.create('backtest_in_sweep', `backtest ${id} belongs to sweep ${backtest.sweep_id}: DELETE /sweeps/${backtest.sweep_id} instead`);
    }
    if (this.cancel(id)) return this.backtest(id);
    this.o.lab.store.deleteBacktest(id);
    return undefined;
  }

  sweep(id: string): Sweep {
    const stored = this.o.lab.store.sweep(id);
    if (!stored) throw errors.create('sweep_not_found', `no sweep ${id}`);
    return { ...stored, results: this.results(stored) };
  }

  sweeps(query: SweepListQuery): SweepList {
    const page = this.o.lab.store.sweeps({ limit: query.limit, before: cursorOf(query.cursor) });
    const sweeps = page.items.map(({ walk_forward: _, ...stored }) => {
      const best = this.results({ ...stored, walk_forward: null })[0];
      return { ...stored, best: best?.rank === 1 ? best : null };
    });
    return { sweeps, next_cursor: page.next === null ? null : String(page.next) };
  }

  /** Cancels a queued or running sweep (answering it, now cancelled) or deletes one that has ended, with its backtests (undefined). */
  deleteSweep(id: string): Sweep | undefined {
    this.sweep(id);
    if (this.cancel(id)) return this.sweep(id);
    this.o.lab.store.deleteSweep(id);
    return undefined;
  }

  /** Resolves when no job is queued or running (tests). */
  whenIdle(): Promise<void> {
    if (this.pending.length === 0 && this.active.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Stops every job: what was queued or running is failed (INTERRUPTED), as the next start would. */
  async close(): Promise<void> {
    this.isClosed = true;
    this.pending.length = 0;
    const running = [...this.active.values()];
    for (const { job } of running) job.abort.abort(new Stopped('the service is stopping'));
    this.o.lab.store.interruptUnfinished(this.now());
    await Promise.all(running.map(({ done }) => done));
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

  /** Cancels a queued or running job; false when it has ended. */
  private cancel(id: string): boolean {
    const { store } = this.o.lab;
    const at = this.now();
    const queued = this.pending.findIndex((job) => job.id === id);
    if (queued >= 0) this.pending.splice(queued, 1);
    this.active.get(id)?.job.abort.abort(new Stopped('cancelled'));
    this.notifyIdle();
    if (!store.sweep(id)) return this.told('backtest', id, store.cancelBacktest(id, at));
    if (!this.told('sweep', id, store.cancelSweep(id, at))) return false;
    for (const { backtest } of store.sweepBacktests(id)) this.endMember(backtest.id, () => store.cancelBacktest(backtest.id, at));
    return true;
  }

  /**
   * Tells the listener a job's state as the store has it now, when `changed`; answers `changed`.
   * `ifRunning`: only while it runs (progress written as it is cancelled is no news).
   */
  private told(kind: LabEvent['kind'], id: string, changed = true, ifRunning = false): boolean {
    if (!changed || !this.o.listener) return changed;
    const state = this.o.lab.store.jobState(kind, id);
    if (state && (!ifRunning || state.status === 'running')) this.o.listener.labChanged({ kind, id, ...state });
    return changed;
  }

  /** Ends a sweep's backtest (cancelled, failed), told when it had started: its queued state never was. */
  private endMember(id: string, end: () => boolean): void {
    const hasStarted = this.o.lab.store.jobState('backtest', id)?.status === 'running';
    if (end() && hasStarted) this.told('backtest', id);
  }

  private async runBacktest(id: string, plan: BacktestPlan, signal: AbortSignal): Promise<void> {
    const { store } = this.o.lab;
    if (!this.told('backtest', id, store.startBacktest(id, this.now()))) return;
    const progress = this.progressWriter('backtest', id);
    const startedMs = this.o.clock.now();
    try {
      const candles = await this.load(plan, (f) => progress(f * LOAD_SHARE), signal);
      const result = await this.run(jobOf(plan, candles, plan.rules), (f) => progress(LOAD_SHARE + f * (1 - LOAD_SHARE)), signal);
      if (this.told('backtest', id, store.finishBacktest(id, result, this.now()))) {
        this.o.logger.info({ id, trades: result.trades.length, candles: result.candles, ms: this.o.clock.now() - startedMs }, 'backtest done');
      }
    } catch (err) {
      if (signal.aborted) return;
      const error = jobError(err);
      this.told('backtest', id, store.failBacktest(id, error, this.now()));
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
    if (!this.told('sweep', id, store.startSweep(id, this.now()))) return;
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
      if (windows.length > 0) store.setWalkForward(id, walkForwardOf(windows, chosen, rankBy));
      this.told('sweep', id, store.finishSweep(id, this.now()));
      this.o.logger.info({ id, settings: plan.settings.length, windows: windows.length }, 'sweep done');
    } catch (err) {
      if (signal.aborted) return;
      const error = jobError(err);
      this.told('sweep', id, store.failSweep(id, error, this.now()));
      for (const memberId of memberIds) this.endMember(memberId, () => store.failBacktest(memberId, error, this.now()));
      this.o.logger.warn({ id, err }, `sweep failed: ${error.message}`);
    }
  }

  /** One setting of a sweep over its whole range, stored as its backtest. */
  private async runMember(id: string, job: BacktestJob, onProgress: (f: number) => void, signal: AbortSignal): Promise<void> {
    const { store } = this.o.lab;
    if (!this.told('backtest', id, store.startBacktest(id, this.now()))) return;
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
      this.told('backtest', id, store.finishBacktest(id, result, this.now()));
    } catch (err) {
      if (signal.aborted) throw err;
      this.told('backtest', id, store.failBacktest(id, jobError(err), this.now()));
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
    store.insertBacktest({ id, name: null, settings, createdAt: this.now(), sweep: { id: sweepId, role: 'out_of_sample', index: w } });
    const choice: WindowChoice = { window: w, rules: apiRules(rules), inSampleMetric: values[best] ?? null, backtestId: id, result: null };
    chosen.push(choice);
    store.setWalkForward(sweepId, walkForwardOf(plan.windows, chosen));
    await this.runMember(id, { ...jobOf(plan.base, outOfSampleCandles[w] as LoadedCandles, rules), ...window.outOfSample }, onProgress, signal);
    const backtest = store.backtest(id);
    choice.result = backtest?.metrics?.overall ?? null;
    store.setWalkForward(sweepId, walkForwardOf(plan.windows, chosen));
  }

  /** Writes a job's progress (by steps, {@link progressWriter}) and tells it while the job runs. */
  private progressWriter(kind: LabEvent['kind'], id: string): (fraction: number) => void {
    const { store } = this.o.lab;
    return progressWriter((fraction) => {
      if (kind === 'backtest') store.setBacktestProgress(id, fraction);
      else store.setSweepProgress(id, fraction);
      this.told(kind, id, true, true);
    });
  }

  /** A backtest on the runner; a cancelled signal rejects at once. */
  private run(job: BacktestJob, onProgress: (f: number) => void, signal: AbortSignal): Promise<BacktestResult> {
    signal.throwIfAborted();
    return this.o.lab.runner.run(job, { onProgress, signal });
  }

  /**
   * The candles of a plan's pairs, one pair after another: `warmup` candles before fromSec (read
   * from early enough to cover weekends), then those of [fromSec, toSec). Settles at once when
   * the signal aborts, whatever the market is doing.
   */
  private async load(plan: BacktestPlan, onProgress: (f: number) => void, signal: AbortSignal): Promise<LoadedCandles> {
    const all = [...plan.pairs, ...plan.conversion];
    const loaded: BacktestPair[] = [];
    const spanSec = calendarSpanSec(plan.warmup, plan.timeframe);
    for (const [i, pair] of all.entries()) {
      const reading = this.o.lab.history.candles(pair.symbol, plan.timeframe, plan.fromSec - spanSec, plan.toSec, (f) => onProgress((i + f) / all.length));
      const candles = await untilAborted(reading, signal).catch((err: unknown) => {
        if (signal.aborted) throw err;
        throw new CandlesUnavailable(`the market could not give the candles of ${pair.symbol}: ${err instanceof Error ? err.message : String(err)}`, {
          cause: err,
        });
      });
      loaded.push(pairOf(pair, trimWarmup(candles, plan.fromSec, plan.warmup)));
      onProgress((i + 1) / all.length);
    }
    return { pairs: loaded.slice(0, plan.pairs.length), conversion: loaded.slice(plan.pairs.length) };
  }

  /** A sweep's ranking: its member backtests, best first by the metric; those not done yet last, unranked. */
  private results(sweep: StoredSweep): SweepResult[] {
    const rankBy = sweep.settings.rank_by;
    const members = this.o.lab.store.sweepBacktests(sweep.id).filter((m) => m.role === 'member');
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

function pairOf(pair: PlannedPair, candles: LabCandle[]): BacktestPair {
  return { instrument: pair.instrument, symbol: pair.symbol, digits: pair.digits, candles };
}

/** The candles from `warmup` before fromSec on. */
function trimWarmup(candles: LabCandle[], fromSec: number, warmup: number): LabCandle[] {
  const start = Math.max(0, firstAtOrAfter(candles, fromSec) - warmup);
  return start === 0 ? candles : candles.slice(start);
}

/**
 * A part of a walk-forward window as a backtest of that range alone would read it: `warmup`
 * candles before fromSec, then those up to toSec. The same arrays serve every setting.
 */
function sliceCandles(candles: LoadedCandles, { fromSec, toSec }: { fromSec: number; toSec: number }, warmup: number): LoadedCandles {
  const slice = (pair: BacktestPair): BacktestPair => {
    const start = Math.max(0, firstAtOrAfter(pair.candles, fromSec) - warmup);
    return { ...pair, candles: pair.candles.slice(start, firstAtOrAfter(pair.candles, toSec)) };
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
