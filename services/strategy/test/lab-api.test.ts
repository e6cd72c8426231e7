import path from 'node:path';
import { StrategyClient } from '@fxdesk/client';
import type { BacktestSettings } from '@fxdesk/schemas';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { runBacktestJob } from '../src/lab/backtest.js';
import type { LabRunner } from '../src/lab/jobs.js';
import { candlesBetween } from '../src/lab/plan.js';
import { LabPool } from '../src/lab/pool.js';
import { SqlLabStore } from '../src/lab/sql-store.js';
import type { BacktestJob } from '../src/lab/types.js';
import { harness, tempDir, type Harness, type HarnessOptions } from './helpers.js';
import { instantRunner, ManualRunner, resultOf } from './lab-jobs.fixture.js';

const temp = tempDir();
afterAll(() => temp.remove());

/** A week of December 2025, long before the harness's clock (Monday 2026-01-05 12:00 UTC). */
const WEEK = { from: '2025-12-01', to: '2025-12-06' };
const FROM_SEC = Date.UTC(2025, 11, 1) / 1000;
const TO_SEC = Date.UTC(2025, 11, 6) / 1000;

const SETTINGS: BacktestSettings = {
  instruments: ['EUR_USD'],
  timeframe: 'M5',
  from: '2025-12-01T00:00:00.000Z',
  to: '2025-12-06T00:00:00.000Z',
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
  warmup_candles: 150,
};

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function start(options: HarnessOptions = {}): Promise<Harness> {
  h = await harness({ ...options, env: { RATE_LIMIT_GET_PER_MINUTE: '10000', RATE_LIMIT_POST_PER_MINUTE: '10000', ...options.env } });
  return h;
}

async function submit(app: Harness['app'], body: object, url = '/backtests'): Promise<string> {
  const res = await app.inject({ method: 'POST', url, payload: body });
  expect(res.statusCode, res.body).toBe(202);
  return res.json<{ id: string }>().id;
}

const get = async (app: Harness['app'], url: string) => (await app.inject({ url })).json();

