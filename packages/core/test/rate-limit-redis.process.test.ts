import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDebianPackage } from '../testing/debian.js';
import { buildService, type App } from '../src/service.js';

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function replica(redisUrl: string, max: number): Promise<App> {
  const app = await buildService({
    name: 'replica',
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
  let redis: ChildProcess;
  let url: string;

  beforeAll(async () => {
    const binary = ensureDebianPackage('redis-server');
    const port = await freePort();
    url = `redis://127.0.0.1:${port}`;
    redis = spawn(binary, ['--port', String(port), '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'ignore'] });
    await new Promise<void>((resolve) => {
      redis.stdout?.on('data', (d: Buffer) => {
        if (d.toString().includes('Ready to accept connections')) resolve();
      });
    });
  }, 300_000);

  afterAll(() => {
    redis?.kill();
  });

  it('shares one counter between replicas', async () => {
    const a = await replica(url, 3);
    const b = await replica(url, 3);
    const codes: number[] = [];
    for (const app of [a, b, a, b]) codes.push((await app.inject({ url: '/r', remoteAddress: '10.1.1.1' })).statusCode);
    expect(codes).toEqual([200, 200, 200, 429]);
    await Promise.all([a.close(), b.close()]);
  });

  it('lets requests through while the store is unreachable', async () => {
    const app = await replica(`redis://127.0.0.1:${await freePort()}`, 1);
    for (let i = 0; i < 3; i++) expect((await app.inject({ url: '/r' })).statusCode).toBe(200);
    await app.close();
  });
});
