import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { harness, type Harness } from './helpers.js';

/** Spec 000 "Limits": GET endpoints 60 and POST endpoints 10 requests per minute, per client IP (DESIGN §4). */

let h: Harness;
beforeEach(async () => {
  h = await harness();
});
afterEach(async () => {
  await h.close();
});

const GET_URLS = ['/health', '/status', '/pairs', '/signals/EUR_USD', '/signals'];

function getFrom(ip: string, url: string) {
  return h.app.inject({ method: 'GET', url, remoteAddress: ip });
}

function postFrom(ip: string, url: string) {
  return h.app.inject({ method: 'POST', url, remoteAddress: ip });
}

function expectRateLimited(res: { statusCode: number; headers: Record<string, unknown>; json: () => unknown }) {
  expect(res.statusCode).toBe(429);
  expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(60);
  expect(res.json()).toMatchObject({ error: true, code: 'RATE_LIMITED', message: expect.any(String), timestamp: expect.any(String) });
}

describe('rate limits', () => {
  it('answers the 61st GET inside a minute with 429 RATE_LIMITED, Retry-After and the envelope, counting all GET endpoints together', async () => {
    for (let i = 0; i < 60; i++) {
      const res = await getFrom('10.0.0.1', GET_URLS[i % GET_URLS.length]!);
      expect(res.statusCode).toBe(200);
    }
    expectRateLimited(await getFrom('10.0.0.1', '/status'));
    expectRateLimited(await getFrom('10.0.0.1', '/pairs'));
  });

  it('answers the 11th POST inside a minute with 429 RATE_LIMITED, Retry-After and the envelope, counting all POST endpoints together', async () => {
    const urls = ['/start', '/stop'];
    for (let i = 0; i < 10; i++) {
      const res = await postFrom('10.0.0.2', urls[i % 2]!);
      expect(res.statusCode).toBe(200);
      await h.settle();
    }
    expectRateLimited(await postFrom('10.0.0.2', '/restart'));
  });

  it('counts each client on its own: another IP is still served', async () => {
    for (let i = 0; i < 61; i++) await getFrom('10.0.0.3', '/health');
    expect((await getFrom('10.0.0.3', '/health')).statusCode).toBe(429);
    expect((await getFrom('10.0.0.4', '/health')).statusCode).toBe(200);
    for (let i = 0; i < 11; i++) await postFrom('10.0.0.3', '/stop');
    expect((await postFrom('10.0.0.3', '/stop')).statusCode).toBe(429);
    expect((await postFrom('10.0.0.4', '/stop')).statusCode).toBe(409);
  });

  it('keeps GET and POST counters apart: POSTs over their limit leave GETs served', async () => {
    for (let i = 0; i < 11; i++) await postFrom('10.0.0.5', '/stop');
    expect((await postFrom('10.0.0.5', '/stop')).statusCode).toBe(429);
    expect((await getFrom('10.0.0.5', '/status')).statusCode).toBe(200);
  });

  it('tells the remaining allowance in X-RateLimit headers', async () => {
    const res = await getFrom('10.0.0.6', '/status');
    expect(res.headers['x-ratelimit-limit']).toBe('60');
    expect(res.headers['x-ratelimit-remaining']).toBe('59');
  });

  it('leaves probes, docs and metrics out of the limits', async () => {
    for (let i = 0; i < 61; i++) await getFrom('10.0.0.7', '/status');
    for (const url of ['/health/live', '/health/ready', '/metrics', '/redoc', '/docs/json']) {
      expect((await getFrom('10.0.0.7', url)).statusCode).toBe(200);
    }
  });
});

describe('configured rate limits', () => {
  it('takes the limits from RATE_LIMIT_GET_PER_MINUTE and RATE_LIMIT_POST_PER_MINUTE', async () => {
    const small = await harness({ env: { RATE_LIMIT_GET_PER_MINUTE: '3', RATE_LIMIT_POST_PER_MINUTE: '2' } });
    try {
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await small.app.inject({ method: 'GET', url: '/pairs' })).statusCode);
      expect(statuses).toEqual([200, 200, 200, 429]);
      const posts = [];
      for (let i = 0; i < 3; i++) posts.push((await small.app.inject({ method: 'POST', url: '/stop' })).statusCode);
      expect(posts).toEqual([409, 409, 429]);
    } finally {
      await small.close();
    }
  });
});

describe("the console's reads", () => {
  const CONSOLE_READS = ['/console/status', '/console/pairs', '/console/signals'];

  it("are counted apart from spec 000's GETs: neither spends the other's budget", async () => {
    const h = await harness({ env: { RATE_LIMIT_GET_PER_MINUTE: '3', CONSOLE_READS_PER_MINUTE: '10' } });
    try {
      // More desk reads than spec 000 allows a client in a minute.
      for (let i = 0; i < 9; i++) expect((await h.app.inject({ url: CONSOLE_READS[i % 3]! })).statusCode).toBe(200);
      const spec = [];
      for (let i = 0; i < 4; i++) spec.push((await h.app.inject({ url: '/status' })).statusCode);
      expect(spec).toEqual([200, 200, 200, 429]);
      expect((await h.app.inject({ url: '/console/status' })).statusCode).toBe(200);
    } finally {
      await h.close();
    }
  });

  it('have a budget of their own per session, past which they answer 429 with Retry-After', async () => {
    const password = 'console-rate-password';
    const h = await harness({ env: { CONSOLE_PASSWORD: password, CONSOLE_READS_PER_MINUTE: '10' } });
    const login = async () => {
      const res = await h.app.inject({ method: 'POST', url: '/console/login', payload: { password } });
      expect(res.statusCode).toBe(200);
      const cookie = res.cookies.find((c) => c.name === 'fxdesk_console');
      return `fxdesk_console=${cookie?.value}`;
    };
    try {
      const [first, second] = [await login(), await login()];
      const readAs = (cookie: string, url: string) => h.app.inject({ url, headers: { cookie } });
      for (let i = 0; i < 10; i++) expect((await readAs(first, CONSOLE_READS[i % 3]!)).statusCode).toBe(200);
      expectRateLimited(await readAs(first, '/console/pairs'));
      expect((await readAs(second, '/console/pairs')).statusCode).toBe(200);
    } finally {
      await h.close();
    }
  });
});
