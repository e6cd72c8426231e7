import type { AddressInfo } from 'node:net';
import { createLogger } from '@fxdesk/core';
import { startRedis, until } from '@fxdesk/core/testing';
import { ManualClock } from '@fxdesk/primitives';
import { describe, expect, it } from 'vitest';
import { createReplication } from '../src/deps.js';
import { FakeFeed } from './fake-feed.js';
import { auth, buildOn, quoteEverySymbol, ready, testConfig, API_KEY } from './helpers.js';
import { TestEventSource } from './sse-client.js';

describe('a replica whose Redis goes down', () => {
  it('says so in readiness and on its open streams, and lets go of the venue once its lease has run out', async () => {
    const server = await startRedis();
    const clock = new ManualClock('2026-01-05T12:00:00Z');
    const feed = new FakeFeed(clock);
    const logger = createLogger({ name: 'test', level: 'silent' });
    const redis = await createReplication({ url: server.url, owner: 'replica-a', retention: 1000, leaseMs: 1000, logger });
    const close = async () => {
      await feed.close();
      await redis.close();
    };
    const { app, market } = await buildOn(testConfig({ REDIS_URL: server.url }), { clock, feed, close, replication: redis.replication });
    const source: { current?: TestEventSource } = {};
    try {
      await app.ready();
      const service = { app, market, feed, clock };
      await until(async () => (await ready(service)).body.checks.replica?.detail.startsWith('leader: replica replica-a') === true, 10_000);
      quoteEverySymbol(feed);
      // The quotes went through the stream and back: the replica serves them.
      await until(async () => (await app.inject({ url: '/v1/market-data/tick?symbol=EURUSD', headers: auth })).statusCode === 200, 5_000);
      await app.listen({ host: '127.0.0.1', port: 0 });
      const stream = new TestEventSource(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}/v1/stream/ticks`, API_KEY);
      source.current = stream;
      await stream.waitFor(() => stream.ofType('status').length > 0);

      await server.stop();
      await stream.waitFor(() => stream.ofType('status').some((e) => (e.data as { reason?: string }).reason?.startsWith('Redis unreachable') === true));
      expect(stream.ofType('status').at(-1)?.data).toMatchObject({ state: 'disconnected' });
      const { status, body } = await ready(service);
      expect(status).toBe(503);
      expect(body.checks.replica).toMatchObject({ ok: false, detail: expect.stringMatching(/^Redis unreachable/) });
      await until(() => feed.state() === 'disconnected', 5_000);
    } finally {
      source.current?.close();
      await app.close();
      await server.stop();
    }
  }, 60_000);
});
