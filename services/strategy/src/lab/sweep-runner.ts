import { randomUUID } from 'node:crypto';
import type { Clock } from '@fxdesk/primitives';
import type { LabData, LabMetrics, LabRules, RankMetric, WalkForwardResult } from '@fxdesk/schemas';
import type { Logger } from 'pino';
import { apiRules, type StrategyRules } from '../rules.js';
import { jobError, jobOf, LOAD_SHARE, loadJob, runOn } from './backtest-runner.js';
import { firstAtOrAfter, sliceColumns } from './columns.js';
import type { JobEvents } from './job-events.js';
import type { LabConfig, LabDeps } from './jobs.js';
import type { LoadedCandles } from './load-candles.js';
import type { SweepPlan } from './plan.js';
import { isoNow, jobStamps } from './scheduler.js';
import { metricValue, outOfSampleTotal, rankOrder, type WalkForwardWindow } from './sweep.js';
import type { BacktestJob, BacktestPair, BacktestResult } from './types.js';

/**
 * Runs a sweep: its candles loaded once; every setting over the whole range (its member
 * backtests) and, with a walk-forward, every setting on each window's in-sample part (metrics
 * kept in memory), then the window's best on its out-of-sample part (a backtest of the sweep).
 * At most LAB_WORKERS backtests are on the runner at once; a member that fails is failed alone.
 */
export class SweepRunner {
  constructor(private readonly options: { config: Pick<LabConfig, 'LAB_WORKERS'>; lab: LabDeps; clock: Clock; logger: Logger; events: JobEvents }) {}