describe('a backtest through the API', () => {
  it('goes queued → running → done, its progress counting the candles loaded, then reads its metrics, trades and equity', async () => {
    const runner = new ManualRunner();
    const { app, lab } = await start({ labRunner: runner, env: { LAB_WORKERS: '1' } });
    const first = await submit(app, { instruments: ['EUR_USD'], ...WEEK, name: 'first' });
    const second = await submit(app, { instruments: ['USD_JPY'], ...WEEK });
    expect(await get(app, `/backtests/${second}`)).toMatchObject({ status: 'queued', progress: 0, started_at: null, metrics: null });

    const call = await runner.next();
    const loaded = await get(app, `/backtests/${first}`);
    expect(loaded).toMatchObject({ status: 'running', progress: 0.2, name: 'first' });
    call.onProgress(0.5);
    expect((await get(app, `/backtests/${first}`)).progress).toBeCloseTo(0.6);
    call.finish();

    const expected = resultOf(call.job);
    const done = await waitForStatus(app, `/backtests/${first}`, 'done');
    expect(done).toMatchObject({
      progress: 1,
      error: null,
      candles: expected.candles,
      signals: 1,
      skipped_signals: 0,
      metrics: expected.metrics,
      data: { source: 'simulated', sha256: expect.stringMatching(/^[0-9a-f]{64}$/), candles: expect.any(Number) },
      sweep_id: null,
    });
    expect(done.data.candles).toBe(call.job.pairs.reduce((n, p) => n + p.candles.length, 0));
    expect(await get(app, `/backtests/${first}/trades`)).toEqual({ trades: expected.trades, next_cursor: null });
    expect(await get(app, `/backtests/${first}/equity`)).toEqual({ points: expected.equity });

    (await runner.next()).finish();
    await lab.whenIdle();
    const list = await get(app, '/backtests');
    expect(list.backtests.map((b: { id: string }) => b.id)).toEqual([second, first]);
    expect(list.backtests[1].metrics).toEqual({ overall: expected.metrics.overall });
    // The data a result names: another pair's week is other data; the same request again, the same.
    expect((await get(app, `/backtests/${second}`)).data.sha256).not.toBe(done.data.sha256);
    const again = await submit(app, { instruments: ['EUR_USD'], ...WEEK });
    (await runner.next()).finish();
    expect((await waitForStatus(app, `/backtests/${again}`, 'done')).data).toEqual(done.data);
  });

  it('fills in the settings from the config: the live rules under the overrides, PAPER_BALANCE, PAPER_LEVERAGE, TRADE_VOLUME lots, the warm-up', async () => {
    const { app, lab } = await start({
      labRunner: instantRunner,
      env: { PAPER_BALANCE: '50000', PAPER_LEVERAGE: '50', TRADE_VOLUME: '0.25', RISK_REWARD: '3' },
    });
    const id = await submit(app, { instruments: ['EUR_USD'], ...WEEK, rules: { min_confluence: 2, volume_profile_window: 200 } });
    await lab.whenIdle();
    expect((await get(app, `/backtests/${id}`)).settings).toEqual({
      instruments: ['EUR_USD'],
      timeframe: 'M5',
      from: '2025-12-01T00:00:00.000Z',
      to: '2025-12-06T00:00:00.000Z',
      rules: {
        supertrend_atr_period: 10,
        supertrend_multiplier: 3,
        volume_profile_window: 200,
        min_confluence: 2,
        risk_reward: 3,
        min_stop_atr: 0.5,
        fvg_max_age: 100,
      },
      initial_balance: 50_000,
      leverage: 50,
      fill_model: { spread_points: null, slippage_points: 0, commission_per_lot: 0, volume: { lots: 0.25 } },
      // Without MARKET_DATA_URL the lab has the desk's simulated market only.
      source: 'simulated',
      account_currency: 'USD',
      // The harness's WARMUP_CANDLES is 150: the larger volume profile window wins.
      warmup_candles: 200,
    });
  });

  it('runs on WARMUP_CANDLES candles before from and the window, with the pair a cross converts its P/L through', async () => {
    const runner = new ManualRunner();
    const { app, config } = await start({ labRunner: runner });
    await submit(app, { instruments: ['EUR_GBP'], timeframe: 'H1', ...WEEK, rules: { risk_percent: 1 }, fill_model: { spread_points: 12 } });
    const { job } = await runner.next();
    expect(job).toMatchObject({ timeframe: 'H1', fromSec: FROM_SEC, toSec: TO_SEC, initialBalance: 100_000, accountCurrency: 'USD' });
    expect(job.fills).toEqual({ spread_points: 12, slippage_points: 0, commission_per_lot: 0, volume: { lots: 0.1 } });
    // Sizing by risk: the simulated terminal's volume terms (no EXECUTION_URL), read once at the job's start.
    expect(job.rules.riskPercent).toBe(1);
    expect(job.terms).toEqual({ EUR_GBP: { contractSize: 100_000, volumeMin: '0.01', volumeMax: '100', volumeStep: '0.01', stopsLevel: 15 } });
    expect(job.pairs.map((p) => [p.instrument, p.symbol])).toEqual([['EUR_GBP', 'EURGBP']]);
    expect(job.conversion.map((p) => p.instrument)).toEqual(['GBP_USD']);
    for (const pair of [...job.pairs, ...job.conversion]) {
      const times = [...pair.candles.time];
      expect(times.filter((time) => time < FROM_SEC)).toHaveLength(config.WARMUP_CANDLES);
      // The market closes for the weekend on Friday at 22:00 UTC: its last H1 candle opens at 21:00.
      expect(times.at(-1)).toBe(Date.UTC(2025, 11, 5, 21) / 1000);
      expect(times.every((time, i) => i === 0 || time > (times[i - 1] ?? 0))).toBe(true);
    }
  });

  it('refuses a request that cannot run with 422 and a detail per problem', async () => {
    const { app } = await start({ labRunner: instantRunner, env: { LAB_MAX_CANDLES: '10000' } });
    const refusal = async (body: object, url = '/backtests') => {
      const res = await app.inject({ method: 'POST', url, payload: body });
      expect(res.statusCode, res.body).toBe(422);
      return res.json<{ code: string; details: Array<{ path: string; message: string }> }>();
    };
    const paths = async (body: object, url?: string) => (await refusal(body, url)).details.map((d) => d.path);

    expect(await paths({ instruments: ['EUR_USD'], from: '2025-12-06', to: '2025-12-01' })).toEqual(['body.to']);
    expect(await paths({ instruments: ['EUR_USD'], from: '2025-12-01', to: '2026-01-06' })).toEqual(['body.to']);
    expect((await refusal({ instruments: ['EUR_USD'], from: '2025-12-01', to: '2026-01-06' })).details[0]?.message).toMatch(/future/);
    expect((await refusal({ instruments: ['EUR_USD'], timeframe: 'D1', from: '2020-01-01', to: '2025-06-01' })).details[0]?.message).toMatch(/5 years/);
    expect(await paths({ instruments: ['EUR_USD', 'ABC_XYZ'], ...WEEK })).toEqual(['body.instruments.1']);
    expect(await paths({ instruments: ['EUR_USD', 'EUR_USD'], ...WEEK })).toEqual(['body.instruments.1']);
    expect(await paths({ instruments: ['EUR_USD'], ...WEEK, rules: { min_confluence: 5 } })).toEqual(['body.rules.min_confluence']);
    expect(await paths({ instruments: ['EUR_USD'], ...WEEK, rules: { supertrend_atr_period: 2.5 } })).toEqual(['body.rules.supertrend_atr_period']);
    expect(await paths({ instruments: ['EUR_USD'], ...WEEK, rules: { spread: 1 } })).toEqual(['body.rules']);
    for (const leverage of [0, 1001, 2.5]) expect(await paths({ instruments: ['EUR_USD'], ...WEEK, leverage })).toEqual(['body.leverage']);
    expect(await refusal({ instruments: ['EUR_USD'], from: '2025-02-30', to: '2025-03-03' })).toMatchObject({
      details: [{ path: 'body.from', message: 'expected a date like 2026-01-01 or an RFC 3339 date-time with its zone' }],
    });
    expect((await refusal({ instruments: ['EUR_USD'], from: '2025-01-01', to: '2025-12-01' })).details[0]?.message).toMatch(/LAB_MAX_CANDLES/);
    const sweep = { base: { instruments: ['EUR_USD'], ...WEEK }, rank_by: 'net_profit' };
    expect(await paths({ ...sweep, grid: { risk_reward: [1] }, random: { samples: 2, ranges: { risk_reward: { min: 1, max: 2 } } } }, '/sweeps')).toEqual([
      'body.grid',
    ]);
    expect(await paths({ ...sweep, grid: { risk_reward: [1, 1] } }, '/sweeps')).toEqual(['body.grid']);
    expect(
      await paths(
        { ...sweep, grid: { risk_reward: [1] }, walk_forward: { windows: 20, in_sample_fraction: 0.9 }, base: { ...sweep.base, to: '2025-12-01T00:00:10Z' } },
        '/sweeps',
      ),
    ).toEqual(['body.walk_forward']);
    expect(await paths({ ...sweep, base: { instruments: ['ABC_XYZ'], ...WEEK }, grid: { risk_reward: [1] } }, '/sweeps')).toEqual(['body.base.instruments.0']);
  });

  it('refuses one_position_per_pair 0 and a fill volume by risk with 422: the lab holds one position per pair, sizing by risk is rules.risk_percent', async () => {
    const { app } = await start({ labRunner: instantRunner });
    const refusal = async (body: object, url = '/backtests') => {
      const res = await app.inject({ method: 'POST', url, payload: body });
      expect(res.statusCode, res.body).toBe(422);
      return res.json<{ details: Array<{ path: string; message: string }> }>().details;
    };
    expect(await refusal({ instruments: ['EUR_USD'], ...WEEK, rules: { one_position_per_pair: 0 } })).toEqual([
      { path: 'body.rules.one_position_per_pair', message: expect.stringMatching(/holds one position per pair/) },
    ]);
    expect(await refusal({ instruments: ['EUR_USD'], ...WEEK, fill_model: { volume: { risk_percent: 1 } } })).toEqual([
      { path: 'body.fill_model.volume', message: expect.stringMatching(/rules\.risk_percent/) },
    ]);
    expect(await refusal({ instruments: ['EUR_USD'], ...WEEK, rules: { risk_percent: 11 } })).toEqual([
      { path: 'body.rules.risk_percent', message: expect.any(String) },
    ]);
    const sweep = { base: { instruments: ['EUR_USD'], ...WEEK }, rank_by: 'net_profit' };
    expect(await refusal({ ...sweep, grid: { one_position_per_pair: [0, 1] } }, '/sweeps')).toEqual([
      { path: 'body.grid.one_position_per_pair', message: expect.stringMatching(/one position per pair/) },
    ]);
    await submit(app, { instruments: ['EUR_USD'], ...WEEK, rules: { one_position_per_pair: 1 } });
  });

  it('refuses a backtest on the config’s ONE_POSITION_PER_PAIR=false unless it asks for one per pair', async () => {
    const { app } = await start({ labRunner: instantRunner, env: { ONE_POSITION_PER_PAIR: 'false' } });
    const res = await app.inject({ method: 'POST', url: '/backtests', payload: { instruments: ['EUR_USD'], ...WEEK } });
    expect(res.statusCode).toBe(422);
    expect(res.json().details).toEqual([{ path: 'body.rules.one_position_per_pair', message: expect.stringMatching(/^ONE_POSITION_PER_PAIR is false/) }]);
    await submit(app, { instruments: ['EUR_USD'], ...WEEK, rules: { one_position_per_pair: 1 } });
  });

  it('sweeps the risk settings like any setting, each member read the venue’s terms once at the sweep’s start', async () => {
    const runner = new ManualRunner();
    const { app } = await start({ labRunner: runner });
    const base = { instruments: ['EUR_USD'], ...WEEK, rules: { max_open_trades: 1 } };
    await submit(app, { base, grid: { risk_percent: [0, 0.5], daily_loss_limit: [2] }, rank_by: 'net_profit' }, '/sweeps');
    const jobs = [(await runner.next()).job, (await runner.next()).job];
    expect(jobs.map((job) => [job.rules.riskPercent, job.rules.dailyLossLimitPercent, job.rules.maxOpenTrades])).toEqual([
      [undefined, 2, 1],
      [0.5, 2, 1],
    ]);
    // One setting sizes by risk, so the sweep read the terms, and every member carries them.
    for (const job of jobs) {
      expect(job.terms).toEqual({ EUR_USD: { contractSize: 100_000, volumeMin: '0.01', volumeMax: '100', volumeStep: '0.01', stopsLevel: 10 } });
    }
    for (const call of runner.calls) call.finish();
  });

  it('takes the config’s risk settings as a backtest’s defaults, listed among its rules when on', async () => {
    const env = { SIZING: 'risk', RISK_PERCENT: '0.5', MAX_OPEN_TRADES: '2', DAILY_LOSS_LIMIT: '3', COOLDOWN_LOSSES: '2', COOLDOWN_CANDLES: '12' };
    const { app, lab } = await start({ labRunner: instantRunner, env });
    const id = await submit(app, { instruments: ['EUR_USD'], ...WEEK, rules: { max_drawdown: 10, cooldown_candles: 0 } });
    await lab.whenIdle();
    expect((await get(app, `/backtests/${id}`)).settings.rules).toEqual({
      ...SETTINGS.rules,
      risk_percent: 0.5,
      max_open_trades: 2,
      daily_loss_limit: 3,
      max_drawdown: 10,
      cooldown_losses: 2,
    });
    expect((await get(app, '/lab/defaults')).rules).toMatchObject({ risk_percent: 0.5, max_open_trades: 2, cooldown_candles: 12 });
  });

  it('refuses five years of M1 with 422 when the market trades all week (SIM_MARKET_HOURS=false), counting every minute', async () => {
    const body = { instruments: ['EUR_USD'], timeframe: 'M1', from: '2021-01-01', to: '2026-01-01' };
    const { app } = await start({ labRunner: new ManualRunner(), env: { SIM_MARKET_HOURS: 'false' } });
    const res = await app.inject({ method: 'POST', url: '/backtests', payload: body });
    expect(res.statusCode, res.body).toBe(422);
    // 1,826 days of 1,440 minutes, and the 150 of the warm-up.
    expect(res.json()).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: [{ path: 'body.to', message: expect.stringMatching(/holds 2629590 candles of M1 for 1 pairs .*more than LAB_MAX_CANDLES \(2000000\)/) }],
    });
  });

  it('counts the minutes of the FX week when the market keeps its hours', async () => {
    const body = { instruments: ['EUR_USD'], timeframe: 'M1', from: '2021-01-01', to: '2026-01-01' };
    const { app } = await start({ labRunner: new ManualRunner(), env: { SIM_MARKET_HOURS: 'true', LAB_MAX_CANDLES: '1000000' } });
    const res = await app.inject({ method: 'POST', url: '/backtests', payload: body });
    const count = candlesBetween('M1', Date.parse(body.from) / 1000, Date.parse(body.to) / 1000, 'fx_week');
    expect(res.json<{ message: string }>().message).toContain(`holds ${count + 150} candles of M1`);
  });

  it('answers 503 LAB_QUEUE_FULL with Retry-After once LAB_MAX_QUEUE jobs wait', async () => {
    const runner = new ManualRunner();
    const { app } = await start({ labRunner: runner, env: { LAB_WORKERS: '1', LAB_MAX_QUEUE: '1' } });
    await submit(app, { instruments: ['EUR_USD'], ...WEEK });
    await submit(app, { instruments: ['EUR_USD'], ...WEEK });
    const full = await app.inject({ method: 'POST', url: '/backtests', payload: { instruments: ['EUR_USD'], ...WEEK } });
    expect(full.statusCode).toBe(503);
    expect(full.json()).toMatchObject({ code: 'LAB_QUEUE_FULL' });
    expect(Number(full.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('counts POST and DELETE on the POST limit of spec 000, GETs on the GET one', async () => {
    const { app } = await start({ labRunner: instantRunner, env: { RATE_LIMIT_POST_PER_MINUTE: '2', RATE_LIMIT_GET_PER_MINUTE: '100' } });
    const id = await submit(app, { instruments: ['EUR_USD'], ...WEEK });
    expect((await app.inject({ url: `/backtests/${id}` })).statusCode).toBe(200);
    expect((await app.inject({ method: 'DELETE', url: '/backtests/unknown' })).statusCode).toBe(404);
    const limited = await app.inject({ method: 'DELETE', url: `/backtests/${id}` });
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toMatchObject({ code: 'RATE_LIMITED' });
  });
});

describe('cancelling and deleting', () => {
  it('cancels a running backtest: its worker is told, the record is cancelled and stays so', async () => {
    const runner = new ManualRunner();
    const { app, lab } = await start({ labRunner: runner });
    const id = await submit(app, { instruments: ['EUR_USD'], ...WEEK });
    const call = await runner.next();
    const res = await app.inject({ method: 'DELETE', url: `/backtests/${id}` });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id, status: 'cancelled', metrics: null });
    expect(call.signal?.aborted).toBe(true);
    await lab.whenIdle();
    expect(await get(app, `/backtests/${id}`)).toMatchObject({ status: 'cancelled', error: null });
  });

  it('cancels a queued backtest before it runs', async () => {
    const runner = new ManualRunner();
    const { app, lab } = await start({ labRunner: runner, env: { LAB_WORKERS: '1' } });
    await submit(app, { instruments: ['EUR_USD'], ...WEEK });
    const queued = await submit(app, { instruments: ['USD_JPY'], ...WEEK });
    expect((await app.inject({ method: 'DELETE', url: `/backtests/${queued}` })).json()).toMatchObject({ status: 'cancelled', started_at: null });
    (await runner.next()).finish();
    await lab.whenIdle();
    expect(runner.calls).toHaveLength(1);
    expect((await get(app, `/backtests/${queued}`)).status).toBe('cancelled');
  });

  it('deletes a backtest that has ended, with its trades and equity (204, then 404)', async () => {
    const { app, lab } = await start({ labRunner: instantRunner });
    const id = await submit(app, { instruments: ['EUR_USD'], ...WEEK });
    await lab.whenIdle();
    const res = await app.inject({ method: 'DELETE', url: `/backtests/${id}` });
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    for (const url of [`/backtests/${id}`, `/backtests/${id}/trades`, `/backtests/${id}/equity`]) {
      const gone = await app.inject({ url });
      expect(gone.statusCode).toBe(404);
      expect(gone.json()).toMatchObject({ code: 'BACKTEST_NOT_FOUND' });
    }
  });

  it('fails a backtest whose run fails, with the reason', async () => {
    const runner = new ManualRunner();
    const { app, lab } = await start({ labRunner: runner });
    const id = await submit(app, { instruments: ['EUR_USD'], ...WEEK });
    (await runner.next()).fail(new Error('the lab worker running this backtest crashed (exit code 1)'));
    await lab.whenIdle();
    expect(await get(app, `/backtests/${id}`)).toMatchObject({
      status: 'failed',
      error: { code: 'FAILED', message: 'the lab worker running this backtest crashed (exit code 1)' },
    });
  });
});

