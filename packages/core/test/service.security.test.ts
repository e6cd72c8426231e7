import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { LogCapture } from '../testing/log-capture.js';
import { protectRoutes } from '../src/auth.js';
import { loggableUrl } from '../src/logger.js';
import type { App, ServiceOptions } from '../src/service.js';
import { testService } from './kit.js';

const apps: App[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((a) => a.close()));
});

const KEY = 'correct-key-123';

async function kit(options: Partial<ServiceOptions> = {}): Promise<App> {
  const app = await testService(options);
  apps.push(app);
  return app;
}

/** `/open/things/:id` for anyone and `/keyed/things/:id` behind the key; ids of 1–200 characters. */
async function thingsApp(options: Partial<ServiceOptions> = {}): Promise<App> {
  const app = await kit(options);
  const params = z.object({ id: z.string().min(1).max(200) });
  app.get('/open/things/:id', { schema: { params } }, async (request) => ({ id: request.params.id }));
  await app.register(async (scope) => {
    protectRoutes(scope, { header: 'x-api-key', key: KEY, schemes: ['apiKey'] });
    scope.get('/keyed/things/:id', { schema: { params } }, async (request) => ({ id: (request.params as { id: string }).id }));
  });
  return app;
}

describe('path parameters', () => {
  it('lets a parameter longer than 100 characters reach its route', async () => {
    const app = await thingsApp();
    const id = 'x'.repeat(150);
    const res = await app.inject({ url: `/open/things/${id}` });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ id });
  });

  it('answers a parameter longer than its route allows with the route’s 422 envelope', async () => {
    const app = await thingsApp();
    const res = await app.inject({ url: `/open/things/${'x'.repeat(300)}` });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ error: true, code: 'validation_error' });
  });

  it('answers a request without its key with 401 before it looks at a long parameter', async () => {
    const app = await thingsApp();
    const res = await app.inject({ url: `/keyed/things/${'x'.repeat(5000)}` });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ error: true, code: 'unauthorized' });
  });

  it('answers a malformed percent-encoding with 400 and the envelope', async () => {
    const app = await thingsApp();
    const res = await app.inject({ url: '/open/things/%E0%A4%A' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: true, code: 'bad_request' });
    expect(res.body).not.toContain('FST_ERR');
  });
});

describe('credentials in request logs', () => {
  it('never logs a key sent in the query string, and keeps the other parameters', async () => {
    const logs = new LogCapture();
    const app = await thingsApp({ logStream: logs, logLevel: 'info' });
    await app.inject({ url: `/keyed/things/a?api_key=${KEY}&access_token=tok-9f3a&hub.verify_token=vt-77b1&symbol=EURUSD` });
    const text = logs.text();
    expect(text).toContain('/keyed/things/a?');
    expect(text).toContain('symbol=EURUSD');
    for (const secret of [KEY, 'tok-9f3a', 'vt-77b1']) expect(text).not.toContain(secret);
  });

  it('never logs a configured secret wherever the client puts it in the URL', async () => {
    const logs = new LogCapture();
    const app = await thingsApp({ logStream: logs, logLevel: 'info', secrets: [KEY] });
    await app.inject({ url: `/open/things/${KEY}?k=${KEY}` });
    await app.inject({ url: `/no/such/${KEY}` });
    expect(logs.lines.length).toBeGreaterThan(0);
    expect(logs.text()).not.toContain(KEY);
  });
});

describe('configured secrets in request logs, however the URL encodes them', () => {
  const SECRET = 'ACCTKEY-sekrit-222';
  const encodings = {
    'the dashes escaped': 'ACCTKEY%2Dsekrit%2D222',
    'lower-case hex': 'ACCTKEY%2dsekrit%2d222',
    'mixed case hex, partly escaped': '%41CCTKEY%2dsekr%69t-222',
    'every byte escaped': [...SECRET].map((c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`).join(''),
  };

  for (const [how, encoded] of Object.entries(encodings)) {
    it(`blanks it with ${how}, in the query and in the path, and keeps the rest of the URL`, () => {
      expect(loggableUrl(`/v1/x?q=${encoded}&symbol=EURUSD`, [SECRET])).toBe('/v1/x?q=[redacted]&symbol=EURUSD');
      expect(loggableUrl(`/v1/things/${encoded}/more?a=1`, [SECRET])).toBe('/v1/things/[redacted]/more?a=1');
      expect(loggableUrl(`/v1/x?q=pre${encoded}post`, [SECRET])).toBe('/v1/x?q=pre[redacted]post');
    });
  }

  it('blanks a secret of any characters, encoded as UTF-8, and every secret configured', () => {
    const unicode = 'clé-sekrit-ü+/=';
    expect(loggableUrl(`/v1/x?a=${encodeURIComponent(unicode)}&b=${SECRET}`, [unicode, SECRET])).toBe('/v1/x?a=[redacted]&b=[redacted]');
    expect(loggableUrl(`/v1/x?a=cl%C3%A9-sekrit-%c3%bc+/%3D`, [unicode])).toBe('/v1/x?a=[redacted]');
  });

  it('leaves a URL without a secret as it was sent, escapes included', () => {
    for (const url of ['/v1/x/a%2Fb?q=ACCTKEY%2Dsekrit%2D22&r=%zz&s=%E2%82%AC', '/v1/x?q=ACCTKEY-sekrit-22', '/v1/x?q=%', '/é']) {
      expect(loggableUrl(url, [SECRET])).toBe(url);
    }
  });

  it('blanks a secret at the very end of the URL, and each of overlapping ones once', () => {
    expect(loggableUrl(`/v1/x?q=${SECRET}`, [SECRET])).toBe('/v1/x?q=[redacted]');
    expect(loggableUrl(`/v1/x?q=${SECRET}${SECRET}`, [SECRET, 'sekrit-222ACCT'])).toBe('/v1/x?q=[redacted]');
  });

  it('never logs it from a request, whatever the route answers', async () => {
    const logs = new LogCapture();
    const app = await thingsApp({ logStream: logs, logLevel: 'debug', secrets: [SECRET] });
    for (const encoded of Object.values(encodings)) {
      await app.inject({ url: `/open/things/x?q=${encoded}` });
      await app.inject({ url: `/open/things/${encoded}` });
      await app.inject({ url: `/no/such/${encoded}` });
    }
    expect(logs.lines.length).toBeGreaterThanOrEqual(12);
    const text = decodeURIComponent(logs.text());
    expect(text).not.toContain(SECRET);
    expect(text).not.toMatch(/sekrit/i);
  });
});

describe('docs and metrics behind the key', () => {
  it('answers /docs, /docs/json and /metrics with 401 without the key, and serves them with it', async () => {
    const app = await kit({ kitRoutesAuth: { header: 'x-internal-api-key', key: KEY } });
    for (const url of ['/docs', '/docs/json', '/docs/static/index.html', '/metrics']) {
      const denied = await app.inject({ url });
      expect(denied.statusCode, url).toBe(401);
      expect(denied.json()).toMatchObject({ error: true, code: 'unauthorized' });
      const allowed = await app.inject({ url, headers: { 'x-internal-api-key': KEY } });
      expect(allowed.statusCode, url).toBeLessThan(400);
    }
  });

  it('leaves them open when no key is given', async () => {
    const app = await kit();
    for (const url of ['/docs/json', '/metrics']) expect((await app.inject({ url })).statusCode).toBe(200);
  });
});
