/**
 * The contract every LabStore keeps, run against each implementation (lab-store.test.ts on
 * SQLite, lab-postgres-store.process.test.ts on a real PostgreSQL server).
 */
import type { BacktestSettings, LabMetrics } from '@fxdesk/schemas';
import { storesClosedAfterEach } from '@fxdesk/core/testing';
import { describe, expect, it } from 'vitest';
import { INTERRUPTED, type LabStore, type NewBacktest, type NewSweep } from '../src/lab/store.js';
import type { BacktestResult, Trade } from '../src/lab/types.js';

/** Opens a store on one database as the replica named; every call is another connection to the same data. */
export type OpenLabStore = (replicaId: string) => Promise<LabStore>;

export interface LabStoreHarness {
  /** A fresh, empty database. */
  database(): Promise<OpenLabStore>;
}

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

export function trade(instrument: string, hour: number): Trade {
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

export const RESULT: BacktestResult = {
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
/** The first lease of the jobs below; T2 is before it, LATER after it. */
const LEASE = '2026-02-01T10:02:00.000Z';
const LATER = '2026-02-01T10:05:00.000Z';

export const backtest = (id: string, over: Partial<NewBacktest> = {}): NewBacktest => ({
  id,
  name: null,
  settings: SETTINGS,
  createdAt: T0,
  leaseExpiresAt: LEASE,
  ...over,
});
const sweep = (id: string): NewSweep => ({ id, name: null, settings: sweepSettings(), settingsCount: 1, createdAt: T0, leaseExpiresAt: LEASE });
const member = (id: string, sweepId: string, index = 0) => backtest(id, { sweep: { id: sweepId, role: 'member', index } });

export function labStoreContract(name: string, harness: LabStoreHarness): void {
  describe(`lab store contract: ${name}`, () => {
    const database = storesClosedAfterEach(() => harness.database());

    async function store(replicaId = 'a'): Promise<LabStore> {
      return (await database())(replicaId);
    }

    it('keeps a backtest from queued through running to done with its trades, equity and metrics', async () => {
      const s = await store();
      await s.insertBacktest(backtest('b1', { name: 'first' }));
      expect(await s.backtest('b1')).toMatchObject({ status: 'queued', progress: 0, started_at: null, metrics: null, candles: null, sweep_id: null });
      expect(await s.startBacktest('b1', T1)).toBe(true);
      await s.setBacktestProgress('b1', 0.5);
      expect(await s.backtest('b1')).toMatchObject({ status: 'running', progress: 0.5, started_at: T1 });
      expect(await s.jobState('backtest', 'b1')).toEqual({ status: 'running', progress: 0.5, sweep_id: null });
      const data = { source: 'simulated' as const, sha256: 'ab'.repeat(32), candles: 3000 };
      expect(await s.finishBacktest('b1', RESULT, T2, data)).toBe(true);
      expect(await s.backtest('b1')).toEqual({
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
        data,
        sweep_id: null,
      });
      expect(await s.equity('b1')).toEqual(RESULT.equity);
      expect(await s.trades('b1', { limit: 10 })).toEqual({ items: RESULT.trades, next: null });
      expect(await s.backtest('none')).toBeUndefined();
      expect(await s.equity('none')).toBeUndefined();
    });

    it('pages trades in entry order, one pair or all', async () => {
      const s = await store();
      await s.insertBacktest(backtest('b1'));
      await s.startBacktest('b1', T1);
      await s.finishBacktest('b1', RESULT, T2);
      const first = await s.trades('b1', { limit: 2 });
      expect(first.items).toEqual(RESULT.trades.slice(0, 2));
      expect(await s.trades('b1', { limit: 2, after: first.next ?? undefined })).toEqual({ items: RESULT.trades.slice(2), next: null });
      const euro = await s.trades('b1', { limit: 1, instrument: 'EUR_USD' });
      expect(euro.items).toEqual([RESULT.trades[0]]);
      expect((await s.trades('b1', { limit: 1, instrument: 'EUR_USD', after: euro.next ?? undefined })).items).toEqual([RESULT.trades[2]]);
    });

    it('stores a result of thousands of trades whole or not at all when a cancel comes while it is written', async () => {
      const s = await store();
      await s.insertBacktest(backtest('b1'));
      await s.startBacktest('b1', T1);
      const many = { ...RESULT, trades: Array.from({ length: 2500 }, (_, k) => trade(k % 2 === 0 ? 'EUR_USD' : 'USD_JPY', k)) };
      const finishing = s.finishBacktest('b1', many, T2);
      const cancelled = await s.cancelBacktest('b1', T2);
      const finished = await finishing;
      expect(finished).toBe(!cancelled);
      expect((await s.backtest('b1'))?.status).toBe(finished ? 'done' : 'cancelled');
      expect((await s.trades('b1', { limit: 5000 })).items).toHaveLength(finished ? 2500 : 0);
    });

    it('cancels only a job that has not ended, and a cancelled one never becomes done', async () => {
      const s = await store();
      await s.insertBacktest(backtest('b1'));
      await s.startBacktest('b1', T1);
      expect(await s.cancelBacktest('b1', T2)).toBe(true);
      expect(await s.finishBacktest('b1', RESULT, T2)).toBe(false);
      expect(await s.failBacktest('b1', { code: 'FAILED', message: 'x' }, T2)).toBe(false);
      expect(await s.backtest('b1')).toMatchObject({ status: 'cancelled', finished_at: T2, metrics: null });
      expect((await s.trades('b1', { limit: 10 })).items).toEqual([]);
      expect(await s.cancelBacktest('b1', T2)).toBe(false);
    });

    it('lists the backtests started alone newest first, a page at a time, and a sweep’s apart', async () => {
      const s = await store();
      for (const id of ['a', 'b', 'c']) await s.insertBacktest(backtest(id));
      await s.insertSweep(sweep('s1'), [member('m', 's1')], null);
      const first = await s.backtests({ limit: 2 });
      expect(first.items.map((b) => b.id)).toEqual(['c', 'b']);
      expect(await s.backtests({ limit: 2, before: first.next ?? undefined })).toMatchObject({ items: [{ id: 'a' }], next: null });
      expect((await s.backtests({ limit: 10, sweepId: 's1' })).items.map((b) => b.id)).toEqual(['m']);
      expect(await s.sweepBacktests('s1')).toMatchObject([{ role: 'member', index: 0, backtest: { id: 'm', sweep_id: 's1' } }]);
    });

    it('stores a sweep with its backtests and walk-forward, moves it and lists it newest first', async () => {
      const s = await store();
      const walkForward = { windows: [], out_of_sample_total: null };
      await s.insertSweep(sweep('s1'), [member('m0', 's1', 0), member('m1', 's1', 1)], walkForward);
      await s.insertSweep(sweep('s2'), [], null);
      expect(await s.sweep('s1')).toMatchObject({ id: 's1', status: 'queued', settings: sweepSettings(), settings_count: 1, walk_forward: walkForward });
      expect((await s.sweepBacktests('s1')).map((m) => m.backtest.id)).toEqual(['m0', 'm1']);
      expect(await s.startSweep('s1', T1)).toBe(true);
      await s.setSweepProgress('s1', 0.25);
      expect(await s.jobState('sweep', 's1')).toEqual({ status: 'running', progress: 0.25, sweep_id: null });
      expect(await s.finishSweep('s1', T2)).toBe(true);
      expect(await s.sweep('s1')).toMatchObject({ status: 'done', progress: 1, finished_at: T2 });
      const first = await s.sweeps({ limit: 1 });
      expect(first.items.map((x) => x.id)).toEqual(['s2']);
      expect((await s.sweeps({ limit: 1, before: first.next ?? undefined })).items.map((x) => x.id)).toEqual(['s1']);
    });

    it('deletes a sweep with its backtests and their trades', async () => {
      const s = await store();
      await s.insertSweep(sweep('s1'), [member('m', 's1')], null);
      await s.startBacktest('m', T1);
      await s.finishBacktest('m', RESULT, T2);
      expect(await s.deleteSweep('s1')).toBe(true);
      expect(await s.backtest('m')).toBeUndefined();
      expect((await s.trades('m', { limit: 10 })).items).toEqual([]);
      expect(await s.deleteSweep('s1')).toBe(false);
    });

    it('fails at the start of a replica every job it left queued or running, and keeps the rest', async () => {
      const open = await database();
      const before = await open('a');
      await before.insertBacktest(backtest('done'));
      await before.startBacktest('done', T1);
      await before.finishBacktest('done', RESULT, T2);
      await before.insertBacktest(backtest('running'));
      await before.startBacktest('running', T1);
      await before.insertBacktest(backtest('queued'));
      await before.insertSweep(sweep('sweep'), [member('member', 'sweep')], null);
      await before.startSweep('sweep', T1);
      await before.close();

      const after = await open('a');
      expect(await after.failAbandoned(T2, { includeOwn: true })).toEqual({ backtests: ['running', 'queued'], sweeps: ['sweep'] });
      expect(await after.backtest('running')).toMatchObject({ status: 'failed', error: INTERRUPTED, finished_at: T2 });
      expect(await after.backtest('queued')).toMatchObject({ status: 'failed', error: INTERRUPTED });
      expect(await after.backtest('member')).toMatchObject({ status: 'failed', error: INTERRUPTED });
      expect(await after.sweep('sweep')).toMatchObject({ status: 'failed', error: { code: 'INTERRUPTED', message: 'interrupted by a restart' } });
      expect(await after.backtest('done')).toMatchObject({ status: 'done', metrics: RESULT.metrics });
      expect((await after.trades('done', { limit: 10 })).items).toHaveLength(3);
    });

    it("leaves another replica's jobs alone within their lease, and fails them once it has passed", async () => {
      const open = await database();
      const [a, b] = [await open('a'), await open('b')];
      await a.insertBacktest(backtest('theirs'));
      await a.startBacktest('theirs', T1);
      await a.insertSweep(sweep('their-sweep'), [member('their-member', 'their-sweep')], null);
      expect(await b.failAbandoned(T2, { includeOwn: true })).toEqual({ backtests: [], sweeps: [] });
      expect(await b.backtest('theirs')).toMatchObject({ status: 'running' });
      expect(await b.failAbandoned(LEASE, { includeOwn: false })).toEqual({ backtests: ['theirs'], sweeps: ['their-sweep'] });
      expect(await a.backtest('theirs')).toMatchObject({ status: 'failed', error: INTERRUPTED, finished_at: LEASE });
      expect(await a.backtest('their-member')).toMatchObject({ status: 'failed' });
    });

    it('renews the leases of its own unfinished jobs, and answers which are still unfinished', async () => {
      const open = await database();
      const [a, b] = [await open('a'), await open('b')];
      for (const id of ['running', 'cancelled', 'done']) await a.insertBacktest(backtest(id));
      await a.insertSweep(sweep('sweep'), [member('member', 'sweep')], null);
      await b.insertBacktest(backtest('theirs'));
      for (const id of ['running', 'done']) await a.startBacktest(id, T1);
      await a.finishBacktest('done', RESULT, T2);
      // Cancelled through the other replica: its runner learns it from the renewal's answer.
      expect(await b.cancelBacktest('cancelled', T2)).toBe(true);
      expect([...(await a.renewLeases(LATER))].sort()).toEqual(['member', 'running', 'sweep']);
      expect(await b.failAbandoned(LEASE, { includeOwn: false })).toEqual({ backtests: [], sweeps: [] });
      expect(await a.backtest('running')).toMatchObject({ status: 'running' });
      expect(await a.failAbandoned(LEASE, { includeOwn: false })).toEqual({ backtests: ['theirs'], sweeps: [] });
    });

    it('is healthy while its database answers', async () => {
      expect(await (await store()).health()).toMatchObject({ ok: true });
    });
  });
}

function sweepSettings() {
  return { base: SETTINGS, grid: { min_confluence: [1] }, random: null, rank_by: 'net_profit' as const, walk_forward: null };
}
