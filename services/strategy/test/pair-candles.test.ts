import { SimulatedMarket } from '@fxdesk/broker';
import { ServiceError } from '@fxdesk/client';
import { Supertrend } from '@fxdesk/indicators';
import { ManualClock } from '@fxdesk/primitives';
import { PairCandlesSchema } from '@fxdesk/schemas';
import { afterEach, describe, expect, it } from 'vitest';
import { SimulatedSource } from '../src/simulated-source.js';
import { harness, MONDAY_NOON, sourceWith, testConfig, type Harness } from './helpers.js';

let cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

/** The strategy running on EUR_USD, warmed up. */
async function started(env: Record<string, string> = {}): Promise<Harness> {
  const h = await harness({ env });
  cleanups.push(() => h.close());
  await h.app.inject({ method: 'POST', url: '/start', payload: { instruments: ['EUR_USD'] } });
  await h.settle();
  return h;
}

describe('GET /pairs/{instrument}/candles', () => {
  it('answers recent closed candles, oldest first, each with the supertrend, stochrsi, fvg and volume_profile after it', async () => {
    const h = await started();
    const res = await h.app.inject({ url: '/pairs/EUR_USD/candles?limit=3' });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ instrument: 'EUR_USD', timeframe: 'M5' });
    expect(body.candles.map((c: { time: string }) => c.time)).toEqual(['2026-01-05T11:45:00.000Z', '2026-01-05T11:50:00.000Z', '2026-01-05T11:55:00.000Z']);
    const last = body.candles[2];
    expect(last).toEqual({
      time: '2026-01-05T11:55:00.000Z',
      open: expect.any(Number),
      high: expect.any(Number),
      low: expect.any(Number),
      close: expect.any(Number),
      volume: expect.any(Number),
      supertrend: { direction: expect.any(Number), value: expect.any(Number) },
      stochrsi: { k: expect.any(Number), d: expect.any(Number), signal: expect.any(String) },
      fvg: { type: expect.any(String), zone: expect.anything() },
      volume_profile: { poc: expect.any(Number), vah: expect.any(Number), val: expect.any(Number) },
    });
    const pair = (await h.app.inject({ url: '/pairs' })).json().pairs[0];
    expect(pair.supertrend).toEqual(last.supertrend);
    expect(pair.stochrsi).toEqual({ k: last.stochrsi.k, d: last.stochrsi.d });
  });

  it('gives null indicator values for the candles before each indicator warmed up', async () => {
    const h = await started();
    const first = (await h.app.inject({ url: '/pairs/EUR_USD/candles?limit=500' })).json().candles[0];
    expect(first).toMatchObject({ supertrend: null, stochrsi: null, fvg: null, volume_profile: null });
  });

  it('answers 404 INSTRUMENT_NOT_FOUND for a pair that is not monitored, on any timeframe', async () => {
    const h = await started();
    for (const url of ['/pairs/GBP_USD/candles', '/pairs/GBP_USD/candles?timeframe=H1']) {
      const res = await h.app.inject({ url });
      expect(res.statusCode).toBe(404);
      expect(res.json().code).toBe('INSTRUMENT_NOT_FOUND');
    }
  });

  it('answers the same candles for timeframe=TIMEFRAME as without it', async () => {
    const h = await started();
    const plain = (await h.app.inject({ url: '/pairs/EUR_USD/candles?limit=20' })).json();
    expect((await h.app.inject({ url: '/pairs/EUR_USD/candles?limit=20&timeframe=M5' })).json()).toEqual(plain);
  });

  it("charts another timeframe from the market's history, the indicators run over it with the strategy's settings", async () => {
    const h = await started({ SUPERTREND_ATR_PERIOD: '7', SUPERTREND_MULTIPLIER: '2.5' });
    const res = await h.app.inject({ url: '/pairs/EUR_USD/candles?timeframe=H1&limit=50' });
    expect(res.statusCode).toBe(200);
    const body = PairCandlesSchema.parse(res.json());
    expect(body).toMatchObject({ instrument: 'EUR_USD', timeframe: 'H1' });
    expect(body.candles).toHaveLength(50);
    // Hours, oldest first, up to the one that closed at 12:00 (the weekend, when the market is closed, has none).
    const times = body.candles.map((c) => Date.parse(c.time));
    expect(times.at(-1)).toBe(MONDAY_NOON - 3_600_000);
    expect(times.every((t, i) => t % 3_600_000 === 0 && (i === 0 || t > times[i - 1]!))).toBe(true);

    // The same history, through the indicators themselves: limit + WARMUP_CANDLES hours.
    const history = await h.deps.source.closedCandles('EURUSD', 'H1', 50 + h.config.WARMUP_CANDLES);
    const supertrend = new Supertrend({ atrPeriod: 7, multiplier: 2.5 });
    const expected = history.map((candle) => supertrend.update(candle)).slice(-50);
    expect(body.candles.map((c) => [c.open, c.high, c.low, c.close])).toEqual(history.slice(-50).map((c) => [c.open, c.high, c.low, c.close]));
    expect(body.candles.map((c) => c.supertrend?.direction)).toEqual(expected.map((v) => v?.direction));
    expect(body.candles.map((c) => c.supertrend?.value)).toEqual(expected.map((v) => v && Number(v.value.toFixed(6))));
    // Warmed up from the first candle on: the history before them fed the indicators.
    expect(body.candles.filter((c) => !(c.supertrend && c.stochrsi && c.fvg && c.volume_profile))).toEqual([]);
  });

  it('answers 503 DOWNSTREAM_UNAVAILABLE when the market cannot give another timeframe, while TIMEFRAME still answers from the pair', async () => {
    const clock = new ManualClock(MONDAY_NOON);
    const config = testConfig();
    const real = new SimulatedSource(new SimulatedMarket({ seed: config.SIM_SEED, tickIntervalMs: config.SIM_TICK_INTERVAL_MS, marketHours: true, clock }));
    const down = new ServiceError({ service: 'market-data', kind: 'network', code: 'network_error', message: 'connect ECONNREFUSED' });
    const source = sourceWith(real, {
      closedCandles: (symbol, timeframe, count) => (timeframe === 'M5' ? real.closedCandles(symbol, timeframe, count) : Promise.reject(down)),
    });
    const h = await harness({ clock, deps: { source } });
    cleanups.push(() => h.close());
    await h.app.inject({ method: 'POST', url: '/start', payload: { instruments: ['EUR_USD'] } });
    await h.settle();
    const res = await h.app.inject({ url: '/pairs/EUR_USD/candles?timeframe=H4' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({ code: 'DOWNSTREAM_UNAVAILABLE', message: expect.stringContaining('ECONNREFUSED') });
    expect((await h.app.inject({ url: '/pairs/EUR_USD/candles' })).statusCode).toBe(200);
  });

  it('refuses a timeframe it does not know with 422', async () => {
    const h = await started();
    const res = await h.app.inject({ url: '/pairs/EUR_USD/candles?timeframe=M2' });
    expect(res.statusCode).toBe(422);
    expect(res.json().details[0].path).toBe('querystring.timeframe');
  });
});
