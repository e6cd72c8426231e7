import type { App } from '@fxdesk/core';
import { ManualClock } from '@fxdesk/primitives';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { rowOf, type CandleStore, type SeriesKey } from '../src/store/candle-store.js';
import { coverageOf } from '../src/store/coverage.js';
import type { StoredCandle } from '../src/store/resample.js';
import { memoryCandleStore } from './candle-files.js';
import { auth, buildOn, fakeDeps, testConfig } from './helpers.js';

const MINUTE = 60_000;
const START = Date.parse('2024-01-09T10:00:00Z');

/** Three hours of M1 from 10:00 UTC on Tuesday 9 January 2024. */
const M1: StoredCandle[] = Array.from({ length: 180 }, (_, i) => ({
  time: START + i * MINUTE,
  open: 1.1,
  high: 1.1 + i / 1e4,
  low: 1.09,
  close: 1.1,
  volume: 1,
  spread: 10,
}));

let store: CandleStore;
let app: App;

async function add(candles: StoredCandle[], key: SeriesKey = { source: 'file', symbol: 'EUR_USD', timeframe: 'M1' }) {
  await store.add(key, (series) => [candles.map((c) => rowOf(series, c))]);
}

beforeEach(async () => {
  store = await memoryCandleStore();
  await add(M1);
  ({ app } = await buildOn(testConfig({ MAX_CANDLES: '100' }), { ...fakeDeps(new ManualClock('2024-02-01T00:00:00Z')), candleStore: store }));
  await app.ready();
});

afterEach(async () => {
  await app.close();
  await store.close();
});

interface Page {
  source: string;
  resampled_from: string | null;
  candles: Array<{ time: string; high: number }>;
  next_cursor: string | null;
}

async function get(query: Record<string, string>) {
  const res = await app.inject({ method: 'GET', url: '/v1/market-data/stored-candles', query, headers: auth });
  return { status: res.statusCode, body: res.json<Page & { code: string }>() };
}

