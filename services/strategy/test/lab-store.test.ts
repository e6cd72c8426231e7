import path from 'node:path';
import type { BacktestSettings, LabMetrics } from '@fxdesk/schemas';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { INTERRUPTED, LabStore } from '../src/lab/store.js';
import type { BacktestResult, Trade } from '../src/lab/types.js';
import { tempDir } from './helpers.js';

const temp = tempDir();
afterAll(() => temp.remove());

const SETTINGS: BacktestSettings = {
  instruments: ['EUR_USD', 'USD_JPY'],
  timeframe: 'M5',
  from: '2026-01-05T00:00:00.000Z',
  to: '2026-01-10T00:00:00.000Z',
  rules: {
    supertrend_atr_period: 10,
    supertrend_multiplier: 3,
    volume_profile_window: 100,
    min_confluence: 3,
    risk_reward: 2,
    min_stop_atr: 0.5,
    fvg_max_age: 100,
  },
  initial_balance: 100_000,
  fill_model: { spread_points: null, slippage_points: 0, commission_per_lot: 0, volume: { lots: 0.1 } },
  account_currency: 'USD',
  warmup_candles: 300,
};

const METRICS: LabMetrics = {
  net_profit: 25,
  trade_count: 3,
  win_rate: 2 / 3,
  profit_factor: 1.5,
  expectancy: 25 / 3,
  average_r: 0.4,
  max_drawdown: 50,
  max_drawdown_percent: 0.05,
  sharpe: 1.2,
  sortino: null,
  cagr: 0.1,
  exposure: 0.2,
  longest_losing_streak: 1,
  gross_profit: 75,
  gross_loss: 50,
  final_equity: 100_025,
};

function trade(instrument: string, hour: number): Trade {
  const at = (h: number) => new Date(Date.UTC(2026, 0, 5, h)).toISOString();
  return {
    instrument,
    side: 'LONG',
    signal_time: at(hour),
    entry_time: at(hour),
    entry_price: 1.1,
    exit_time: at(hour + 1),
    exit_price: 1.101,
    exit_reason: 'target',
    volume_lots: 0.1,
    pnl: 10,
    r_multiple: 2,
    duration_seconds: 3600,
    commission: 0,
  };
}

const RESULT: BacktestResult = {
  trades: [trade('EUR_USD', 1), trade('USD_JPY', 2), trade('EUR_USD', 3)],
  equity: [
    { time: '2026-01-05T00:00:00.000Z', equity: 100_000, drawdown: 0, drawdown_percent: 0 },
    { time: '2026-01-09T23:55:00.000Z', equity: 100_025, drawdown: 0, drawdown_percent: 0 },
  ],
  metrics: { overall: METRICS, per_pair: { EUR_USD: METRICS, USD_JPY: METRICS } },
  signals: 5,
  skipped_signals: 2,
  candles: 2880,
};

const T0 = '2026-02-01T10:00:00.000Z';
const T1 = '2026-02-01T10:00:05.000Z';
const T2 = '2026-02-01T10:01:00.000Z';

let store: LabStore;
afterEach(() => store?.close());