describe('across restarts', () => {
  it('keeps a finished backtest readable by the next process on the same DATA_DIR', async () => {
    const labDbFile = path.join(temp.dir, 'survives.db');
    const first = await start({ labRunner: instantRunner, labDbFile });
    const id = await submit(first.app, { instruments: ['EUR_USD', 'USD_JPY'], ...WEEK });
    await first.lab.whenIdle();
    const before = ['', '/trades', '/equity'].map((tail) => get(first.app, `/backtests/${id}${tail}`));
    const readings = await Promise.all(before);
    await first.close();
    h = undefined;

    const second = await start({ labRunner: instantRunner, labDbFile });
    expect(await Promise.all(['', '/trades', '/equity'].map((tail) => get(second.app, `/backtests/${id}${tail}`)))).toEqual(readings);
  });

  it('fails a job running at a shutdown (INTERRUPTED), as the next process reads it', async () => {
    const labDbFile = path.join(temp.dir, 'shutdown.db');
    const runner = new ManualRunner();
    const first = await start({ labRunner: runner, labDbFile });
    const id = await submit(first.app, { instruments: ['EUR_USD'], ...WEEK });
    const call = await runner.next();
    await first.close();
    h = undefined;
    expect(call.signal?.aborted).toBe(true);

    const second = await start({ labRunner: instantRunner, labDbFile });
    expect(await get(second.app, `/backtests/${id}`)).toMatchObject({ status: 'failed', error: { code: 'INTERRUPTED', message: 'interrupted by a restart' } });
  });

  it('fails at the next start the jobs a process that died left running or queued', async () => {
    const labDbFile = path.join(temp.dir, 'crashed.db');
    // What a killed process leaves behind: records still running and queued.
    const left = await SqlLabStore.open({ file: labDbFile });
    const stamps = { createdAt: '2026-01-05T11:00:00.000Z', leaseExpiresAt: '2026-01-05T11:00:30.000Z' };
    await left.insertBacktest({ id: 'running', name: null, settings: SETTINGS, ...stamps });
    await left.startBacktest('running', '2026-01-05T11:00:01.000Z');
    await left.insertBacktest({ id: 'queued', name: null, settings: SETTINGS, ...stamps });
    await left.close();

    const { app } = await start({ labRunner: instantRunner, labDbFile });
    for (const id of ['running', 'queued']) {
      expect(await get(app, `/backtests/${id}`)).toMatchObject({
        status: 'failed',
        finished_at: '2026-01-05T12:00:00.000Z',
        error: { code: 'INTERRUPTED', message: 'interrupted by a restart' },
      });
    }
  });
});

