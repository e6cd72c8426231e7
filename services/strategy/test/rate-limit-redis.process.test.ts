import { startRedis, type RunningEngine } from '@fxdesk/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harness, type Harness } from './helpers.js';

/**
 * Spec 000's budgets (GET 60, POST 10 a minute per client) with REDIS_URL: replicas behind a
 * balancer count one client's requests together, on a real redis-server.
 */
describe('rate limits shared by two replicas on one Redis', () => {
  let redis: RunningEngine;
  let replicas: Harness[] = [];

  beforeAll(async () => {
    redis = await startRedis();
    const env = { REDIS_URL: redis.url, RATE_LIMIT_GET_PER_MINUTE: '4', RATE_LIMIT_POST_PER_MINUTE: '2', TRUST_PROXY: '127.0.0.1' };
    replicas = [await harness({ env }), await harness({ env })];
  }, 300_000);

  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.close()));
    await redis?.stop();
  });

  /** A request through the balancer (127.0.0.1), which names the client in X-Forwarded-For. */
  const call = (replica: number, method: 'GET' | 'POST', url: string, client: string) =>
    (replicas[replica] as Harness).app.inject({ method, url, remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': client } });

  it('spends one GET budget per client over both replicas, and another client keeps its own', async () => {
    const codes = [];
    for (const replica of [0, 1, 0, 1, 0]) codes.push((await call(replica, 'GET', '/status', '198.51.100.1')).statusCode);
    expect(codes).toEqual([200, 200, 200, 200, 429]);
    expect((await call(1, 'GET', '/pairs', '198.51.100.2')).statusCode).toBe(200);
  });

  it('spends one POST budget per client over both replicas, apart from the GET one', async () => {
    const codes = [];
    // Stop while not running is 409: the request still counts.
    for (const replica of [0, 1, 1]) codes.push((await call(replica, 'POST', '/stop', '198.51.100.3')).statusCode);
    expect(codes).toEqual([409, 409, 429]);
    expect((await call(0, 'GET', '/status', '198.51.100.3')).statusCode).toBe(200);
  });
});
