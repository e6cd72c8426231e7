import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { LogCapture } from '../testing/log-capture.js';
import { requireApiKey, secretsEqual } from '../src/auth.js';
import { AppError, defineErrors } from '../src/errors.js';
import { registerHealthRoutes } from '../src/health.js';
import type { App, ServiceOptions } from '../src/service.js';
import { testService } from './kit.js';

const apps: App[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((a) => a.close()));
});

async function kit(options: Partial<ServiceOptions> = {}): Promise<App> {
  const app = await testService(options);
  apps.push(app);
  return app;
}

describe('API key hook', () => {
  async function protectedApp(logs?: LogCapture, allowBearer = false) {
    const app = await kit(logs ? { logStream: logs, logLevel: 'info' } : {});
    await app.register(async (scope) => {
      scope.addHook('onRequest', requireApiKey({ header: 'x-api-key', key: 'correct-key-123', allowBearer }));
      scope.get('/secret', async () => ({ ok: true }));
    });
    return app;
  }

  it('lets the right key through', async () => {
    const app = await protectedApp();
    const res = await app.inject({ url: '/secret', headers: { 'x-api-key': 'correct-key-123' } });
    expect(res.statusCode).toBe(200);
  });

  it('answers a missing key with 401 unauthorized', async () => {
    const app = await protectedApp();
    const res = await app.inject({ url: '/secret' });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ error: true, code: 'unauthorized', message: 'missing x-api-key header' });
  });

  it('answers a wrong key with 401 unauthorized', async () => {
    const app = await protectedApp();
    const res = await app.inject({ url: '/secret', headers: { 'x-api-key': 'correct-key-124' } });
    expect(res.statusCode).toBe(401);
    expect(res.json().code).toBe('unauthorized');
  });

  it('accepts Authorization: Bearer only when allowed', async () => {
    const strict = await protectedApp();
    expect((await strict.inject({ url: '/secret', headers: { authorization: 'Bearer correct-key-123' } })).statusCode).toBe(401);
    const lenient = await protectedApp(undefined, true);
    expect((await lenient.inject({ url: '/secret', headers: { authorization: 'Bearer correct-key-123' } })).statusCode).toBe(200);
  });

  it('logs whether a key was present, never the key', async () => {
    const logs = new LogCapture();
    const app = await protectedApp(logs);
    await app.inject({ url: '/secret', headers: { 'x-api-key': 'wrong-secret-value' } });
    await app.inject({ url: '/secret', headers: { 'x-api-key': 'correct-key-123' } });
    await app.inject({ url: '/secret' });
    expect(logs.text()).toContain('"keyPresent":true');
    expect(logs.text()).toContain('"keyPresent":false');
    expect(logs.text()).not.toContain('wrong-secret-value');
    expect(logs.text()).not.toContain('correct-key-123');
  });

  it('compares secrets of any length without throwing', () => {
    expect(secretsEqual('a', 'a')).toBe(true);
    expect(secretsEqual('a', 'a-much-longer-secret')).toBe(false);
    expect(secretsEqual('', 'x')).toBe(false);
  });
});

describe('log redaction', () => {
  it('blanks credential headers and settings whatever a route logs', async () => {
    const logs = new LogCapture();
    const app = await kit({ logStream: logs, logLevel: 'info' });
    app.get('/log', async (request) => {
      request.log.info({ req: { headers: request.headers }, config: { API_KEY: 'k-config-value', PORT: 1 } }, 'dumping');
      return {};
    });
    await app.inject({ url: '/log', headers: { 'x-api-key': 'k-header-value', authorization: 'Bearer k-bearer-value' } });
    const text = logs.text();
    expect(text).toContain('dumping');
    for (const secret of ['k-config-value', 'k-header-value', 'k-bearer-value']) expect(text).not.toContain(secret);
    expect(text).toContain('[redacted]');
  });
});

describe('errors', () => {
  it('answers an AppError with its code, status, headers and details', async () => {
    const errors = defineErrors({ thing_missing: 404 });
    const app = await kit();
    app.get('/e', async () => {
      throw errors.create('thing_missing', 'no such thing', { headers: { 'retry-after': '3' }, details: [{ path: 'x', message: 'y' }] });
    });
    const res = await app.inject({ url: '/e' });
    expect(res.statusCode).toBe(404);
    expect(res.headers['retry-after']).toBe('3');
    expect(res.json()).toMatchObject({ error: true, code: 'thing_missing', message: 'no such thing', details: [{ path: 'x', message: 'y' }] });
  });

  it('spells codes in upper case for a service that asks for it', async () => {
    const app = await kit({ errorCodeCase: 'upper' });
    app.get('/e', async () => {
      throw new AppError('not_ready', 'later');
    });
    expect((await app.inject({ url: '/e' })).json().code).toBe('NOT_READY');
    expect((await app.inject({ url: '/nope' })).json().code).toBe('NOT_FOUND');
  });

  it('answers a response that breaks its own schema with 500, not the bad data', async () => {
    const app = await kit();
    app.get('/bad', { schema: { response: { 200: z.object({ n: z.number() }) } } }, async () => ({ n: 'secret-string' }) as never);
    const res = await app.inject({ url: '/bad' });
    expect(res.statusCode).toBe(500);
    expect(res.body).not.toContain('secret-string');
  });

  it('answers a query that breaks its schema with 422 naming the query field', async () => {
    const app = await kit();
    app.get('/q', { schema: { querystring: z.object({ count: z.coerce.number().int().min(1) }) } }, async (r) => ({ count: r.query.count }));
    const res = await app.inject({ url: '/q?count=zero' });
    expect(res.statusCode).toBe(422);
    expect(res.json().details[0].path).toBe('querystring.count');
  });
});

