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
  PairCandles,
  Sweep,
  SweepList,
  SweepListQuery,
  SweepRequest,
} from '@fxdesk/schemas';
import type { Logger } from 'pino';
import type { StrategyConfig } from '../config.js';
import { errors } from '../errors.js';
import { BacktestRunner } from './backtest-runner.js';
import { JobEvents, type LabListener } from './job-events.js';
import { apiRules } from '../rules.js';
import { planBacktest, planSweep, type HistoryHours, type PlanConfig } from './plan.js';
import { LabReads } from './reads.js';
import { isoNow, jobStamps, LabScheduler } from './scheduler.js';
import type { JobKind, LabStore } from './store.js';
import { SweepRunner, walkForwardOf } from './sweep-runner.js';
import { resolveSource, type LabHistories } from './sources.js';
import type { LabSymbolTerms } from './symbol-terms.js';
import type { BacktestJob, BacktestResult } from './types.js';

export { JOB_CHECK_MS, JOB_LEASE_MS } from './scheduler.js';

/** Runs one backtest off the event loop: the LabPool (lab/pool.ts), or a test's stand-in. */
export interface LabRunner {
  run(job: BacktestJob, options?: { onProgress?: (fraction: number) => void; signal?: AbortSignal }): Promise<BacktestResult>;
}

/** What the lab is made of: its store, its candles (and when the history has them) and its threads. */
export interface LabDeps extends LabHistories {
  store: LabStore;
  /** The history's hours, by which a request's candles are counted against LAB_MAX_CANDLES. */
  hours: HistoryHours;
  runner: LabRunner;
  /** The venue's volume terms for sizing by risk: the execution service's (EXECUTION_URL); absent, the simulated terminal's. */
  terms?: LabSymbolTerms;
}

export type LabConfig = PlanConfig & Pick<StrategyConfig, 'LAB_WORKERS' | 'LAB_MAX_QUEUE' | 'CHART_CANDLES'>;

/**
 * The strategy lab's jobs: backtests and sweeps, checked and planned as they are posted, then
 * queued and run here (lab/scheduler.ts), each loading its candles once (warm-up included) and
 * running every backtest on the runner's worker threads, never on the event loop
 * (lab/backtest-runner.ts, lab/sweep-runner.ts). Every state change is in the store, so results
 * outlive the process and every replica on the store reads them (lab/reads.ts). A job runs on
 * the replica that queued it, which renews its lease every JOB_CHECK_MS and stops it when the
 * store says another replica cancelled it; a job whose replica stopped is failed (INTERRUPTED):
 * by that replica at its next start, or by any other once its lease has passed.
 */
export class LabJobs {
  private readonly events: JobEvents;
  private readonly scheduler: LabScheduler;
  private readonly reads: LabReads;
  private readonly backtestRunner: BacktestRunner;
  private readonly sweepRunner: SweepRunner;

  constructor(private readonly options: { config: LabConfig; lab: LabDeps; clock: Clock; logger: Logger; listener?: LabListener }) {
    const { config, lab, clock, logger, listener } = options;
    this.events = new JobEvents({ store: lab.store, logger, listener });
    this.scheduler = new LabScheduler({ config, store: lab.store, clock, logger, events: this.events });
    this.reads = new LabReads({ config, lab });
    this.backtestRunner = new BacktestRunner({ lab, clock, logger, events: this.events });
    this.sweepRunner = new SweepRunner({ config, lab, clock, logger, events: this.events });
  }

  /** At the service's start: fails the jobs no replica runs any more (this one's from before a restart included), then checks every JOB_CHECK_MS. */
  start(): Promise<void> {
    return this.scheduler.start();
  }

  /** Checks and queues a backtest; 422 for a request that cannot run, 503 LAB_QUEUE_FULL when the queue is. */
  async submitBacktest(request: BacktestRequest): Promise<LabJobCreated> {
    const { config, lab, clock } = this.options;
    const planned = planBacktest(request, { config, catalog: await this.reads.catalog(), hours: lab.hours, nowMs: clock.now() });
    const plan = { ...planned, settings: { ...planned.settings, source: await resolveSource(lab, request.source, planned) } };
    this.scheduler.checkQueue();
    const id = randomUUID();
    await lab.store.insertBacktest({ id, name: request.name ?? null, settings: plan.settings, ...jobStamps(clock) });
    await this.events.told('backtest', id);
    this.scheduler.enqueue('backtest', id, (signal) => this.backtestRunner.run(id, plan, signal));
    return { id };
  }