describe('sweeps', () => {
  const base = { instruments: ['EUR_USD'], ...WEEK };

  it('runs every setting of a grid as a backtest one can open, ranked by the metric', async () => {
    const { app, lab } = await start({ labRunner: instantRunner });
    const id = await submit(app, { base, grid: { risk_reward: [1, 3, 2], min_confluence: [1, 2] }, rank_by: 'net_profit' }, '/sweeps');
    await lab.whenIdle();
    const sweep = await get(app, `/sweeps/${id}`);
    expect(sweep).toMatchObject({ status: 'done', progress: 1, settings_count: 6, walk_forward: null });
    expect(sweep.results.map((r: { rules: { risk_reward: number; min_confluence: number } }) => [r.rules.risk_reward, r.rules.min_confluence])).toEqual([
      [3, 2],
      [3, 1],
      [2, 2],
      [2, 1],
      [1, 2],
      [1, 1],
    ]);
    expect(sweep.results.map((r: { rank: number }) => r.rank)).toEqual([1, 2, 3, 4, 5, 6]);
    const best = await get(app, `/backtests/${sweep.results[0].backtest_id}`);
    expect(best).toMatchObject({ status: 'done', sweep_id: id, settings: { rules: { risk_reward: 3, min_confluence: 2 } } });
    expect(best.metrics.overall.net_profit).toBe(sweep.results[0].metric);
    expect((await get(app, `/backtests?sweep_id=${id}`)).backtests).toHaveLength(6);
    expect((await get(app, '/backtests')).backtests).toEqual([]);
    expect((await get(app, '/sweeps')).sweeps[0]).toMatchObject({ id, best: { rank: 1, backtest_id: sweep.results[0].backtest_id } });
    const alone = await app.inject({ method: 'DELETE', url: `/backtests/${best.id}` });
    expect(alone.statusCode).toBe(409);
    expect(alone.json()).toMatchObject({ code: 'BACKTEST_IN_SWEEP' });
  });

  it('walks forward: the best in-sample setting of each window runs out-of-sample as a backtest of the sweep', async () => {
    const jobs: BacktestJob[] = [];
    const recording: LabRunner = { run: (job) => (jobs.push(job), instantRunner.run(job)) };
    const { app, lab } = await start({ labRunner: recording });
    const id = await submit(
      app,
      { base, grid: { risk_reward: [1, 2] }, rank_by: 'net_profit', walk_forward: { windows: 2, in_sample_fraction: 0.75 } },
      '/sweeps',
    );
    await lab.whenIdle();
    const sweep = await get(app, `/sweeps/${id}`);
    expect(sweep.status).toBe('done');
    // 2 settings over the range, 2 × 2 in-sample runs, 1 out-of-sample run per window.
    expect(jobs).toHaveLength(2 + 4 + 2);
    // Each reads its range as a backtest of that range alone would: WARMUP_CANDLES before it, none after.
    for (const job of jobs) {
      const times = [...(job.pairs[0]?.candles.time ?? [])];
      expect(times.filter((time) => time < job.fromSec)).toHaveLength(150);
      expect(times.every((time) => time < job.toSec)).toBe(true);
    }
    const windows = sweep.walk_forward.windows;
    expect(windows.map((w: { in_sample: unknown; out_of_sample: unknown }) => [w.in_sample, w.out_of_sample])).toEqual([
      [
        { from: '2025-12-01T00:00:00.000Z', to: '2025-12-02T21:00:00.000Z' },
        { from: '2025-12-02T21:00:00.000Z', to: '2025-12-03T12:00:00.000Z' },
      ],
      [
        { from: '2025-12-03T12:00:00.000Z', to: '2025-12-05T09:00:00.000Z' },
        { from: '2025-12-05T09:00:00.000Z', to: '2025-12-06T00:00:00.000Z' },
      ],
    ]);
    for (const window of windows) {
      expect(window.chosen.rules.risk_reward).toBe(2);
      const oos = await get(app, `/backtests/${window.chosen.backtest_id}`);
      expect(oos).toMatchObject({
        status: 'done',
        sweep_id: id,
        settings: { from: window.out_of_sample.from, to: window.out_of_sample.to, rules: { risk_reward: 2 } },
      });
      expect(window.chosen.out_of_sample_metric).toBe(oos.metrics.overall.net_profit);
    }
    const total = windows.reduce((sum: number, w: { chosen: { out_of_sample_metric: number } }) => sum + w.chosen.out_of_sample_metric, 0);
    expect(sweep.walk_forward.out_of_sample_total).toMatchObject({ metric: total, net_profit: total, trade_count: 2 });
    // The out-of-sample backtests are the sweep's, not among its ranked settings.
    expect(sweep.results).toHaveLength(2);
  });

  it('draws the same random sample for the same seed', async () => {
    const { app, lab } = await start({ labRunner: instantRunner });
    const random = { samples: 5, seed: 42, ranges: { supertrend_multiplier: { min: 1, max: 4, step: 0.5 }, supertrend_atr_period: { min: 5, max: 20 } } };
    const one = await submit(app, { base, random, rank_by: 'sharpe' }, '/sweeps');
    const two = await submit(app, { base, random, rank_by: 'sharpe' }, '/sweeps');
    await lab.whenIdle();
    const rulesOf = async (id: string) =>
      ((await get(app, `/backtests?sweep_id=${id}`)).backtests as Array<{ settings: { rules: unknown } }>).map((b) => b.settings.rules);
    expect(await rulesOf(one)).toHaveLength(5);
    expect(await rulesOf(two)).toEqual(await rulesOf(one));
  });

  it('cancels a running sweep with its unfinished backtests, and deletes it with them once ended', async () => {
    const runner = new ManualRunner();
    const { app, lab } = await start({ labRunner: runner, env: { LAB_WORKERS: '1' } });
    const id = await submit(app, { base, grid: { risk_reward: [1, 2, 3] }, rank_by: 'net_profit' }, '/sweeps');
    (await runner.next()).finish();
    const second = await runner.next();
    const res = await app.inject({ method: 'DELETE', url: `/sweeps/${id}` });
    expect(res.json()).toMatchObject({ status: 'cancelled' });
    expect(second.signal?.aborted).toBe(true);
    await lab.whenIdle();
    const statuses = ((await get(app, `/sweeps/${id}`)).results as Array<{ status: string }>).map((r) => r.status).sort();
    expect(statuses).toEqual(['cancelled', 'cancelled', 'done']);
    expect((await app.inject({ method: 'DELETE', url: `/sweeps/${id}` })).statusCode).toBe(204);
    expect((await app.inject({ url: `/sweeps/${id}` })).statusCode).toBe(404);
    expect((await get(app, `/backtests?sweep_id=${id}`)).backtests).toEqual([]);
  });
});

