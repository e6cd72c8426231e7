import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { App, ServiceOptions } from '../src/service.js';
import { testService } from './kit.js';

const apps: App[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((a) => a.close()));
});

/** A service with `POST /things` (a JSON body) and `GET /things`, counting the handlers that ran. */
async function thingsApp(options: Partial<ServiceOptions> = {}) {
  const app = await testService(options);
  apps.push(app);
  const ran = { count: 0 };
  const body = z.object({ name: z.string() }).nullish();
  for (const method of ['POST', 'PUT', 'PATCH', 'DELETE'] as const) {
    app.route({ method, url: '/things', schema: { body }, handler: async () => ({ ok: ++ran.count > 0 }) });
  }
  app.get('/things', async () => ({ ok: ++ran.count > 0 }));
  return { app, ran };
}

const HOST = 'desk.example:8000';

function post(app: App, headers: Record<string, string>, payload?: string) {
  return app.inject({ method: 'POST', url: '/things', headers: { host: HOST, ...headers }, payload });
}

describe('a state-changing request from a page of another origin', () => {
  it('is refused with 403 in the envelope before its body is read or its handler runs', async () => {
    const { app, ran } = await thingsApp();
    // Not JSON at all: read, it would be a 400.
    const res = await post(app, { origin: 'https://attacker.example', 'content-type': 'application/json' }, '{not json');
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ error: true, code: 'forbidden' });
    expect(res.json().message).toContain('another origin');
    expect(ran.count).toBe(0);
  });

  it('is refused with FORBIDDEN where the service spells its codes in upper case', async () => {
    const { app } = await thingsApp({ errorCodeCase: 'upper' });
    const res = await post(app, { origin: 'https://attacker.example' });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ error: true, code: 'FORBIDDEN' });
  });

  it('is refused for every method but GET, HEAD and OPTIONS', async () => {
    const { app, ran } = await thingsApp();
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE'] as const) {
      const res = await app.inject({ method, url: '/things', headers: { host: HOST, origin: 'https://attacker.example' } });
      expect(res.statusCode, method).toBe(403);
    }
    for (const method of ['GET', 'HEAD'] as const) {
      const res = await app.inject({ method, url: '/things', headers: { host: HOST, origin: 'https://attacker.example' } });
      expect(res.statusCode, method).toBe(200);
    }
    expect(ran.count).toBe(2);
  });

  it('is refused from another port of the same host', async () => {
    const { app } = await thingsApp();
    expect((await post(app, { origin: 'http://desk.example:5173' })).statusCode).toBe(403);
  });

  it('is refused with Origin: null (a sandboxed frame, a file, a data: URL), even when CORS_ORIGINS allows any origin', async () => {
    for (const corsOrigins of [[], ['*']]) {
      const { app, ran } = await thingsApp({ corsOrigins });
      expect((await post(app, { origin: 'null' })).statusCode).toBe(403);
      expect(ran.count).toBe(0);
    }
  });

  it('is refused with an Origin that is not an origin', async () => {
    const { app } = await thingsApp({ corsOrigins: ['https://desk.example'] });
    for (const origin of ['', 'desk.example:8000', 'garbage', 'https://desk.example, https://attacker.example']) {
      expect((await post(app, { origin })).statusCode, origin).toBe(403);
    }
  });

  it('is refused without Origin when Sec-Fetch-Site says cross-site', async () => {
    const { app, ran } = await thingsApp();
    const res = await post(app, { 'sec-fetch-site': 'cross-site' });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ error: true, code: 'forbidden' });
    expect(ran.count).toBe(0);
  });
});