describe('the lab store', () => {
  it('keeps a backtest from queued through running to done with its trades, equity and metrics', () => {
    store = new LabStore(':memory:');
    store.insertBacktest({ id: 'b1', name: 'first', settings: SETTINGS, createdAt: T0 });
    expect(store.backtest('b1')).toMatchObject({ status: 'queued', progress: 0, started_at: null, metrics: null, candles: null, sweep_id: null });
    expect(store.startBacktest('b1', T1)).toBe(true);
    store.setBacktestProgress('b1', 0.5);
    expect(store.backtest('b1')).toMatchObject({ status: 'running', progress: 0.5, started_at: T1 });
    expect(store.finishBacktest('b1', RESULT, T2)).toBe(true);
    expect(store.backtest('b1')).toEqual({
      id: 'b1',
      name: 'first',
      status: 'done',
      progress: 1,
      created_at: T0,
      started_at: T1,
      finished_at: T2,
      error: null,
      settings: SETTINGS,
      candles: 2880,
      signals: 5,
      skipped_signals: 2,
      metrics: RESULT.metrics,
      sweep_id: null,
    });
    expect(store.equity('b1')).toEqual(RESULT.equity);
    expect(store.trades('b1', { limit: 10 })).toEqual({ items: RESULT.trades, next: null });
  });

  it('pages trades in entry order, one pair or all', () => {
    store = new LabStore(':memory:');
    store.insertBacktest({ id: 'b1', name: null, settings: SETTINGS, createdAt: T0 });
    store.startBacktest('b1', T1);
    store.finishBacktest('b1', RESULT, T2);
    const first = store.trades('b1', { limit: 2 });
    expect(first.items).toEqual(RESULT.trades.slice(0, 2));
    expect(store.trades('b1', { limit: 2, after: first.next ?? undefined })).toEqual({ items: RESULT.trades.slice(2), next: null });
    const euro = store.trades('b1', { limit: 1, instrument: 'EUR_USD' });
    expect(euro.items).toEqual([RESULT.trades[0]]);
    expect(store.trades('b1', { limit: 1, instrument: 'EUR_USD', after: euro.next ?? undefined }).items).toEqual([RESULT.trades[2]]);
  });

  it('cancels only a job that has not ended, and a cancelled one never becomes done', () => {
    store = new LabStore(':memory:');
    store.insertBacktest({ id: 'b1', name: null, settings: SETTINGS, createdAt: T0 });
    store.startBacktest('b1', T1);
    expect(store.cancelBacktest('b1', T2)).toBe(true);
    expect(store.finishBacktest('b1', RESULT, T2)).toBe(false);
    expect(store.failBacktest('b1', { code: 'FAILED', message: 'x' }, T2)).toBe(false);
    expect(store.backtest('b1')).toMatchObject({ status: 'cancelled', finished_at: T2, metrics: null });
    expect(store.trades('b1', { limit: 10 }).items).toEqual([]);
    expect(store.cancelBacktest('b1', T2)).toBe(false);
  });

  it('lists the backtests started alone newest first, a page at a time, and a sweep’s apart', () => {
    store = new LabStore(':memory:');
    for (const id of ['a', 'b', 'c']) store.insertBacktest({ id, name: null, settings: SETTINGS, createdAt: T0 });
    store.insertSweep({ id: 's1', name: null, settings: sweepSettings(), settingsCount: 1, createdAt: T0 });
    store.insertBacktest({ id: 'm', name: null, settings: SETTINGS, createdAt: T0, sweep: { id: 's1', role: 'member', index: 0 } });
    const first = store.backtests({ limit: 2 });
    expect(first.items.map((b) => b.id)).toEqual(['c', 'b']);
    expect(store.backtests({ limit: 2, before: first.next ?? undefined })).toMatchObject({ items: [{ id: 'a' }], next: null });
    expect(store.backtests({ limit: 10, sweepId: 's1' }).items.map((b) => b.id)).toEqual(['m']);
    expect(store.sweepBacktests('s1')).toMatchObject([{ role: 'member', index: 0, backtest: { id: 'm', sweep_id: 's1' } }]);
  });

  it('deletes a sweep with its backtests and their trades', () => {
    store = new LabStore(':memory:');
    store.insertSweep({ id: 's1', name: null, settings: sweepSettings(), settingsCount: 1, createdAt: T0 });
    store.insertBacktest({ id: 'm', name: null, settings: SETTINGS, createdAt: T0, sweep: { id: 's1', role: 'member', index: 0 } });
    store.startBacktest('m', T1);
    store.finishBacktest('m', RESULT, T2);
    expect(store.deleteSweep('s1')).toBe(true);
    expect(store.backtest('m')).toBeUndefined();
    expect(store.trades('m', { limit: 10 }).items).toEqual([]);
    expect(store.deleteSweep('s1')).toBe(false);
  });

  it('fails, at the next start, every job a stopped process left queued or running, and keeps the rest', () => {
    const file = path.join(temp.dir, 'interrupted.db');
    store = new LabStore(file);
    store.insertBacktest({ id: 'done', name: null, settings: SETTINGS, createdAt: T0 });
    store.startBacktest('done', T1);
    store.finishBacktest('done', RESULT, T2);
    store.insertBacktest({ id: 'running', name: null, settings: SETTINGS, createdAt: T0 });
    store.startBacktest('running', T1);
    store.insertBacktest({ id: 'queued', name: null, settings: SETTINGS, createdAt: T0 });
    store.insertSweep({ id: 'sweep', name: null, settings: sweepSettings(), settingsCount: 1, createdAt: T0 });
    store.startSweep('sweep', T1);
    store.close();

    store = new LabStore(file);
    expect(store.interruptUnfinished(T2)).toEqual({ backtests: 2, sweeps: 1 });
    expect(store.backtest('running')).toMatchObject({ status: 'failed', error: INTERRUPTED, finished_at: T2 });
    expect(store.backtest('queued')).toMatchObject({ status: 'failed', error: INTERRUPTED });
    expect(store.sweep('sweep')).toMatchObject({ status: 'failed', error: { code: 'INTERRUPTED', message: 'interrupted by a restart' } });
    expect(store.backtest('done')).toMatchObject({ status: 'done', metrics: RESULT.metrics });
    expect(store.trades('done', { limit: 10 }).items).toHaveLength(3);
  });
});

function sweepSettings() {
  return { base: SETTINGS, grid: { min_confluence: [1] }, random: null, rank_by: 'net_profit' as const, walk_forward: null };
}