describe('GET /v1/market-data/stored-candles', () => {
  it('answers the stored M1 of a range, oldest first, with their start times', async () => {
    const { status, body } = await get({ symbol: 'EUR_USD', from: '2024-01-09T10:00:00Z', to: '2024-01-09T10:03:00Z' });
    expect(status).toBe(200);
    expect(body).toMatchObject({ source: 'file', resampled_from: null, next_cursor: null });
    expect(body.candles.map((c) => c.time)).toEqual(['2024-01-09T10:00:00.000Z', '2024-01-09T10:01:00.000Z', '2024-01-09T10:02:00.000Z']);
  });

  it('pages a range with next_cursor until it is null, every candle once', async () => {
    const seen: string[] = [];
    let query: Record<string, string> = { symbol: 'EUR_USD', from: '2024-01-09T00:00:00Z', limit: '70' };
    for (let pages = 1; ; pages++) {
      const { body } = await get(query);
      seen.push(...body.candles.map((c) => c.time));
      if (body.next_cursor === null) {
        expect(pages).toBe(3);
        break;
      }
      query = { symbol: 'EUR_USD', cursor: body.next_cursor, limit: '70' };
    }
    expect(seen).toEqual(M1.map((c) => new Date(c.time).toISOString()));
  });

  it('makes a timeframe the store does not hold from its M1, a page at a time', async () => {
    const first = await get({ symbol: 'EUR_USD', timeframe: 'M15', from: '2024-01-09T10:00:00Z', limit: '5' });
    expect(first.body.resampled_from).toBe('M1');
    expect(first.body.candles.map((c) => c.time.slice(11, 16))).toEqual(['10:00', '10:15', '10:30', '10:45', '11:00']);
    expect(first.body.candles[0]?.high).toBeCloseTo(1.1014, 10);
    const rest = await get({ symbol: 'EUR_USD', timeframe: 'M15', cursor: first.body.next_cursor as string });
    expect(rest.body.candles.map((c) => c.time.slice(11, 16))).toEqual(['11:15', '11:30', '11:45', '12:00', '12:15', '12:30', '12:45']);
    expect(rest.body.next_cursor).toBeNull();
  });

  it('leaves out a resampled bar that starts before from', async () => {
    const { body } = await get({ symbol: 'EUR_USD', timeframe: 'H1', from: '2024-01-09T10:30:00Z' });
    expect(body.candles.map((c) => c.time)).toEqual(['2024-01-09T11:00:00.000Z', '2024-01-09T12:00:00.000Z']);
  });

  it('serves a timeframe as stored when it is', async () => {
    await add([{ ...(M1[0] as StoredCandle), high: 9 }], { source: 'file', symbol: 'EUR_USD', timeframe: 'H1' });
    const { body } = await get({ symbol: 'EUR_USD', timeframe: 'H1', from: '2024-01-09T00:00:00Z' });
    expect(body).toMatchObject({ resampled_from: null, candles: [{ time: '2024-01-09T10:00:00.000Z', high: 9 }] });
  });

  it('answers 422 source_required when several sources hold the symbol and none is named', async () => {
    await add(M1, { source: 'dukascopy', symbol: 'EUR_USD', timeframe: 'M1' });
    expect((await get({ symbol: 'EUR_USD', from: '2024-01-09T00:00:00Z' })).body.code).toBe('source_required');
    expect((await get({ symbol: 'EUR_USD', from: '2024-01-09T00:00:00Z', source: 'dukascopy' })).status).toBe(200);
  });

  it('answers 422 invalid_range for from not before to', async () => {
    const { status, body } = await get({ symbol: 'EUR_USD', from: '2024-01-09T10:00:00Z', to: '2024-01-09T10:00:00Z' });
    expect([status, body.code]).toEqual([422, 'invalid_range']);
  });

  it('answers 422 invalid_range with neither from nor cursor', async () => {
    const { status, body } = await get({ symbol: 'EUR_USD' });
    expect([status, body.code]).toEqual([422, 'invalid_range']);
  });

  it('answers 422 invalid_cursor for a cursor it did not give', async () => {
    const { status, body } = await get({ symbol: 'EUR_USD', cursor: 'bm90LWEtY3Vyc29y' });
    expect([status, body.code]).toEqual([422, 'invalid_cursor']);
  });

  it('answers 422 validation_error for a limit above MAX_CANDLES and an unknown timeframe', async () => {
    expect((await get({ symbol: 'EUR_USD', from: '2024-01-09T00:00:00Z', limit: '101' })).body.code).toBe('validation_error');
    expect((await get({ symbol: 'EUR_USD', from: '2024-01-09T00:00:00Z', timeframe: 'H2' })).body.code).toBe('validation_error');
  });

  it('answers 404 no_stored_candles for a symbol it holds nothing of', async () => {
    const { status, body } = await get({ symbol: 'GBP_USD', from: '2024-01-09T00:00:00Z' });
    expect([status, body.code]).toEqual([404, 'no_stored_candles']);
  });

  it('answers 503 store_unavailable on a service built without a store', async () => {
    const { app: bare } = await buildOn(testConfig(), fakeDeps(new ManualClock()));
    const res = await bare.inject({ method: 'GET', url: '/v1/market-data/stored-candles?symbol=EUR_USD&from=2024-01-09T00:00:00Z', headers: auth });
    expect([res.statusCode, res.json<{ code: string }>().code]).toEqual([503, 'store_unavailable']);
    await bare.close();
  });
});

describe('coverage', () => {
  it('reports a series range and no gap over a weekend', async () => {
    const friday = Date.parse('2024-01-12T21:58:00Z');
    const sunday = Date.parse('2024-01-14T22:00:00Z');
    await add(
      [0, 1, (sunday - friday) / MINUTE, (sunday - friday) / MINUTE + 1].map((i) => ({ ...(M1[0] as StoredCandle), time: friday + i * MINUTE })),
      {
        source: 'weekend',
        symbol: 'GBP_USD',
        timeframe: 'M1',
      },
    );
    const [series] = await coverageOf(store, 'GBP_USD');
    expect(series).toMatchObject({ symbol: 'GBP_USD', candles: 4, firstMs: friday, lastMs: sunday + MINUTE, gaps: [] });
  });

  it('reports missing market time longer than 30 minutes as a gap, and not 30 minutes', async () => {
    const holes = [...M1.slice(0, 10), ...M1.slice(40, 50), ...M1.slice(81)];
    await add(holes, { source: 'holes', symbol: 'USD_JPY', timeframe: 'M1' });
    const [series] = await coverageOf(store, 'USD_JPY');
    expect(series?.gaps).toEqual([{ fromMs: START + 50 * MINUTE, toMs: START + 81 * MINUTE, openMinutes: 31 }]);
  });
});

