import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type RunningEngine } from '../testing/engines.js';
import { freePort } from '../testing/processes.js';
import { buildService, type App } from '../src/service.js';

async function replica(redisUrl: string, max: number, name = 'replica'): Promise<App> {
  const app = await buildService({
    name,
    title: 't',
    description: 'd',
    version: '1',
    logLevel: 'silent',
    rateLimit: { max, timeWindowMs: 60_000, redisUrl },
  });
  app.get('/r', async () => ({ ok: true }));
  await app.ready();
  return app;
}

describe('rate limit with REDIS_URL', () => {
  let redis: RunningEngine;
  let url: string;

  beforeAll(async () => {
    redis = await startRedis();
    url = redis.url;
  }, 300_000);

  afterAll(() => redis?.stop());

  it('shares one counter between replicas', async () => {
    const a = await replica(url, 3);
    const b = await replica(url, 3);
    const codes: number[] = [];
    for (const app of [a, b, a, b]) codes.push((await app.inject({ url: '/r', remoteAddress: '10.1.1.1' })).statusCode);
    expect(codes).toEqual([200, 200, 200, 429]);
    await Promise.all([a.close(), b.close()]);
  });

  it('counts each service apart on one Redis: a client of two services has a budget at each', async () => {
    const execution = await replica(url, 2, 'execution');
    const account = await replica(url, 2, 'account');
    const codes: number[] = [];
    for (const app of [execution, execution, account, account, execution]) codes.push((await app.inject({ url: '/r', remoteAddress: '10.2.2.2' })).statusCode);
    expect(codes).toEqual([200, 200, 200, 200, 429]);
    await Promise.all([execution.close(), account.close()]);
  });

  it('lets requests through while the store is unreachable', async () => {
    const app = await replica(`redis://127.0.0.1:${await freePort()}`, 1);
    for (let i = 0; i < 3; i++) expect((await app.inject({ url: '/r' })).statusCode).toBe(200);
    await app.close();
  });
});