describe('rate limit', () => {
  it('answers the request past the limit with 429, Retry-After and the envelope', async () => {
    const app = await kit({ rateLimit: { max: 2, timeWindowMs: 60_000 } });
    app.get('/r', async () => ({}));
    expect((await app.inject({ url: '/r' })).statusCode).toBe(200);
    expect((await app.inject({ url: '/r' })).statusCode).toBe(200);
    const res = await app.inject({ url: '/r' });
    expect(res.statusCode).toBe(429);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(res.json()).toMatchObject({ error: true, code: 'rate_limited' });
  });

  it('counts each client separately', async () => {
    const app = await kit({ rateLimit: { max: 1, timeWindowMs: 60_000 } });
    app.get('/r', async () => ({}));
    expect((await app.inject({ url: '/r', remoteAddress: '10.0.0.1' })).statusCode).toBe(200);
    expect((await app.inject({ url: '/r', remoteAddress: '10.0.0.1' })).statusCode).toBe(429);
    expect((await app.inject({ url: '/r', remoteAddress: '10.0.0.2' })).statusCode).toBe(200);
  });

  it('counts the client a trusted proxy names in X-Forwarded-For, and an untrusted sender by its own address', async () => {
    const app = await kit({ rateLimit: { max: 1, timeWindowMs: 60_000 }, trustProxy: ['127.0.0.1'] });
    app.get('/r', async () => ({}));
    const viaProxy = (client: string) => app.inject({ url: '/r', remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': client } });
    expect((await viaProxy('203.0.113.7')).statusCode).toBe(200);
    expect((await viaProxy('203.0.113.8')).statusCode).toBe(200);
    expect((await viaProxy('203.0.113.7')).statusCode).toBe(429);
    // A client that is not the proxy cannot pick its own budget by sending the header.
    const spoofed = (forwarded: string) => app.inject({ url: '/r', remoteAddress: '198.51.100.1', headers: { 'x-forwarded-for': forwarded } });
    expect((await spoofed('192.0.2.1')).statusCode).toBe(200);
    expect((await spoofed('192.0.2.2')).statusCode).toBe(429);
  });

  it('lets a route set its own limit', async () => {
    const app = await kit({ rateLimit: { max: 100, timeWindowMs: 60_000 } });
    app.post('/p', { config: { rateLimit: { max: 1, timeWindow: 60_000 } } }, async () => ({}));
    expect((await app.inject({ method: 'POST', url: '/p' })).statusCode).toBe(200);
    expect((await app.inject({ method: 'POST', url: '/p' })).statusCode).toBe(429);
  });

  it('never limits the health routes', async () => {
    const app = await kit({ rateLimit: { max: 1, timeWindowMs: 60_000 } });
    registerHealthRoutes(app, { version: '1', checks: {} });
    for (let i = 0; i < 3; i++) expect((await app.inject({ url: '/health/live' })).statusCode).toBe(200);
  });
});

describe('health routes', () => {
  it('answers ready when every check passes', async () => {
    const app = await kit();
    registerHealthRoutes(app, { version: '1', checks: { db: () => ({ ok: true }), broker: async () => ({ ok: true, detail: 'connected' }) } });
    const res = await app.inject({ url: '/health/ready' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ready', checks: { db: { ok: true }, broker: { ok: true, detail: 'connected' } } });
  });

  it('answers 503 naming the failing check, a throwing check included', async () => {
    const app = await kit();
    registerHealthRoutes(app, {
      version: '1',
      checks: {
        db: () => ({ ok: true }),
        broker: () => {
          throw new Error('socket closed');
        },
      },
    });
    const res = await app.inject({ url: '/health/ready' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({ status: 'not_ready', checks: { db: { ok: true }, broker: { ok: false, detail: 'socket closed' } } });
  });

  it('fails a check that does not answer in time', async () => {
    const app = await kit();
    registerHealthRoutes(app, { version: '1', timeoutMs: 20, checks: { slow: () => new Promise(() => {}) } });
    const res = await app.inject({ url: '/health/ready' });
    expect(res.statusCode).toBe(503);
    expect(res.json().checks.slow).toEqual({ ok: false, detail: 'no answer within 20 ms' });
  });

  it('reports liveness with uptime and version', async () => {
    let now = 1_000_000;
    const app = await kit();
    registerHealthRoutes(app, { version: '2.0.0', checks: {}, now: () => now, startedAt: now });
    now += 65_000;
    expect((await app.inject({ url: '/health/live' })).json()).toEqual({ status: 'live', uptimeSeconds: 65, version: '2.0.0' });
  });
});

describe('CORS', () => {
  it('answers a preflight from an allowed origin and not from others', async () => {
    const app = await kit({ corsOrigins: ['https://desk.example'] });
    app.get('/c', async () => ({}));
    const ok = await app.inject({ method: 'OPTIONS', url: '/c', headers: { origin: 'https://desk.example', 'access-control-request-method': 'GET' } });
    expect(ok.headers['access-control-allow-origin']).toBe('https://desk.example');
    const other = await app.inject({ method: 'GET', url: '/c', headers: { origin: 'https://evil.example' } });
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
  });
});