  /** Checks and queues a sweep with its backtests (each queued, openable at once). */
  async submitSweep(request: SweepRequest): Promise<LabJobCreated> {
    const { config, lab, clock } = this.options;
    const planned = planSweep(request, { config, catalog: await this.reads.catalog(), hours: lab.hours, nowMs: clock.now() });
    const source = await resolveSource(lab, request.base.source, planned.base, 'body.base');
    const plan = { ...planned, base: { ...planned.base, settings: { ...planned.base.settings, source } } };
    this.scheduler.checkQueue();
    const id = randomUUID();
    const stamps = jobStamps(clock);
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
    await lab.store.insertSweep({ id, name: request.name ?? null, settingsCount: plan.settings.length, settings, ...stamps }, members, walkForward);
    // Its backtests are told from when they start: 256 `queued` events at once would say nothing the sweep's does not.
    await this.events.told('sweep', id);
    this.scheduler.enqueue('sweep', id, (signal) => this.sweepRunner.run(id, plan, memberIds, request.rank_by, signal));
    return { id };
  }

  backtest(id: string): Promise<Backtest> {
    return this.reads.backtest(id);
  }

  backtests(query: BacktestListQuery): Promise<BacktestList> {
    return this.reads.backtests(query);
  }

  trades(id: string, query: BacktestTradesQuery): Promise<BacktestTrades> {
    return this.reads.trades(id, query);
  }

  /** Most candles {@link candles} answers (CHART_CANDLES). */
  get chartCandles(): number {
    return this.reads.chartCandles;
  }

  /** One pair's candles of a backtest with the indicators on its rules, for a chart (lab/chart.ts). */
  candles(id: string, query: BacktestCandlesQuery): Promise<PairCandles> {
    return this.reads.candles(id, query);
  }

  equity(id: string): Promise<BacktestEquity> {
    return this.reads.equity(id);
  }

  sweep(id: string): Promise<Sweep> {
    return this.reads.sweep(id);
  }

  sweeps(query: SweepListQuery): Promise<SweepList> {
    return this.reads.sweeps(query);
  }

  /**
   * Cancels a queued or running backtest (answering it, now cancelled) or deletes one that has
   * ended (undefined). A sweep's backtest goes with its sweep only (409 BACKTEST_IN_SWEEP). The
   * job may run on another replica: it stops there at that replica's next check.
   */
  async deleteBacktest(id: string): Promise<Backtest | undefined> {
    const backtest = await this.reads.backtest(id);
    if (backtest.sweep_id !== null) {
      throw errors.create('backtest_in_sweep', `backtest ${id} belongs to sweep ${backtest.sweep_id}: DELETE /sweeps/${backtest.sweep_id} instead`);
    }
    if (await this.cancel('backtest', id)) return this.reads.backtest(id);
    await this.options.lab.store.deleteBacktest(id);
    return undefined;
  }

  /** Cancels a queued or running sweep (answering it, now cancelled) or deletes one that has ended, with its backtests (undefined). */
  async deleteSweep(id: string): Promise<Sweep | undefined> {
    await this.reads.sweep(id);
    if (await this.cancel('sweep', id)) return this.reads.sweep(id);
    await this.options.lab.store.deleteSweep(id);
    return undefined;
  }

  /** Resolves when the check of the jobs that is running, if any, is done (tests). */
  whenChecked(): Promise<void> {
    return this.scheduler.whenChecked();
  }

  /** Resolves when no job is queued or running here (tests). */
  whenIdle(): Promise<void> {
    return this.scheduler.whenIdle();
  }

  /** Stops every job: what was queued or running here is failed (INTERRUPTED), as the next start would. */
  close(): Promise<void> {
    return this.scheduler.close();
  }

  /** Cancels a queued or running job, here or on the replica running it; false when it has ended. */
  private async cancel(kind: JobKind, id: string): Promise<boolean> {
    const { store } = this.options.lab;
    const at = isoNow(this.options.clock);
    this.scheduler.stopHere(id);
    if (kind === 'backtest') return this.events.told('backtest', id, await store.cancelBacktest(id, at));
    if (!(await this.events.told('sweep', id, await store.cancelSweep(id, at)))) return false;
    for (const { backtest } of await store.sweepBacktests(id)) await this.events.endMember(backtest.id, () => store.cancelBacktest(backtest.id, at));
    return true;
  }
}
