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

describe('GET /v1/market-data/candles with from and to', () => {
  // Wednesday 2026-01-14 15:42 UTC; the week before holds a weekend.
  const now = Date.UTC(2026, 0, 14, 15, 42, 10);
  const HOUR = 3_600_000;
  type Page = { candles: IntervalCandle[]; next_from?: string | null };

  async function page(s: Service, query: string): Promise<Page> {
    const res = await s.app.inject({ method: 'GET', url: `/v1/market-data/candles?symbol=EURUSD&${query}`, headers: auth });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<Page>();
  }

  /** Every page from `from` on, following next_from. */
  async function allPages(s: Service, timeframe: Timeframe, from: string, to: string, count: number): Promise<{ candles: IntervalCandle[]; pages: number }> {
    const candles: IntervalCandle[] = [];
    let pages = 0;
    for (let next: string | null | undefined = from; next; pages++) {
      const got = await page(s, `timeframe=${timeframe}&from=${next}&to=${to}&count=${count}`);
      candles.push(...got.candles);
      next = got.next_from;
    }
    return { candles, pages };
  }

  it('answers the closed candles whose interval starts in [from, to), oldest first, as the market builds them', async () => {
    service = await buildSimulatedService({ start: now, tickIntervalMs: 5000 });
    const from = Date.UTC(2026, 0, 13, 9, 2);
    const to = Date.UTC(2026, 0, 13, 15, 0);
    const got = await page(service, `timeframe=M5&from=${iso(from)}&to=${iso(to)}`);
    const bars = service.market.barsBetween('EURUSD', 'M5', from, to);
    expect(got.next_from).toBeNull();
    expect(got.candles[0]!.ts).toBe('2026-01-13T09:10:00.000Z');
    expect(got.candles.at(-1)!.ts).toBe('2026-01-13T15:00:00.000Z');
    expect(got.candles).toEqual(
      bars.map((bar) => expect.objectContaining({ ts: iso(bar.time * 1000 + 300_000), open: bar.open, high: bar.high, low: bar.low, close: bar.close })),
    );
  });

  it('pages at count, and the pages followed through next_from are one big answer without a gap or a repeat', async () => {
    service = await buildSimulatedService({ start: now, tickIntervalMs: 5000 });
    const [from, to] = [iso(Date.UTC(2026, 0, 8)), iso(Date.UTC(2026, 0, 14))];
    const whole = await page(service, `timeframe=M15&from=${from}&to=${to}`);
    expect(whole.next_from).toBeNull();
    const paged = await allPages(service, 'M15', from, to, 37);
    expect(paged.candles).toEqual(whole.candles);
    expect(paged.pages).toBe(Math.ceil(whole.candles.length / 37));
  });

  it('starts the next page where the first candle left out starts: past a weekend, at the Sunday open', async () => {
    service = await buildSimulatedService({ start: now, tickIntervalMs: 5000 });
    const fridayLastHour = Date.UTC(2026, 0, 9, 21);
    const got = await page(service, `timeframe=H1&from=${iso(fridayLastHour)}&to=${iso(now)}&count=1`);
    expect(got.candles.map((c) => c.ts)).toEqual(['2026-01-09T22:00:00.000Z']);
    expect(got.next_from).toBe('2026-01-11T22:00:00.000Z');
  });

  it('never answers the candle still forming, and ends a range reaching past now with next_from null', async () => {
    service = await buildSimulatedService({ start: now, tickIntervalMs: 5000 });
    const got = await page(service, `timeframe=H1&from=${iso(now - 3 * HOUR)}&to=${iso(now + 24 * HOUR)}`);
    expect(got.candles.map((c) => c.ts)).toEqual(['2026-01-14T14:00:00.000Z', '2026-01-14T15:00:00.000Z']);
    expect(got.next_from).toBeNull();
  });

  it('answers the same candles for a past range whatever the time it is asked', async () => {
    const early = await buildSimulatedService({ start: now, tickIntervalMs: 5000 });
    service = await buildSimulatedService({ start: now + 400 * 24 * HOUR, tickIntervalMs: 5000 });
    const query = `timeframe=M30&from=${iso(now - 30 * HOUR)}&to=${iso(now - 2 * HOUR)}`;
    expect(await page(service, query)).toEqual(await page(early, query));
    await early.app.close();
  });

  it('asks the feed for one bar more than the page, from and to in epoch milliseconds', async () => {
    const s = await buildTestService({ config: { MAX_CANDLES: '500' } });
    await page(s as unknown as Service, 'timeframe=H4&from=2026-01-01T00:00:00%2B01:00&to=2026-01-05T00:00:00Z');
    await page(s as unknown as Service, 'from=2026-01-01T00:00:00Z&to=2026-01-05T00:00:00Z&count=20');
    expect(s.feed.rangeRequests).toEqual([
      { symbol: 'EURUSD', timeframe: 'H4', fromMs: Date.UTC(2025, 11, 31, 23), toMs: Date.UTC(2026, 0, 5), limit: 501 },
      { symbol: 'EURUSD', timeframe: 'M1', fromMs: Date.UTC(2026, 0, 1), toMs: Date.UTC(2026, 0, 5), limit: 21 },
    ]);
    await s.app.close();
  });

  it('reads from `from` until now when `to` is left out', async () => {
    const s = await buildTestService({ start: '2026-01-05T12:00:00Z' });
    await page(s as unknown as Service, 'from=2026-01-05T00:00:00Z');
    expect(s.feed.rangeRequests.map((r) => [r.fromMs, r.toMs])).toEqual([[Date.UTC(2026, 0, 5), Date.UTC(2026, 0, 5, 12)]]);
    await s.app.close();
  });

  it('refuses from at or after to, and to without from, with 422 invalid_range', async () => {
    const s = await buildTestService();
    for (const query of [
      'from=2026-01-05T00:00:00Z&to=2026-01-05T00:00:00Z',
      'from=2026-01-06T00:00:00Z&to=2026-01-06T01:00:00%2B02:00',
      'to=2026-01-05T00:00:00Z',
    ]) {
      const res = await s.app.inject({ method: 'GET', url: `/v1/market-data/candles?symbol=EURUSD&${query}`, headers: auth });
      expect(res.statusCode, query).toBe(422);
      expect(res.json(), query).toMatchObject({ error: true, code: 'invalid_range' });
    }
    expect(s.feed.rangeRequests).toEqual([]);
    await s.app.close();
  });

  it('refuses a date without a zone or not a date, and a count above MAX_CANDLES, with 422 validation_error', async () => {
    const s = await buildTestService({ config: { MAX_CANDLES: '500' } });
    for (const query of [
      'from=2026-01-05T00:00:00&to=2026-01-06T00:00:00Z',
      'from=yesterday&to=2026-01-06T00:00:00Z',
      'from=2026-01-05T00:00:00Z&to=2026-01-06T00:00:00Z&count=501',
    ]) {
      const res = await s.app.inject({ method: 'GET', url: `/v1/market-data/candles?symbol=EURUSD&${query}`, headers: auth });
      expect(res.statusCode, query).toBe(422);
      expect(res.json(), query).toMatchObject({ error: true, code: 'validation_error' });
    }
    expect(s.feed.rangeRequests).toEqual([]);
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
