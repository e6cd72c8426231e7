import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger, type App } from '@fxdesk/core';
import { startRedis, until, type RunningEngine } from '@fxdesk/core/testing';
import { ManualClock } from '@fxdesk/primitives';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { createReplication, REDIS_KEY_PREFIX } from '../src/deps.js';
import { TickLog } from '../src/tick-log.js';
import { FAKE_SYMBOLS, FakeFeed } from './fake-feed.js';
import { auth, buildOn, quoteEverySymbol, ready, testConfig, API_KEY } from './helpers.js';
import { TestEventSource } from './sse-client.js';

/** One replica in this process on a fake feed, as server.ts builds it with REDIS_URL. */
async function replica(server: RunningEngine) {
  const clock = new ManualClock('2026-01-05T12:00:00Z');
  const feed = new FakeFeed(clock);
  const logger = createLogger({ name: 'test', level: 'silent' });
  const redis = await createReplication({ url: server.url, owner: 'replica-a', retention: 1000, leaseMs: 1000, logger });
  const close = async () => {
    await feed.close();
    await redis.close();
  };
  const { app, market } = await buildOn(testConfig({ REDIS_URL: server.url }), { clock, feed, close, replication: redis.replication });
  opened.push(app);
  await app.ready();
  return { app, market, feed, clock };
}

/** The replica, leading once it says so, with a quote of every symbol. */
async function leadingReplica(server: RunningEngine) {
  const service = await replica(server);
  await until(async () => (await ready(service)).body.checks.replica?.detail.startsWith('leader: replica replica-a') === true, 10_000);
  quoteEverySymbol(service.feed);
  // The quotes went through the stream and back: the replica serves them.
  await until(async () => (await service.app.inject({ url: '/v1/market-data/tick?symbol=EURUSD', headers: auth })).statusCode === 200, 5_000);
  return service;
}

/** The replica, following: the lease is held by `leader` (with its address, when given). */
async function followingReplica(server: RunningEngine, leader: { owner: string; address?: string }) {
  const redis = new Redis(server.url);
  await redis.set(`${REDIS_KEY_PREFIX}:leader`, leader.owner, 'PX', 60_000);
  if (leader.address) await redis.set(`${REDIS_KEY_PREFIX}:leader:address`, `${leader.owner} ${leader.address}`, 'PX', 60_000);
  // The catalog the leader loaded, as it publishes it.
  const log = new TickLog({ redis, prefix: REDIS_KEY_PREFIX, retention: 1000 });
  await log.appendCatalog(leader.owner, { symbols: FAKE_SYMBOLS, subscribed: FAKE_SYMBOLS.filter((s) => s.enabled).map((s) => s.name) });
  redis.disconnect();
  const service = await replica(server);
  await until(async () => (await ready(service)).body.checks.replica?.detail.startsWith(`follower: replica ${leader.owner}`) === true, 10_000);
  return service;
}

/** A leader as far as HTTP goes: answers every request with one JSON body, and keeps what it received. */
async function fakeLeader(body: string) {
  const received: IncomingHttpHeaders[] = [];
  const server = createServer((req, res) => {
    received.push(req.headers);
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  httpServers.push(server);
  return { address: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received };
}

const CANDLES = '/v1/market-data/candles?symbol=EURUSD&timeframe=H1&count=2';
const httpServers: Server[] = [];
const opened: App[] = [];
const servers: RunningEngine[] = [];
const sources: TestEventSource[] = [];

afterEach(async () => {
  for (const source of sources.splice(0)) source.close();
  for (const server of httpServers.splice(0)) await new Promise((resolve) => server.close(resolve));
  for (const app of opened.splice(0)) await app.close();
  for (const server of servers.splice(0)) await server.stop();
});

async function redisServer(): Promise<RunningEngine> {
  const server = await startRedis();
  servers.push(server);
  return server;
}

describe('one replica on Redis', () => {
  it('says Redis is down in readiness and on its open streams, and lets go of the venue once its lease has run out', async () => {
    const server = await redisServer();
    const service = await leadingReplica(server);
    await service.app.listen({ host: '127.0.0.1', port: 0 });
    const stream = new TestEventSource(`http://127.0.0.1:${(service.app.server.address() as AddressInfo).port}/v1/stream/ticks`, API_KEY);
    sources.push(stream);
    await stream.waitFor(() => stream.ofType('status').length > 0);

    await server.stop();
    await stream.waitFor(() => stream.ofType('status').some((e) => (e.data as { reason?: string }).reason?.startsWith('Redis unreachable') === true));
    expect(stream.ofType('status').at(-1)?.data).toMatchObject({ state: 'disconnected' });
    const { status, body } = await ready(service);
    expect(status).toBe(503);
    expect(body.checks.replica).toMatchObject({ ok: false, detail: expect.stringMatching(/^Redis unreachable/) });
    await until(() => service.feed.state() === 'disconnected', 5_000);
  }, 60_000);

  it('lets go of the venue and follows when another replica holds the lease at its renewal', async () => {
    const server = await redisServer();
    const service = await leadingReplica(server);
    const redis = new Redis(server.url);
    try {
      await redis.set(`${REDIS_KEY_PREFIX}:leader`, 'replica-b', 'PX', 60_000);
      await until(() => service.feed.state() === 'disconnected', 5_000);
      await until(async () => /^follower: replica replica-b holds the venue connection/.test((await ready(service)).body.checks.replica?.detail ?? ''), 5_000);
    } finally {
      redis.disconnect();
    }
  }, 60_000);

  it('answers candles 503 with Retry-After when the leader publishes no REPLICA_URL, and says so in readiness', async () => {
    const service = await followingReplica(await redisServer(), { owner: 'replica-b' });
    const res = await service.app.inject({ url: CANDLES, headers: auth });
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('4');
    expect(res.json()).toMatchObject({
      code: 'broker_unavailable',
      message: 'the replica holding the venue connection (replica-b) publishes no REPLICA_URL, so this replica cannot forward the request to it',
    });
    expect((await ready(service)).body.checks.replica?.detail).toBe(
      'follower: replica replica-b holds the venue connection; ticks read from fxdesk:market-data:ticks; candle requests answer 503: it publishes no REPLICA_URL to forward them to',
    );
  }, 60_000);

  it("relays the leader's answer as it came, and answers a request another replica forwarded itself (one hop at most)", async () => {
    const body = '{"symbol":"EURUSD","timeframe":"H1","candles":[]}';
    const leader = await fakeLeader(body);
    const service = await followingReplica(await redisServer(), { owner: 'replica-b', address: leader.address });
    const relayed = await service.app.inject({ url: CANDLES, headers: { ...auth, 'x-request-id': 'hop-1' } });
    expect(relayed).toMatchObject({ statusCode: 200, body });
    expect(relayed.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(leader.received).toEqual([expect.objectContaining({ 'x-api-key': API_KEY, 'x-request-id': 'hop-1', 'x-fxdesk-forwarded-by': 'replica-a' })]);

    const forwarded = await service.app.inject({ url: CANDLES, headers: { ...auth, 'x-fxdesk-forwarded-by': 'replica-c' } });
    expect(forwarded.statusCode).toBe(503);
    expect(forwarded.headers['retry-after']).toBe('4');
    expect(forwarded.json()).toMatchObject({ code: 'broker_unavailable', message: expect.stringMatching(/^this replica does not hold the venue connection/) });
    expect(leader.received).toHaveLength(1);
  }, 60_000);
});