describe('a state-changing request the guard lets through', () => {
  it('comes from a page of the service’s own origin: the host and port of the Host header', async () => {
    const { app, ran } = await thingsApp();
    expect((await post(app, { origin: 'http://desk.example:8000', 'sec-fetch-site': 'same-origin' })).statusCode).toBe(200);
    expect((await post(app, { origin: 'HTTP://DESK.EXAMPLE:8000' })).statusCode).toBe(200);
    // The scheme's default port, written or not.
    expect((await app.inject({ method: 'POST', url: '/things', headers: { host: 'desk.example', origin: 'https://desk.example:443' } })).statusCode).toBe(200);
    expect((await app.inject({ method: 'POST', url: '/things', headers: { host: 'desk.example:443', origin: 'https://desk.example' } })).statusCode).toBe(200);
    expect(ran.count).toBe(4);
  });

  it('comes from an origin of CORS_ORIGINS, written with or without a trailing slash, Sec-Fetch-Site cross-site or not', async () => {
    const { app } = await thingsApp({ corsOrigins: ['https://tools.example/', 'http://localhost:5173'] });
    expect((await post(app, { origin: 'https://tools.example', 'sec-fetch-site': 'cross-site' })).statusCode).toBe(200);
    expect((await post(app, { origin: 'http://localhost:5173' })).statusCode).toBe(200);
    expect((await post(app, { origin: 'https://attacker.example' })).statusCode).toBe(403);
  });

  it('comes from any origin when CORS_ORIGINS is *', async () => {
    const { app } = await thingsApp({ corsOrigins: ['*'] });
    expect((await post(app, { origin: 'https://anywhere.example', 'sec-fetch-site': 'cross-site' })).statusCode).toBe(200);
  });

  it('carries neither Origin nor Sec-Fetch-Site, as curl, bots and providers’ webhooks send it', async () => {
    const { app, ran } = await thingsApp();
    const res = await post(app, { 'content-type': 'application/json' }, '{"name":"a"}');
    expect(res.statusCode).toBe(200);
    expect((await post(app, { 'sec-fetch-site': 'none' })).statusCode).toBe(200);
    expect(ran.count).toBe(2);
  });

  it('is a preflight from any origin (OPTIONS), which CORS answers', async () => {
    const { app } = await thingsApp({ corsOrigins: ['https://tools.example'] });
    const res = await app.inject({
      method: 'OPTIONS',
      url: '/things',
      headers: { host: HOST, origin: 'https://tools.example', 'access-control-request-method': 'POST' },
    });
    expect(res.statusCode).toBe(204);
  });
});

describe('the service’s own origin behind a proxy', () => {
  const forwarded = { host: '10.0.0.5:8000', 'x-forwarded-host': 'desk.example', origin: 'https://desk.example' };

  it('is the X-Forwarded-Host of a trusted proxy', async () => {
    const { app } = await thingsApp({ trustProxy: ['127.0.0.1'] });
    const res = await app.inject({ method: 'POST', url: '/things', headers: forwarded, remoteAddress: '127.0.0.1' });
    expect(res.statusCode).toBe(200);
  });

  it('is the Host header when the proxy is not trusted, whatever X-Forwarded-Host says', async () => {
    const { app } = await thingsApp();
    const res = await app.inject({ method: 'POST', url: '/things', headers: forwarded, remoteAddress: '127.0.0.1' });
    expect(res.statusCode).toBe(403);
  });
});

describe('a body that is not JSON', () => {
  it('answers text/plain with 415 unsupported_media_type, before the route’s schema', async () => {
    const { app, ran } = await thingsApp();
    const res = await post(app, { 'content-type': 'text/plain' }, '{"name":"a"}');
    expect(res.statusCode).toBe(415);
    expect(res.json()).toMatchObject({ error: true, code: 'unsupported_media_type' });
    expect(ran.count).toBe(0);
  });

  it('answers a form with 415 too, and takes the same body as application/json', async () => {
    const { app, ran } = await thingsApp();
    expect((await post(app, { 'content-type': 'application/x-www-form-urlencoded' }, 'name=a')).statusCode).toBe(415);
    expect((await post(app, { 'content-type': 'application/json; charset=utf-8' }, '{"name":"a"}')).statusCode).toBe(200);
    expect(ran.count).toBe(1);
  });
});

describe('the refusal in the OpenAPI document', () => {
  it('is named on every operation that changes state, and on none that only reads', async () => {
    const { app } = await thingsApp();
    await app.ready();
    const paths = app.swagger().paths as Record<string, Record<string, { responses: Record<string, { description: string }> }>>;
    const operations = paths['/things'] ?? {};
    for (const method of ['post', 'put', 'patch', 'delete']) {
      expect(operations[method]?.responses['403']?.description, method).toContain('another origin');
    }
    expect(operations.get?.responses['403']).toBeUndefined();
  });
});
