import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { API_KEY, buildTestService, type TestService } from './helpers.js';
import { TestEventSource } from './sse-client.js';

let service: TestService;
let baseUrl: string;
const sources: TestEventSource[] = [];

async function listen(config: Record<string, string> = {}): Promise<void> {
  service = await buildTestService({ config });
  await service.app.listen({ host: '127.0.0.1', port: 0 });
  baseUrl = `http://127.0.0.1:${(service.app.server.address() as AddressInfo).port}`;
}

/** Opens a stream and waits for its status event (after the replay), so the server has it registered. */
async function connect(query = '', apiKey: string | null = API_KEY): Promise<TestEventSource> {
  const source = new TestEventSource(`${baseUrl}/v1/stream/ticks${query}`, apiKey ?? undefined);
  sources.push(source);
  await source.waitFor(() => source.ofType('status').length > 0 || source.source.readyState === source.source.CLOSED);
  return source;
}

beforeEach(async () => {
  await listen();
});

afterEach(async () => {
  for (const source of sources.splice(0)) source.close();
  await service.app.close();
});

describe('GET /v1/stream/ticks', () => {
  it('answers 401 with the envelope, before any stream opens, without the key', async () => {
    const source = await connect('', null);
    expect(source.status).toBe(401);
    expect(source.source.readyState).toBe(source.source.CLOSED);
    const res = await fetch(`${baseUrl}/v1/stream/ticks`);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(await res.json()).toMatchObject({ error: true, code: 'unauthorized' });
  });

  it('answers 404 symbol_not_found with the envelope, before any stream opens, for an unknown symbol', async () => {
    const source = await connect('?symbols=EURUSD,NOPE');
    expect(source.status).toBe(404);
    expect(source.source.readyState).toBe(source.source.CLOSED);
    const res = await fetch(`${baseUrl}/v1/stream/ticks?symbols=NOPE`, { headers: { 'x-api-key': API_KEY } });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: true, code: 'symbol_not_found', message: expect.stringContaining('NOPE') });
  });

  it('answers 422 for an empty symbols list', async () => {
    const res = await fetch(`${baseUrl}/v1/stream/ticks?symbols=,`, { headers: { 'x-api-key': API_KEY } });
    expect(res.status).toBe(422);
    expect(await res.json()).toMatchObject({ code: 'validation_error' });
  });

  it('sends the event-stream headers: no cache, no proxy buffering, no compression', async () => {
    const source = await connect('?symbols=EURUSD');
    expect(source.status).toBe(200);
    expect(source.headers?.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(source.headers?.get('cache-control')).toBe('no-cache');
    expect(source.headers?.get('x-accel-buffering')).toBe('no');
    expect(source.headers?.get('content-encoding')).toBeNull();
    expect(source.headers?.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('starts with a retry hint and a status event carrying the state and dropped 0', async () => {
    const source = await connect('?symbols=EURUSD');
    expect(source.raw.startsWith('retry: 3000\n\n')).toBe(true);
    expect(source.events[0]).toMatchObject({ type: 'status', data: { state: 'connected', dropped: 0, ts: '2026-01-05T12:00:00.000Z' } });
  });

  it('replays the last known tick of each requested symbol once on connect', async () => {
    service.feed.quote('EURUSD', 1.085, 1.0851);
    service.clock.advance(100);
    service.feed.quote('EURUSD', 1.0852, 1.0853);
    service.feed.quote('GBPUSD', 1.27, 1.2702);
    service.feed.quote('USDJPY', 150.1, 150.112);
    const source = await connect('?symbols=EURUSD,GBPUSD');
    expect(source.events.map((e) => e.type)).toEqual(['tick', 'tick', 'status']);
    expect(source.events.map((e) => Number(e.id))).toEqual([2, 3, 5]);
    expect(source.ofType('tick').map((e) => e.data)).toEqual([
      { symbol: 'EURUSD', bid: 1.0852, ask: 1.0853, spread: 0.0001, ts: '2026-01-05T12:00:00.100Z', provider: 'fake' },
      { symbol: 'GBPUSD', bid: 1.27, ask: 1.2702, spread: 0.0002, ts: '2026-01-05T12:00:00.100Z', provider: 'fake' },
    ]);
  });

  it('streams only the requested symbols', async () => {
    const source = await connect('?symbols=EURUSD,USDJPY');
    service.feed.quote('GBPUSD', 1.27, 1.2702);
    service.feed.quote('EURUSD', 1.085, 1.0851);
    service.feed.quote('USDJPY', 150.1, 150.112);
    await source.waitFor(() => source.ofType('tick').length === 2);
    expect(source.ofType('tick').map((e) => (e.data as { symbol: string }).symbol)).toEqual(['EURUSD', 'USDJPY']);
  });

  it('streams every symbol when symbols is omitted', async () => {
    const source = await connect();
    service.feed.quote('GBPUSD', 1.27, 1.2702);
    service.feed.quote('EURUSD', 1.085, 1.0851);
    service.feed.quote('USDJPY', 150.1, 150.112);
    await source.waitFor(() => source.ofType('tick').length === 3);
    expect(source.ofType('tick').map((e) => (e.data as { symbol: string }).symbol)).toEqual(['GBPUSD', 'EURUSD', 'USDJPY']);
  });

  it('delivers every tick of each symbol in order, each with a larger id', async () => {
    const source = await connect('?symbols=EURUSD,GBPUSD');
    // Paced in batches a reader keeps up with: a burst beyond the socket's buffers would
    // (by design) coalesce, which the slow-consumer tests cover.
    for (let i = 0; i < 200; i++) {
      service.clock.advance(5);
      service.feed.quote(i % 2 === 0 ? 'EURUSD' : 'GBPUSD', 1 + i / 10_000, 1.0001 + i / 10_000);
      if (i % 20 === 19) await source.waitFor(() => source.ofType('tick').length === i + 1);
    }
    const ticks = source.ofType('tick');
    const ids = ticks.map((e) => Number(e.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(200);
    for (const symbol of ['EURUSD', 'GBPUSD']) {
      const bids = ticks.filter((e) => (e.data as { symbol: string }).symbol === symbol).map((e) => (e.data as { bid: number }).bid);
      expect(bids).toHaveLength(100);
      expect(bids).toEqual([...bids].sort((a, b) => a - b));
    }
  });

  it('sends a status event when the broker disconnects and another when it reconnects', async () => {
    const source = await connect('?symbols=EURUSD');
    service.feed.setState('disconnected', 'heartbeat timeout');
    await source.waitFor(() => source.ofType('status').length === 2);
    expect(source.ofType('status')[1]?.data).toEqual({ state: 'disconnected', reason: 'heartbeat timeout', dropped: 0, ts: '2026-01-05T12:00:00.000Z' });
    // The session retries a feed left down after the first backoff step (1 s).
    service.clock.advance(1000);
    await source.waitFor(() => source.ofType('status').length === 3);
    expect(source.ofType('status')[2]?.data).toMatchObject({ state: 'connected', dropped: 0, ts: '2026-01-05T12:00:01.000Z' });
  });

  it('sends a stale status when quotes stop while the market is open, and connected when they resume', async () => {
    const source = await connect('?symbols=EURUSD');
    service.feed.quote('EURUSD', 1.085, 1.0851);
    service.clock.advance(31_000);
    await source.waitFor(() => source.ofType('status').length === 2);
    expect(source.ofType('status')[1]?.data).toEqual({
      state: 'stale',
      reason: 'last quote 31 s ago while the market is open, over TICK_STALENESS_SECONDS=30',
      dropped: 0,
      ts: '2026-01-05T12:00:31.000Z',
    });
    service.feed.quote('EURUSD', 1.086, 1.0861);
    await source.waitFor(() => source.ofType('status').length === 3);
    expect(source.ofType('status')[2]?.data).toMatchObject({ state: 'connected', reason: 'quotes resumed' });
  });

  it('sends a comment heartbeat every 15 s on the injected clock', async () => {
    const source = await connect('?symbols=EURUSD');
    service.clock.advance(14_999);
    service.feed.quote('EURUSD', 1.085, 1.0851);
    await source.waitFor(() => source.ofType('tick').length === 1);
    expect(source.raw).not.toContain(': heartbeat');
    service.clock.advance(1);
    await source.waitFor(() => source.raw.includes(': heartbeat\n\n'));
    service.clock.advance(15_000);
    await source.waitFor(() => source.raw.split(': heartbeat\n\n').length === 3);
  });

  it('frames every event with event, id and data lines', async () => {
    const source = await connect('?symbols=EURUSD');
    service.feed.quote('EURUSD', 1.085, 1.0851);
    await source.waitFor(() => source.ofType('tick').length === 1);
    expect(source.raw).toMatch(/event: status\nid: \d+\ndata: \{[^\n]*\}\n\n/);
    expect(source.raw).toMatch(/event: tick\nid: \d+\ndata: \{"symbol":"EURUSD"[^\n]*\}\n\n/);
  });

  it('answers HEAD with the stream headers and ends, opening no stream', async () => {
    const res = await fetch(`${baseUrl}/v1/stream/ticks`, { method: 'HEAD', headers: { 'x-api-key': API_KEY } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(service.market.hub.size).toBe(0);
  });

  it('answers 503 too_many_clients past MAX_STREAM_CLIENTS', async () => {
    await service.app.close();
    await listen({ MAX_STREAM_CLIENTS: '1' });
    await connect('?symbols=EURUSD');
    const res = await fetch(`${baseUrl}/v1/stream/ticks`, { headers: { 'x-api-key': API_KEY } });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('3');
    expect(await res.json()).toMatchObject({ error: true, code: 'too_many_clients' });
  });

  it('ends open streams cleanly when the app closes', async () => {
    const source = await connect('?symbols=EURUSD');
    const errored = new Promise<void>((resolve) => source.source.addEventListener('error', () => resolve(), { once: true }));
    await service.app.close();
    await errored;
    expect(service.app.server.listening).toBe(false);
  });
});
