/**
 * A stand-in for lab/backtest's runBacktestJob that LabPool's tests load into its workers. What
 * it does is named by the first pair's instrument, so each test states its worker's behaviour.
 */
import type { BacktestInput, BacktestJob, BacktestResult, Metrics } from '../src/lab/types.js';

type Hooks = Pick<BacktestInput, 'onProgress' | 'isCancelled'>;

function metrics(netProfit: number): Metrics {
  return {
    net_profit: netProfit,
    trade_count: 0,
    win_rate: 0,
    profit_factor: null,
    expectancy: 0,
    average_r: 0,
    max_drawdown: 0,
    max_drawdown_percent: 0,
    sharpe: null,
    sortino: null,
    cagr: null,
    exposure: 0,
    longest_losing_streak: 0,
    gross_profit: 0,
    gross_loss: 0,
    final_equity: 0,
  };
}

function result(netProfit: number, fields: Partial<BacktestResult> = {}): BacktestResult {
  return { trades: [], equity: [], metrics: { overall: metrics(netProfit), per_pair: {} }, signals: 0, skipped_signals: 0, candles: 0, ...fields };
}

function spin(hooks: Hooks, honourCancel: boolean): BacktestResult {
  for (let i = 0; ; i++) {
    if (i % 1_000_000 === 0) hooks.onProgress?.(0.5);
    if (honourCancel && hooks.isCancelled?.()) throw Object.assign(new Error('the backtest was cancelled'), { name: 'BacktestCancelledError' });
  }
}

export function runBacktestJob(job: BacktestJob, hooks: Hooks = {}): BacktestResult {
  const first = job.pairs[0];
  switch (first?.instrument) {
    // The candles as they arrived: net_profit = the sum of closes, skipped_signals = candles without a spread.
    case 'ECHO': {
      const candles = first.candles;
      hooks.onProgress?.(0.25);
      hooks.onProgress?.(1);
      const sum = candles.close.reduce((total, close) => total + close, 0);
      return result(sum, { candles: candles.length, skipped_signals: candles.spread.filter((spread) => Number.isNaN(spread)).length });
    }
    // Writes −1 into the first candle's volume: the caller sees it when the memory is shared.
    case 'WRITE':
      first.candles.volume[0] = -1;
      return result(0);
    case 'FAIL':
      throw new RangeError('no candles in the window');
    case 'EXIT':
      return process.exit(7);
    case 'SPIN':
      return spin(hooks, true);
    case 'HANG':
      return spin(hooks, false);
  }
  return result(0);
}
