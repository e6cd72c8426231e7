import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StreamClient } from '../src/stream-client.js';
import { API_KEY, buildTestService, type TestService } from './helpers.js';
import { TestEventSource } from './sse-client.js';

const SYMBOLS = ['EURUSD', 'GBPUSD', 'USDJPY'];
const QUERY = `?symbols=${SYMBOLS.join(',')}`;

let service: TestService;
let baseUrl: string;
let fast: TestEventSource;
let slow: RawStream;
let emitted = 0;
const lastBid = new Map<string, number>();

/** A plain HTTP client that reads nothing until told: the slow consumer. */
interface RawStream {
  req: http.ClientRequest;
  res: http.IncomingMessage;
  text: () => string;
  closed: Promise<void>;
}

async function openPausedStream(): Promise<RawStream> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${baseUrl}/v1/stream/ticks${QUERY}`, { headers: { 'x-api-key': API_KEY } }, (res) => {
      res.pause();
      const chunks: string[] = [];
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => chunks.push(chunk));
      const closed = new Promise<void>((done) => res.socket.once('close', () => done()));
      resolve({ req, res, text: () => chunks.join(''), closed });
    });
    req.on('error', reject);
  });
}

function serverSideOf(count: number): readonly StreamClient[] {
  const clients = service.market.hub.openClients();
  expect(clients).toHaveLength(count);
  return clients;
}

/**
 * Emits `n` ticks round-robin over SYMBOLS, in batches of 50 after each of which the fast
 * client has received every tick: a larger burst would fill even a reading client's buffers.
 */
async function emitTicks(n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const symbol = SYMBOLS[emitted % SYMBOLS.length] as string;
    const bid = Number((1 + emitted / 100_000).toFixed(5));
    service.feed.quote(symbol, bid, Number((bid + 0.0001).toFixed(5)));
    lastBid.set(symbol, bid);
    emitted++;
    if (emitted % 50 === 0 || i === n - 1) {
      const target = emitted;
      await fast.waitFor(() => fast.ofType('tick').length === target);
    }
  }
}

beforeEach(async () => {
  emitted = 0;
  service = await buildTestService({ config: { STREAM_STUCK_SECONDS: '30' } });
  await service.app.listen({ host: '127.0.0.1', port: 0 });
  baseUrl = `http://127.0.0.1:${(service.app.server.address() as AddressInfo).port}`;
  fast = new TestEventSource(`${baseUrl}/v1/stream/ticks${QUERY}`, API_KEY);
  await fast.waitFor(() => fast.ofType('status').length > 0);
  slow = await openPausedStream();
});

afterEach(async () => {
  fast.close();
  slow.req.destroy();
  await service.app.close();
});

/** Feeds ticks until the slow client's socket refuses writes; returns its server-side client. */
async function fillSlowClient(): Promise<StreamClient> {
  // The fast client connected first.
  const slowClient = serverSideOf(2)[1] as StreamClient;
  // The kernel's socket buffers take a few MB on loopback before the socket pushes back.
  while (!slowClient.backpressured) await emitTicks(1000);
  return slowClient;
}

describe('a client that stops reading', { timeout: 30_000 }, () => {
  it('never makes the server hold more than its bounded queue, while another client receives every tick', async () => {
    const slowClient = await fillSlowClient();
    const bufferedAtStall = slowClient.socketWritableLength;
    for (let round = 0; round < 20; round++) {
      await emitTicks(300);
      // At most one tick per symbol and one status wait in the queue, and the socket holds no
      // more than it did when it first refused a write (nothing is written to it since).
      expect(slowClient.queuedEvents).toBeLessThanOrEqual(SYMBOLS.length + 1);
      expect(slowClient.socketWritableLength).toBe(bufferedAtStall);
    }
    expect(bufferedAtStall).toBeLessThanOrEqual(16_384 + 512);
    const ids = fast.ofType('tick').map((e) => Number(e.id));
    expect(ids).toHaveLength(emitted);
    expect(ids.every((id, i) => i === 0 || id > (ids[i - 1] as number))).toBe(true);
  });

  it('counts every discarded tick in dropped and reports it in a status event when it reads again', async () => {
    const slowClient = await fillSlowClient();
    await emitTicks(600);
    const dropped = slowClient.dropped;
    expect(dropped).toBeGreaterThan(0);
    await emitTicks(300);
    expect(slowClient.dropped).toBe(dropped + 300);

    slow.res.resume();
    await new Promise<void>((resolve) => {
      const check = (chunk: string) => (chunk.includes(`"dropped":${dropped + 300}`) ? resolve() : undefined);
      slow.res.on('data', check);
    });
    const events = parseEvents(slow.text());
    const statuses = events.filter((e) => e.event === 'status');
    expect(statuses.at(-1)?.data).toMatchObject({ state: 'connected', dropped: dropped + 300 });
    // What the slow client holds in the end is the newest tick of every symbol.
    const ticks = events.filter((e) => e.event === 'tick').map((e) => e.data as { symbol: string; bid: number });
    for (const symbol of SYMBOLS) expect(ticks.filter((t) => t.symbol === symbol).at(-1)?.bid).toBe(lastBid.get(symbol));
    // Every tick was either delivered or counted as dropped.
    expect(ticks.length + dropped + 300).toBe(emitted);
  });

  it('is disconnected once it has accepted nothing for STREAM_STUCK_SECONDS', async () => {
    const slowClient = await fillSlowClient();
    service.clock.advance(29_999);
    expect(slowClient.closed).toBe(false);
    service.clock.advance(1);
    expect(slowClient.closed).toBe(true);
    // The paused reader only notices the end once it reads what its socket holds.
    slow.res.resume();
    await slow.closed;
    expect(service.market.hub.stats()).toMatchObject({ clients: 1, stuckDisconnects: 1 });
    await emitTicks(30);
  });
});

function parseEvents(text: string): { event: string; id: string; data: unknown }[] {
  return text
    .split('\n\n')
    .map((block) =>
      Object.fromEntries(
        block
          .split('\n')
          .filter((l) => /^(event|id|data): /.test(l))
          .map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 2)]),
      ),
    )
    .filter((fields) => fields.event !== undefined)
    .map((fields) => ({ event: fields.event as string, id: fields.id as string, data: JSON.parse(fields.data as string) }));
}