describe('@fxdesk/client', () => {
  it("drives the lab with StrategyClient's typed calls", async () => {
    const { app, lab } = await start({ labRunner: instantRunner });
    const client = new StrategyClient({ baseUrl: await app.listen({ host: '127.0.0.1', port: 0 }) });
    try {
      const { id } = await client.submitBacktest({ instruments: ['EUR_USD'], ...WEEK });
      await lab.whenIdle();
      expect(await client.backtest(id)).toMatchObject({ id, status: 'done' });
      expect((await client.backtests()).backtests.map((b) => b.id)).toEqual([id]);
      expect((await client.backtestTrades(id, { instrument: 'EUR_USD' })).trades).toHaveLength(1);
      expect(await client.backtestEquity(id)).toHaveLength(2);
      expect((await client.backtestCandles(id, { instrument: 'EUR_USD', to: '2025-12-01T01:00:00Z' })).candles).toHaveLength(12);
      expect(await client.deleteBacktest(id)).toBeUndefined();
      await expect(client.backtest(id)).rejects.toMatchObject({ status: 404, code: 'BACKTEST_NOT_FOUND' });

      const sweep = await client.submitSweep({ base: { instruments: ['EUR_USD'], ...WEEK }, grid: { min_confluence: [1, 2] }, rank_by: 'expectancy' });
      await lab.whenIdle();
      expect((await client.sweep(sweep.id)).results).toHaveLength(2);
      expect((await client.sweeps()).sweeps.map((s) => s.id)).toEqual([sweep.id]);
      expect(await client.deleteSweep(sweep.id)).toBeUndefined();
    } finally {
      await client.close();
    }
  });
});

describe('on worker threads', () => {
  it('runs a backtest of the simulated market on the pool, with the metrics of the same job run in-process', async () => {
    const pool = new LabPool({ workers: 1 });
    let job: BacktestJob | undefined;
    const recording: LabRunner = { run: (j, options) => ((job = j), pool.run(j, options)) };
    try {
      const { app, lab } = await start({ labRunner: recording, env: { MIN_CONFLUENCE: '1' } });
      const id = await submit(app, { instruments: ['EUR_USD', 'USD_JPY'], ...WEEK });
      await lab.whenIdle();
      const done = await get(app, `/backtests/${id}`);
      expect(done.status).toBe('done');
      const inProcess = runBacktestJob(job as BacktestJob);
      expect(done.metrics).toEqual(inProcess.metrics);
      expect(inProcess.trades.length).toBeGreaterThan(0);
      expect((await get(app, `/backtests/${id}/trades?limit=1000`)).trades).toEqual(inProcess.trades);
    } finally {
      await pool.close();
    }
  });
});

async function waitForStatus(app: Harness['app'], url: string, status: string) {
  for (;;) {
    const record = await get(app, url);
    if (record.status === status) return record;
    await new Promise((resolve) => setImmediate(resolve));
  }
}
