import { TIMEFRAME_SECONDS, TIMEFRAMES, type IntervalCandle, type Timeframe } from '@fxdesk/schemas';
import { afterEach, describe, expect, it } from 'vitest';
import { toIntervalCandles } from '../src/candles.js';
import { auth, buildSimulatedService, buildTestService } from './helpers.js';

type Service = Awaited<ReturnType<typeof buildSimulatedService>>;
let service: Service | undefined;

afterEach(async () => {
  await service?.app.close();
  service = undefined;
});

async function candles(s: Service, timeframe: Timeframe, count: number): Promise<IntervalCandle[]> {
  const res = await s.app.inject({ method: 'GET', url: `/v1/market-data/candles?symbol=EURUSD&timeframe=${timeframe}&count=${count}`, headers: auth });
  expect(res.statusCode).toBe(200);
  return res.json<{ candles: IntervalCandle[] }>().candles;
}

const iso = (ms: number) => new Date(ms).toISOString();

describe('GET /v1/market-data/candles on the simulated market', () => {
  // A Tuesday mid-morning, away from any boundary of the larger timeframes.
  const now = Date.UTC(2026, 0, 6, 10, 17, 23, 456);

  for (const timeframe of TIMEFRAMES) {
    it(`stamps every ${timeframe} candle with the end of its UTC interval and never returns the forming bar`, async () => {
      service = await buildSimulatedService({ start: now, tickIntervalMs: 5000 });
      const sizeMs = TIMEFRAME_SECONDS[timeframe] * 1000;
      const got = await candles(service, timeframe, 3);
      expect(got).toHaveLength(3);
      const ends = got.map((c) => Date.parse(c.ts));
      for (const end of ends) expect(end % sizeMs).toBe(0);
      // The newest candle is the interval that ended last; the one still forming is absent.
      expect(got.at(-1)?.ts).toBe(iso(Math.floor(now / sizeMs) * sizeMs));
      // Each candle is the provider's bar with the same open, moved from its start to its end.
      const bars = await service.feed.trendbars('EURUSD', timeframe, 4);
      expect(bars.at(-1)?.closed).toBe(false);
      expect(got).toEqual(
        bars.slice(0, 3).map((bar) =>
          expect.objectContaining({
            ts: iso(bar.time * 1000 + sizeMs),
            open: bar.open,
            high: bar.high,
            low: bar.low,
            close: bar.close,
            volume: bar.tickVolume,
          }),
        ),
      );
    });
  }

  it('at an H4 boundary returns the bar that just ended, and one millisecond before it, not yet', async () => {
    const boundary = Date.UTC(2026, 0, 6, 4, 0, 0);
    service = await buildSimulatedService({ start: boundary - 1, tickIntervalMs: 5000 });
    expect((await candles(service, 'H4', 2)).map((c) => c.ts)).toEqual(['2026-01-05T20:00:00.000Z', '2026-01-06T00:00:00.000Z']);
    service.clock.advance(1);
    expect((await candles(service, 'H4', 2)).map((c) => c.ts)).toEqual(['2026-01-06T00:00:00.000Z', '2026-01-06T04:00:00.000Z']);
  });

  it('at a D1 boundary (UTC midnight) returns the day that just ended, and one millisecond before it, not yet', async () => {
    const midnight = Date.UTC(2026, 0, 8);
    service = await buildSimulatedService({ start: midnight - 1, tickIntervalMs: 30_000 });
    expect((await candles(service, 'D1', 2)).map((c) => c.ts)).toEqual(['2026-01-06T00:00:00.000Z', '2026-01-07T00:00:00.000Z']);
    service.clock.advance(1);
    expect((await candles(service, 'D1', 2)).map((c) => c.ts)).toEqual(['2026-01-07T00:00:00.000Z', '2026-01-08T00:00:00.000Z']);
  });

  it('fills provider, source_instrument and the spread in price units with its source', async () => {
    service = await buildSimulatedService({ start: now, tickIntervalMs: 5000 });
    const [candle] = await candles(service, 'M5', 1);
    const [bar] = await service.feed.trendbars('EURUSD', 'M5', 2);
    expect(candle).toMatchObject({ provider: 'simulated', source_instrument: 'EURUSD', spread_source: 'provider_bar' });
    expect(candle?.spread).toBe(Number(((bar?.spread as number) / 100_000).toFixed(5)));
  });
});

describe('GET /v1/market-data/candles parameters', () => {
  it('asks the feed for one bar more than count (default M1 × 100) to make up for the forming one', async () => {
    const s = await buildTestService();
    const res = await s.app.inject({ method: 'GET', url: '/v1/market-data/candles?symbol=EURUSD', headers: auth });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ symbol: 'EURUSD', timeframe: 'M1', candles: [] });
    expect(s.feed.lastTrendbarRequest).toEqual({ symbol: 'EURUSD', timeframe: 'M1', count: 101 });
    await s.app.close();
  });

  it('refuses a count above MAX_CANDLES and an unknown timeframe with 422', async () => {
    const s = await buildTestService({ config: { MAX_CANDLES: '500' } });
    for (const query of ['count=501', 'count=0', 'timeframe=M2', 'timeframe=W1']) {
      const res = await s.app.inject({ method: 'GET', url: `/v1/market-data/candles?symbol=EURUSD&${query}`, headers: auth });
      expect(res.statusCode, query).toBe(422);
      expect(res.json()).toMatchObject({ error: true, code: 'validation_error' });
    }
    await s.app.close();
  });

  it('answers 404 symbol_not_found for a symbol the catalog does not list', async () => {
    const s = await buildTestService();
    const res = await s.app.inject({ method: 'GET', url: '/v1/market-data/candles?symbol=EURXYZ', headers: auth });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ code: 'symbol_not_found' });
    await s.app.close();
  });

  it('answers 503 broker_unavailable while the broker session is down', async () => {
    const s = await buildTestService();
    s.feed.setState('disconnected', 'heartbeat timeout');
    const res = await s.app.inject({ method: 'GET', url: '/v1/market-data/candles?symbol=EURUSD', headers: auth });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({ code: 'broker_unavailable' });
    await s.app.close();
  });
});

describe('toIntervalCandles', () => {
  const ctx = { timeframe: 'M1' as const, count: 10, provider: 'p', sourceInstrument: 'EURUSD', digits: 5 };
  const bar = (time: number, closed: boolean, spread: number | null = 12) => ({ time, open: 1, high: 2, low: 0.5, close: 1.5, tickVolume: 7, spread, closed });

  it('drops a bar flagged closed whose interval has not ended yet', () => {
    const got = toIntervalCandles([bar(0, true), bar(60, true)], { ...ctx, nowMs: 119_999 });
    expect(got.map((c) => c.ts)).toEqual(['1970-01-01T00:01:00.000Z']);
  });

  it('writes spread and spread_source null when the bar carries no spread', () => {
    const [candle] = toIntervalCandles([bar(0, true, null)], { ...ctx, nowMs: 60_000 });
    expect(candle).toMatchObject({ spread: null, spread_source: null });
  });

  it('keeps the newest count closed bars, oldest first', () => {
    const got = toIntervalCandles([bar(0, true), bar(60, true), bar(120, true), bar(180, false)], { ...ctx, count: 2, nowMs: 200_000 });
    expect(got.map((c) => c.ts)).toEqual(['1970-01-01T00:02:00.000Z', '1970-01-01T00:03:00.000Z']);
  });
});
