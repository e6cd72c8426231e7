import type { AddressInfo } from 'node:net';
import type { App } from '@fxdesk/core';
import { ManualClock } from '@fxdesk/primitives';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeCTraderServer } from '@fxdesk/broker/testing';
import { createQuoteFeed } from '../src/broker.js';
import { API_KEY, auth, buildOn, fakeCTraderSettings, testConfig } from './helpers.js';
import { TestEventSource } from './sse-client.js';

/** Wednesday 2026-01-07 12:00 UTC: the fake venue's FX week is open. */
const START = Date.UTC(2026, 0, 7, 12);

let clock: ManualClock;
let fake: FakeCTraderServer;
let app: App;
let baseUrl: string;
const sources: TestEventSource[] = [];

beforeEach(async () => {
  clock = new ManualClock(START);
  fake = await FakeCTraderServer.start({ clock });
  // The service as server.ts builds it from BROKER=ctrader, pointed at the local fake venue.
  const config = testConfig(fakeCTraderSettings(fake.port));
  ({ app } = await buildOn(config, { clock, ...createQuoteFeed(config, clock) }));
  await app.listen({ host: '127.0.0.1', port: 0 });
  baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
});

afterEach(async () => {
  for (const source of sources.splice(0)) source.close();
  await app.close();
  await fake.close();
});

async function stream(query: string): Promise<TestEventSource> {
  const source = new TestEventSource(`${baseUrl}/v1/stream/ticks${query}`, API_KEY);
  sources.push(source);
  await source.waitFor(() => source.ofType('status').length > 0);
  return source;
}

type TickData = { symbol: string; bid: number; ask: number; spread: number; ts: string; provider: string };
const ticksOf = (source: TestEventSource) => source.ofType('tick').map((e) => e.data as TickData);

describe('the market-data service on BROKER=ctrader', () => {
  it('streams the venue spot events as ticks over SSE', async () => {
    const source = await stream('?symbols=EURUSD,USDJPY');
    // The spot event that follows each subscription is the replayed last tick.
    expect(ticksOf(source)).toEqual([
      { symbol: 'EURUSD', bid: 1.0815, ask: 1.08162, spread: 0.00012, ts: new Date(START).toISOString(), provider: 'ctrader' },
      { symbol: 'USDJPY', bid: 157.123, ask: 157.135, spread: 0.012, ts: new Date(START).toISOString(), provider: 'ctrader' },
    ]);
    for (let second = 1; second <= 5; second++) {
      clock.advance(1000);
      await source.waitFor(() => ticksOf(source).length === 2 + 2 * second);
    }
    const eurusd = ticksOf(source).filter((t) => t.symbol === 'EURUSD');
    expect(eurusd.map((t) => t.ts)).toEqual([0, 1, 2, 3, 4, 5].map((s) => new Date(START + s * 1000).toISOString()));
    expect(eurusd.every((t) => t.bid < t.ask && t.provider === 'ctrader')).toBe(true);
    const ready = await app.inject({ method: 'GET', url: '/health/ready' });
    expect(ready.statusCode).toBe(200);
  });

  it('reports the link dropping and coming back as status events, then streams again', async () => {
    const source = await stream('?symbols=EURUSD');
    fake.dropConnections();
    await source.waitFor(() => source.ofType('status').some((e) => (e.data as { state: string }).state === 'disconnected'));
    clock.advance(1000);
    await source.waitFor(() => (source.ofType('status').at(-1)?.data as { state: string }).state === 'connected');
    expect(source.ofType('status').map((e) => (e.data as { state: string; reason?: string }).reason)).toEqual([
      'session ready',
      expect.stringMatching(/^connection closed by the server/),
      'reconnecting',
      'reconnected',
    ]);
    const before = ticksOf(source).length;
    clock.advance(1000);
    await source.waitFor(() => ticksOf(source).length > before);
  });

  it('lists the venue catalog with symbol ids and digits', async () => {
    const res = await app.inject({ method: 'GET', url: '/v1/symbols', headers: auth });
    expect(res.statusCode).toBe(200);
    expect(res.json().symbols).toContainEqual({ symbol: 'USDJPY', symbolId: 4, digits: 3, enabled: true, description: 'US Dollar vs Japanese Yen' });
  });

  it('answers candles from trendbars: closed bars, stamped at their end, without a spread', async () => {
    const res = await app.inject({ method: 'GET', url: '/v1/market-data/candles?symbol=EURUSD&timeframe=M1&count=3', headers: auth });
    expect(res.statusCode).toBe(200);
    const candles = res.json().candles as Record<string, unknown>[];
    expect(candles.map((c) => c.ts)).toEqual(['2026-01-07T11:58:00.000Z', '2026-01-07T11:59:00.000Z', '2026-01-07T12:00:00.000Z']);
    expect(candles[0]).toMatchObject({ provider: 'ctrader', source_instrument: 'EURUSD', spread: null, spread_source: null });
  });

  it('answers candles by date page by page from trendbars requests the venue accepts', async () => {
    const times: string[] = [];
    let next: string | null = '2026-01-01T00:00:00Z';
    while (next !== null) {
      const res: { statusCode: number; body: string; json: <T>() => T } = await app.inject({
        method: 'GET',
        url: `/v1/market-data/candles?symbol=EURUSD&timeframe=M5&from=${next}&to=2026-01-07T00:00:00Z&count=600`,
        headers: auth,
      });
      expect(res.statusCode, res.body).toBe(200);
      const page: { candles: { ts: string; spread: number | null }[]; next_from: string | null } = res.json();
      expect(page.candles.every((c) => c.spread === null)).toBe(true);
      times.push(...page.candles.map((c) => c.ts));
      next = page.next_from;
    }
    // Thursday, Friday to 22:00, Sunday from 22:00, Monday and Tuesday: 288 + 264 + 24 + 288 + 288.
    expect(times).toHaveLength(1152);
    expect(new Set(times).size).toBe(times.length);
    expect(times[0]).toBe('2026-01-01T00:05:00.000Z');
    expect(times.at(-1)).toBe('2026-01-07T00:00:00.000Z');
    const requests = fake.messages(2137).map((m) => m.payload as { fromTimestamp: number; toTimestamp: number });
    expect(requests.every((r) => r.toTimestamp - r.fromTimestamp <= 302_400_000)).toBe(true);
    expect(fake.errorsSent).toEqual([]);
  });
});