  async run(id: string, plan: SweepPlan, memberIds: string[], rankBy: RankMetric, signal: AbortSignal): Promise<void> {
    const { config, lab, clock, logger, events } = this.options;
    const { store } = lab;
    if (!(await events.told('sweep', id, await store.startSweep(id, isoNow(clock))))) return;
    const windows = plan.windows;
    const units = plan.settings.length * (1 + windows.length) + windows.length;
    const partial = new Map<string, number>();
    let finished = 0;
    const write = events.progressWriter('sweep', id);
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
      const candles = await loadJob(lab, plan.base, (f) => write(f * LOAD_SHARE), signal);
      const inSample = windows.map(() => new Array<number | null>(plan.settings.length).fill(null));
      const chosen: WindowChoice[] = [];
      const tasks: Array<() => Promise<void>> = [];
      plan.settings.forEach((rules, index) => {
        const memberId = memberIds[index] as string;
        tasks.push(() => unit(memberId, (onProgress) => this.runMember(memberId, jobOf(plan.base, candles, rules), candles.data, onProgress, signal)));
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
              const result = await runOn(lab.runner, job, onProgress, signal).catch((err: unknown) => {
                if (signal.aborted) throw err;
                logger.warn({ id, window: w, index, err }, 'sweep in-sample run failed');
                return null;
              });
              (inSample[w] as Array<number | null>)[index] = result ? metricOf(result, rankBy) : null;
              remaining[w] = (remaining[w] as number) - 1;
              if (remaining[w] === 0)
                tasks.push(() =>
                  unit(`out-of-sample ${w}`, (p) => this.runWindow(id, plan, w, outOfSampleCandles, candles.data, inSample, rankBy, chosen, p, signal)),
                );
            }),
          );
        });
      });
      await runLimited(tasks, config.LAB_WORKERS, signal);
      if (windows.length > 0) await store.setWalkForward(id, walkForwardOf(windows, chosen, rankBy));
      await events.told('sweep', id, await store.finishSweep(id, isoNow(clock)));
      logger.info({ id, settings: plan.settings.length, windows: windows.length }, 'sweep done');
    } catch (err) {
      if (signal.aborted) return;
      const error = jobError(err);
      await events.told('sweep', id, await store.failSweep(id, error, isoNow(clock)));
      for (const memberId of memberIds) await events.endMember(memberId, () => store.failBacktest(memberId, error, isoNow(clock)));
      logger.warn({ id, err }, `sweep failed: ${error.message}`);
    }
  }

  /** One setting of a sweep over its whole range, stored as its backtest. */
  private async runMember(id: string, job: BacktestJob, data: LabData | undefined, onProgress: (f: number) => void, signal: AbortSignal): Promise<void> {
    const { lab, clock, events } = this.options;
    const { store } = lab;
    if (!(await events.told('backtest', id, await store.startBacktest(id, isoNow(clock))))) return;
    const progress = events.progressWriter('backtest', id);
    try {
      const result = await runOn(
        lab.runner,
        job,
        (f) => {
          onProgress(f);
          progress(f);
        },
        signal,
      );
      await events.told('backtest', id, await store.finishBacktest(id, result, isoNow(clock), data));
    } catch (err) {
      if (signal.aborted) throw err;
      await events.told('backtest', id, await store.failBacktest(id, jobError(err), isoNow(clock)));
    }
  }

  /** A walk-forward window's choice (the best in-sample) run on its out-of-sample part, as a backtest of the sweep. */
  private async runWindow(
    sweepId: string,
    plan: SweepPlan,
    w: number,
    outOfSampleCandles: LoadedCandles[],
    /** The sweep's data: a window runs on a part of it. */
    data: LabData | undefined,
    inSample: Array<Array<number | null>>,
    rankBy: RankMetric,
    chosen: WindowChoice[],
    onProgress: (f: number) => void,
    signal: AbortSignal,
  ): Promise<void> {
    const { store } = this.options.lab;
    const window = plan.windows[w] as WalkForwardWindow;
    const values = inSample[w] as Array<number | null>;
    const best = rankOrder(values, rankBy)[0] as number;
    const rules = plan.settings[best] as StrategyRules;
    const id = randomUUID();
    const settings = { ...plan.base.settings, rules: apiRules(rules), from: isoOf(window.outOfSample.fromSec), to: isoOf(window.outOfSample.toSec) };
    await store.insertBacktest({ id, name: null, settings, ...jobStamps(this.options.clock), sweep: { id: sweepId, role: 'out_of_sample', index: w } });
    const choice: WindowChoice = { window: w, rules: apiRules(rules), inSampleMetric: values[best] ?? null, backtestId: id, result: null };
    chosen.push(choice);
    await store.setWalkForward(sweepId, walkForwardOf(plan.windows, chosen));
    await this.runMember(id, { ...jobOf(plan.base, outOfSampleCandles[w] as LoadedCandles, rules), ...window.outOfSample }, data, onProgress, signal);
    const backtest = await store.backtest(id);
    choice.result = backtest?.metrics?.overall ?? null;
    await store.setWalkForward(sweepId, walkForwardOf(plan.windows, chosen));
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

/** A sweep's walk-forward as its record shows it: each window with its choice so far, and the total once every window has run (with `rankBy`). */
export function walkForwardOf(windows: WalkForwardWindow[], chosen: WindowChoice[], rankBy?: RankMetric): WalkForwardResult {
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

/**
 * A part of a walk-forward window as a backtest of that range alone would read it: `warmup`
 * candles before fromSec, then those up to toSec. The same arrays serve every setting.
 */
function sliceCandles(candles: LoadedCandles, { fromSec, toSec }: { fromSec: number; toSec: number }, warmup: number): LoadedCandles {
  const slice = (pair: BacktestPair): BacktestPair => {
    const start = Math.max(0, firstAtOrAfter(pair.candles.time, fromSec) - warmup);
    return { ...pair, candles: sliceColumns(pair.candles, start, firstAtOrAfter(pair.candles.time, toSec)) };
  };
  return { pairs: candles.pairs.map(slice), conversion: candles.conversion.map(slice), terms: candles.terms };
}

function isoOf(sec: number): string {
  return new Date(sec * 1000).toISOString();
}
