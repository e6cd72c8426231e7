import type { Clock } from '@fxdesk/primitives';
import type { LabJobError } from '@fxdesk/schemas';
import type { Logger } from 'pino';
import type { StrategyRules } from '../rules.js';
import type { JobEvents } from './job-events.js';
import type { LabDeps, LabRunner } from './jobs.js';
import { CandlesUnavailable, loadCandles, type LoadedCandles } from './load-candles.js';
import { planHistory } from './sources.js';
import type { BacktestPlan } from './plan.js';
import { isoNow } from './scheduler.js';
import { readTerms, SimulatedLabTerms, SymbolTermsUnavailable } from './symbol-terms.js';
import type { BacktestJob, BacktestResult } from './types.js';

/** The share of a job's progress that loading its candles counts for. */
export const LOAD_SHARE = 0.2;

/**
 * Runs a backtest started alone: its record moved to running, its candles loaded (warm-up
 * included), the backtest run on the runner's worker threads (never on the event loop), its
 * results stored; its progress written as it goes. A cancel (or the service stopping) aborts
 * it and leaves its record to whoever stopped it; any other failure fails it.
 */
export class BacktestRunner {
  constructor(private readonly options: { lab: LabDeps; clock: Clock; logger: Logger; events: JobEvents }) {}

  async run(id: string, plan: BacktestPlan, signal: AbortSignal): Promise<void> {
    const { lab, clock, logger, events } = this.options;
    const { store } = lab;
    if (!(await events.told('backtest', id, await store.startBacktest(id, isoNow(clock))))) return;
    const progress = events.progressWriter('backtest', id);
    const startedMs = clock.now();
    try {
      const candles = await loadJob(lab, plan, (f) => progress(f * LOAD_SHARE), signal);
      // The loading's end (its fifth) is stored and told before the run starts, not passed over by the run's first move.
      await progress.whenWritten();
      const result = await runOn(lab.runner, jobOf(plan, candles, plan.rules), (f) => progress(LOAD_SHARE + f * (1 - LOAD_SHARE)), signal);
      if (await events.told('backtest', id, await store.finishBacktest(id, result, isoNow(clock), candles.data))) {
        logger.info({ id, trades: result.trades.length, candles: result.candles, ms: clock.now() - startedMs }, 'backtest done');
      }
    } catch (err) {
      if (signal.aborted) return;
      const error = jobError(err);
      await events.told('backtest', id, await store.failBacktest(id, error, isoNow(clock)));
      logger.warn({ id, err }, `backtest failed: ${error.message}`);
    }
  }
}

/** A backtest on the runner; a cancelled signal rejects at once. */
export function runOn(runner: LabRunner, job: BacktestJob, onProgress: (f: number) => void, signal: AbortSignal): Promise<BacktestResult> {
  signal.throwIfAborted();
  return runner.run(job, { onProgress, signal });
}

/**
 * A job's candles and, when it sizes by risk, its pairs' volume terms from the venue (lab.terms;
 * the simulated terminal's without EXECUTION_URL), read once at its start.
 */
export async function loadJob(lab: LabDeps, plan: BacktestPlan, onProgress: (f: number) => void, signal: AbortSignal): Promise<LoadedCandles> {
  const terms = plan.needsTerms ? await readTerms(lab.terms ?? new SimulatedLabTerms(), plan.pairs) : undefined;
  signal.throwIfAborted();
  return { ...(await loadCandles({ history: planHistory(lab, plan), hours: lab.hours }, plan, onProgress, signal)), terms };
}

/** The job the runner is given: a plan's settings over the candles (and terms) loaded for it, on `rules`. */
export function jobOf(plan: BacktestPlan, candles: LoadedCandles, rules: StrategyRules): BacktestJob {
  return {
    terms: candles.terms,
    riskDay: plan.riskDay,
    timeframe: plan.timeframe,
    pairs: candles.pairs,
    conversion: candles.conversion,
    rules,
    fills: plan.settings.fill_model,
    initialBalance: plan.settings.initial_balance,
    leverage: plan.settings.leverage,
    accountCurrency: plan.settings.account_currency,
    fromSec: plan.fromSec,
    toSec: plan.toSec,
  };
}

/** A job's failure as its record shows it: the market's history failing is CANDLES_UNAVAILABLE. */
export function jobError(err: unknown): LabJobError {
  if (err instanceof CandlesUnavailable) return { code: 'CANDLES_UNAVAILABLE', message: err.message };
  if (err instanceof SymbolTermsUnavailable) return { code: 'SYMBOL_TERMS_UNAVAILABLE', message: err.message };
  return { code: 'FAILED', message: err instanceof Error ? err.message : String(err) };
}
