import type { LabMetrics } from '@fxdesk/schemas';
import type { LabRunner } from '../src/lab/jobs.js';
import type { BacktestJob, BacktestResult } from '../src/lab/types.js';

/** One backtest handed to a {@link ManualRunner}, waiting for the test to end it. */
export interface RunnerCall {
  job: BacktestJob;
  onProgress: (fraction: number) => void;
  signal: AbortSignal | undefined;
  finish(result?: BacktestResult): void;
  fail(err: Error): void;
}

/**
 * A LabRunner the test drives: each run waits until the test finishes or fails it, and rejects
 * as the pool does when its signal aborts. `next()` resolves with the next run handed to it.
 */
export class ManualRunner implements LabRunner {
  readonly calls: RunnerCall[] = [];
  private readonly waiting: Array<(call: RunnerCall) => void> = [];
  private taken = 0;

  run(job: BacktestJob, options: { onProgress?: (fraction: number) => void; signal?: AbortSignal } = {}): Promise<BacktestResult> {
    return new Promise<BacktestResult>((resolve, reject) => {
      const { signal } = options;
      signal?.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
      const call: RunnerCall = {
        job,
        onProgress: options.onProgress ?? (() => undefined),
        signal,
        finish: (result = resultOf(job)) => resolve(result),
        fail: reject,
      };
      this.calls.push(call);
      this.waiting.shift()?.(call);
    });
  }

  /** The next run, in the order they arrive (one already waiting is given at once). */
  next(): Promise<RunnerCall> {
    const index = this.taken++;
    const call = this.calls[index];
    if (call) return Promise.resolve(call);
    return new Promise((resolve) => this.waiting.push(resolve));
  }
}

/** A LabRunner that answers every run at once with {@link resultOf}. */
export const instantRunner: LabRunner = { run: (job) => Promise.resolve(resultOf(job)) };

/**
 * A result made from the job alone, so a test can predict a sweep's ranking: the net profit is
 * risk_reward × 100 + min_confluence, plus the window's start in days (a later window earns more).
 */
export function resultOf(job: BacktestJob): BacktestResult {
  const netProfit = job.rules.riskReward * 100 + job.rules.minConfluence + (Math.floor(job.fromSec / 86_400) % 7);
  const metrics = metricsOf(netProfit, job.initialBalance);
  const time = new Date(job.fromSec * 1000).toISOString();
  const exitTime = new Date((job.fromSec + 3600) * 1000).toISOString();
  const instrument = job.pairs[0]?.instrument ?? 'EUR_USD';
  return {
    trades: [
      {
        instrument,
        side: 'LONG',
        signal_time: time,
        entry_time: time,
        entry_price: 1.1,
        exit_time: exitTime,
        exit_price: 1.1 + netProfit / 1e6,
        exit_reason: 'target',
        volume_lots: 0.1,
        pnl: netProfit,
        r_multiple: 2,
        duration_seconds: 3600,
        commission: 0,
      },
    ],
    equity: [
      { time, equity: job.initialBalance, drawdown: 0, drawdown_percent: 0 },
      { time: exitTime, equity: job.initialBalance + netProfit, drawdown: 0, drawdown_percent: 0 },
    ],
    metrics: { overall: metrics, per_pair: Object.fromEntries(job.pairs.map((p) => [p.instrument, metrics])) },
    signals: 1,
    skipped_signals: 0,
    candles: job.pairs.reduce((n, p) => n + p.candles.length, 0),
  };
}

function metricsOf(netProfit: number, initialBalance: number): LabMetrics {
  return {
    net_profit: netProfit,
    trade_count: 1,
    win_rate: 1,
    profit_factor: null,
    expectancy: netProfit,
    average_r: 2,
    max_drawdown: 0,
    max_drawdown_percent: 0,
    sharpe: null,
    sortino: null,
    cagr: null,
    exposure: 0.1,
    longest_losing_streak: 0,
    gross_profit: netProfit,
    gross_loss: 0,
    final_equity: initialBalance + netProfit,
  };
}
