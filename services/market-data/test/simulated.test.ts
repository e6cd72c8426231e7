import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { API_KEY, buildSimulatedService } from './helpers.js';
import { TestEventSource } from './sse-client.js';

type Service = Awaited<ReturnType<typeof buildSimulatedService>>;
let service: Service;
let source: TestEventSource;

beforeEach(async () => {
  service = await buildSimulatedService({ start: '2026-01-06T10:00:00.000Z', tickIntervalMs: 250 });
  await service.app.listen({ host: '127.0.0.1', port: 0 });
  const port = (service.app.server.address() as AddressInfo).port;
  source = new TestEventSource(`http://127.0.0.1:${port}/v1/stream/ticks?symbols=EURUSD,USDJPY`, API_KEY);
  await source.waitFor(() => source.ofType('status').length > 0);
});

afterEach(async () => {
  source.close();
  await service.app.close();
});

type TickData = { symbol: string; bid: number; ask: number; spread: number; ts: string; provider: string };
const ticks = () => source.ofType('tick').map((e) => e.data as TickData);
const START = Date.parse('2026-01-06T10:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();

describe('the stream on the simulated feed', () => {
  it('streams the simulated market ticks of the requested symbols as the clock moves', async () => {
    service.clock.advance(10_000);
    // The replay of each symbol's opening quote, then every tick.
    const expected = ['EURUSD', 'USDJPY'].flatMap((s) => [service.market.lastTick(s, START)!, ...service.market.ticksBetween(s, START + 1, START + 10_001)]);
    expect(expected.length).toBeGreaterThan(10);
    await source.waitFor(() => ticks().length === expected.length);
    for (const symbol of ['EURUSD', 'USDJPY']) {
      const got = ticks().filter((t) => t.symbol === symbol);
      const want = expected.filter((q) => q.symbol === symbol);
      expect(got.map((t) => [t.bid, t.ask, t.ts])).toEqual(want.map((q) => [q.bid, q.ask, iso(q.time)]));
    }
    expect(ticks().every((t) => t.provider === 'simulated' && t.spread > 0)).toBe(true);
  });

  it('reports a simulated disconnect, reconnects the feed after the first backoff step and resumes the ticks', async () => {
    service.feed.simulateDisconnect('link lost');
    await source.waitFor(() => source.ofType('status').length === 2);
    expect(source.ofType('status')[1]?.data).toMatchObject({ state: 'disconnected', reason: 'link lost' });
    const replayed = ticks().length;
    service.clock.advance(999);
    expect(ticks()).toHaveLength(replayed);
    service.clock.advance(1);
    // connecting, then connected: each transition is a status event.
    await source.waitFor(() => source.ofType('status').length === 4);
    expect(
      source
        .ofType('status')
        .slice(2)
        .map((e) => e.data),
    ).toEqual([
      expect.objectContaining({ state: 'disconnected', reason: 'connect requested' }),
      expect.objectContaining({ state: 'connected', reason: 'session ready', dropped: 0 }),
    ]);
    service.clock.advance(5000);
    const reconnectedAt = START + 1000;
    const resumed = (symbol: string) =>
      ticks()
        .slice(replayed)
        .filter((t) => t.symbol === symbol);
    await source.waitFor(() => resumed('EURUSD').length > 1 && resumed('USDJPY').length > 1);
    // What the market ticked while the link was down is missed, as over a real dropped link:
    // each symbol resumes with its current quote, then the ticks after the reconnection.
    for (const symbol of ['EURUSD', 'USDJPY']) {
      const [current, ...live] = resumed(symbol);
      expect(current?.ts).toBe(iso(service.market.lastTick(symbol, reconnectedAt)!.time));
      expect(live.every((t) => Date.parse(t.ts) > reconnectedAt)).toBe(true);
    }
  });
});
