import type { ErrorEnvelopeBody, PairCandles } from '@fxdesk/schemas';
import { afterEach, describe, expect, it } from 'vitest';
import { SimulatedLabHistory } from '../src/lab/candles.js';
import { CHART_WARMUP_CANDLES } from '../src/lab/chart.js';
import { candlesOf } from '../src/lab/columns.js';
import { PairTracker, trackerSettings, trackerSettingsOf } from '../src/pair-tracker.js';
import { rulesOf, withOverrides } from '../src/rules.js';
import { harness, type Harness } from './helpers.js';
import { instantRunner, ManualRunner } from './lab-jobs.fixture.js';

/** A week of December 2025, long before the harness's clock (Monday 2026-01-05 12:00 UTC). */
const WEEK = { from: '2025-12-01', to: '2025-12-06' };
const FROM_SEC = Date.UTC(2025, 11, 1) / 1000;
/** Rules other than the live ones: the chart must be drawn with these. */
const OVERRIDES = { supertrend_atr_period: 7, supertrend_multiplier: 2, volume_profile_window: 60 };
const iso = (sec: number) => new Date(sec * 1000).toISOString();

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function start(options: Parameters<typeof harness>[0] = {}): Promise<Harness> {
  h = await harness({ ...options, env: { RATE_LIMIT_GET_PER_MINUTE: '10000', RATE_LIMIT_POST_PER_MINUTE: '10000', CHART_CANDLES: '2000', ...options.env } });
  return h;
}

async function submit(app: Harness['app'], body: object): Promise<string> {
  const res = await app.inject({ method: 'POST', url: '/backtests', payload: body });
  expect(res.statusCode, res.body).toBe(202);
  return res.json<{ id: string }>().id;
}

async function candles(app: Harness['app'], url: string): Promise<PairCandles> {
  const res = await app.inject({ url });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<PairCandles>();
}

describe('GET /backtests/{id}/candles', () => {
  it("charts the run's window with the very indicators the run computed, on its rules, not the live ones", async () => {
    const runner = new ManualRunner();
    const { app, config } = await start({ labRunner: runner });
    const id = await submit(app, { instruments: ['EUR_USD', 'USD_JPY'], ...WEEK, rules: OVERRIDES });
    const call = await runner.next();
    call.finish();
    // The candles the run was handed: its warm-up, then the window.
    const ran = call.job.pairs.find((p) => p.instrument === 'USD_JPY')!;
    const ranCandles = candlesOf(ran.candles);
    const window = ranCandles.filter((c) => c.time >= FROM_SEC);
    const rules = withOverrides(rulesOf(config), OVERRIDES);
    const asRun = new PairTracker('USD_JPY', ran.symbol, ran.digits, trackerSettingsOf(rules, 'M5', window.length));
    asRun.ingest(ranCandles);

    const chart = await candles(app, `/backtests/${id}/candles?instrument=USD_JPY&limit=2000`);
    expect(chart).toEqual({ instrument: 'USD_JPY', timeframe: 'M5', candles: asRun.chartCandles(window.length) });
    expect(chart.candles[0]?.time).toBe(iso(window[0]!.time));

    const live = new PairTracker('USD_JPY', ran.symbol, ran.digits, trackerSettings(config, 'M5', window.length));
    live.ingest(ranCandles);
    expect(chart.candles.map((c) => c.supertrend)).not.toEqual(live.chartCandles(window.length).map((c) => c.supertrend));
  });

  it("answers the newest `limit` candles before `to`, warmed up on 3,000 candles before the first when the run started earlier: the run's own values", async () => {
    const runner = new ManualRunner();
    const { app, config, market } = await start({ labRunner: runner });
    const id = await submit(app, { instruments: ['EUR_USD'], from: '2025-11-03', to: WEEK.to, rules: OVERRIDES });
    const call = await runner.next();
    call.finish();
    const toSec = Date.UTC(2025, 11, 4) / 1000;
    const chart = await candles(app, `/backtests/${id}/candles?instrument=EUR_USD&from=2025-12-02&to=2025-12-04T00:00:00Z&limit=300`);

    const rules = withOverrides(rulesOf(config), OVERRIDES);
    const digits = market.spec('EURUSD')!.digits;
    const history = await new SimulatedLabHistory(market).candles('EURUSD', 'M5', Date.UTC(2025, 10, 1) / 1000, toSec);
    const fresh = new PairTracker('EUR_USD', 'EURUSD', digits, trackerSettingsOf(rules, 'M5', 300));
    fresh.ingest(history.slice(history.length - 300 - CHART_WARMUP_CANDLES));
    expect(chart.candles).toHaveLength(300);
    expect(chart.candles).toEqual(fresh.chartCandles(300));
    expect(chart.candles.at(-1)?.time).toBe(iso(history.at(-1)!.time));
    // The run started more than 2,500 candles further back, and computed the same values.
    const ran = candlesOf(call.job.pairs[0]!.candles).filter((c) => c.time < toSec);
    expect(ran.length - 300 - CHART_WARMUP_CANDLES).toBeGreaterThan(2500);
    const asRun = new PairTracker('EUR_USD', 'EURUSD', digits, trackerSettingsOf(rules, 'M5', 300));
    asRun.ingest(ran);
    expect(chart.candles).toEqual(asRun.chartCandles(300));
  });

  it("keeps to the run's window: a range reaching outside it answers the run's candles only", async () => {
    const { app } = await start({ labRunner: instantRunner });
    const id = await submit(app, { instruments: ['EUR_USD'], ...WEEK });
    await h!.lab.whenIdle();
    const chart = await candles(app, `/backtests/${id}/candles?instrument=EUR_USD&from=2025-11-20&to=2025-12-01T02:00:00Z`);
    expect(chart.candles.map((c) => c.time)).toEqual(Array.from({ length: 24 }, (_, i) => iso(FROM_SEC + i * 300)));
  });

  it('answers 404 for an unknown backtest or a pair not in it, 422 for a bad range or limit', async () => {
    const { app } = await start({ labRunner: instantRunner });
    const id = await submit(app, { instruments: ['EUR_USD'], ...WEEK });
    await h!.lab.whenIdle();
    const refusal = async (url: string, status: number) => {
      const res = await app.inject({ url });
      expect(res.statusCode, res.body).toBe(status);
      return res.json<ErrorEnvelopeBody>();
    };
    expect((await refusal('/backtests/nope/candles?instrument=EUR_USD', 404)).code).toBe('BACKTEST_NOT_FOUND');
    expect((await refusal(`/backtests/${id}/candles?instrument=GBP_USD`, 404)).code).toBe('INSTRUMENT_NOT_FOUND');
    expect((await refusal(`/backtests/${id}/candles?instrument=EUR_USD&from=2025-12-03&to=2025-12-02`, 422)).details).toEqual([
      { path: 'query.to', message: 'must be after from (2025-12-03)' },
    ]);
    expect((await refusal(`/backtests/${id}/candles?instrument=EUR_USD&from=2025-12-08`, 422)).details?.[0]?.path).toBe('query.from');
    expect((await refusal(`/backtests/${id}/candles?instrument=EUR_USD&to=2025-11-30`, 422)).details?.[0]?.path).toBe('query.to');
    expect((await refusal(`/backtests/${id}/candles?instrument=EUR_USD&limit=2001`, 422)).code).toBe('VALIDATION_ERROR');
    expect((await refusal(`/backtests/${id}/candles?instrument=EUR_USD&from=yesterday`, 422)).code).toBe('VALIDATION_ERROR');
    expect((await refusal(`/backtests/${id}/candles`, 422)).code).toBe('VALIDATION_ERROR');
  });
});