describe('GET /v1/market-data/stored-coverage', () => {
  async function coverage(query: Record<string, string>) {
    const res = await app.inject({ method: 'GET', url: '/v1/market-data/stored-coverage', query, headers: auth });
    return { status: res.statusCode, body: res.json<{ series: unknown[]; code?: string }>() };
  }

  it('names each series with its first and last candle in the range and the gaps between', async () => {
    // A hole of 45 minutes from 13:00, then an hour more.
    await add(Array.from({ length: 60 }, (_, i) => ({ ...(M1[0] as StoredCandle), time: START + (225 + i) * MINUTE })));
    await add(M1.slice(0, 5), { source: 'dukascopy', symbol: 'EUR_USD', timeframe: 'M1' });
    await add(M1.slice(0, 5), { source: 'file', symbol: 'GBP_USD', timeframe: 'M1' });
    const { status, body } = await coverage({ symbol: 'EUR_USD' });
    expect(status).toBe(200);
    expect(body.series).toEqual([
      {
        symbol: 'EUR_USD',
        timeframe: 'M1',
        source: 'dukascopy',
        first: '2024-01-09T10:00:00.000Z',
        last: '2024-01-09T10:04:00.000Z',
        gaps: [],
        missing: [],
      },
      {
        symbol: 'EUR_USD',
        timeframe: 'M1',
        source: 'file',
        first: '2024-01-09T10:00:00.000Z',
        last: '2024-01-09T14:44:00.000Z',
        gaps: [{ from: '2024-01-09T13:00:00.000Z', to: '2024-01-09T13:45:00.000Z', open_minutes: 45 }],
        missing: [{ from: '2024-01-09T13:00:00.000Z', to: '2024-01-09T13:45:00.000Z', open_minutes: 45 }],
      },
    ]);
    expect((await coverage({})).body.series).toHaveLength(3);
  });

  it('answers what a range holds of each series: nothing there is first and last null, and all of it missing', async () => {
    const key = { symbol: 'EUR_USD', timeframe: 'M1', source: 'file' };
    const { body } = await coverage({ symbol: 'EUR_USD', from: '2024-01-09T11:00:00Z', to: '2024-01-09T11:30:00Z' });
    expect(body.series).toEqual([{ ...key, first: '2024-01-09T11:00:00.000Z', last: '2024-01-09T11:29:00.000Z', gaps: [], missing: [] }]);
    const before = await coverage({ symbol: 'EUR_USD', to: '2024-01-01T00:00:00Z' });
    expect(before.body.series).toEqual([{ ...key, first: null, last: null, gaps: [], missing: [] }]);
    const week = await coverage({ symbol: 'EUR_USD', from: '2024-01-01T00:00:00Z', to: '2024-01-08T00:00:00Z' });
    expect(week.body.series).toEqual([
      // Monday 00:00 to Monday 00:00 UTC: five days of market time, the weekend (Friday 22:00 to Sunday 22:00 UTC in winter) left out.
      { ...key, first: null, last: null, gaps: [], missing: [{ from: '2024-01-01T00:00:00.000Z', to: '2024-01-08T00:00:00.000Z', open_minutes: 7200 }] },
    ]);
    // The M1 run from 10:00 to 12:59: an hour missing before it, two after, and 30 minutes after is not a gap.
    const around = await coverage({ symbol: 'EUR_USD', from: '2024-01-09T09:00:00Z', to: '2024-01-09T15:00:00Z' });
    expect(around.body.series).toMatchObject([
      {
        missing: [
          { from: '2024-01-09T09:00:00.000Z', to: '2024-01-09T10:00:00.000Z', open_minutes: 60 },
          { from: '2024-01-09T13:00:00.000Z', to: '2024-01-09T15:00:00.000Z', open_minutes: 120 },
        ],
      },
    ]);
    const close = await coverage({ symbol: 'EUR_USD', from: '2024-01-09T10:00:00Z', to: '2024-01-09T13:30:00Z' });
    expect(close.body.series).toMatchObject([{ missing: [] }]);
    expect((await coverage({ symbol: 'USD_JPY' })).body.series).toEqual([]);
  });

  it('answers 422 invalid_range for from not before to, and 422 for a malformed symbol', async () => {
    expect(await coverage({ from: '2024-01-02T00:00:00Z', to: '2024-01-01T00:00:00Z' })).toMatchObject({ status: 422, body: { code: 'invalid_range' } });
    expect((await coverage({ symbol: 'E'.repeat(33) })).status).toBe(422);
  });
});
