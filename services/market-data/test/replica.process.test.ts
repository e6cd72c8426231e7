import type { AddressInfo } from 'node:net';
import { createLogger, type App } from '@fxdesk/core';
import { startRedis, until, type RunningEngine } from '@fxdesk/core/testing';
import { ManualClock } from '@fxdesk/primitives';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { createReplication, REDIS_KEY_PREFIX } from '../src/deps.js';
import { FakeFeed } from './fake-feed.js';
import { auth, buildOn, quoteEverySymbol, ready, testConfig, API_KEY } from './helpers.js';
import { TestEventSource } from './sse-client.js';

/** One replica in this process on a fake feed, as server.ts builds it with REDIS_URL, leading once it says so. */
async function leadingReplica(server: RunningEngine) {
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
  const service = { app, market, feed, clock };
  await until(async () => (await ready(service)).body.checks.replica?.detail.startsWith('leader: replica replica-a') === true, 10_000);
  quoteEverySymbol(feed);
  // The quotes went through the stream and back: the replica serves them.
  await until(async () => (await app.inject({ url: '/v1/market-data/tick?symbol=EURUSD', headers: auth })).statusCode === 200, 5_000);
  return service;
}

const opened: App[] = [];
const servers: RunningEngine[] = [];
const sources: TestEventSource[] = [];

afterEach(async () => {
  for (const source of sources.splice(0)) source.close();
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
});
