import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../src/json-parser.js';
import type { App, ServiceOptions } from '../src/service.js';
import { testService } from './kit.js';

const apps: App[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((a) => a.close()));
});

/** A kit service with a GET and a POST on /things, a GET with a query schema, and one with a loose query. */
async function service(options: Partial<ServiceOptions> = {}): Promise<App> {
  const app = await testService(options);
  apps.push(app);
  app.get('/things', async () => ({ things: [] }));
  app.post('/things', { schema: { body: z.strictObject({ name: z.string(), tags: z.unknown().optional() }) } }, async (request, reply) =>
    reply.status(201).send({ name: request.body.name }),
  );
  app.get('/things/:id', { schema: { params: z.object({ id: z.string() }), querystring: z.object({ fields: z.string().optional() }) } }, async () => ({
    id: 'a',
  }));
  app.get('/hooks', { schema: { querystring: z.object({ mode: z.string().optional() }).loose() } }, async () => ({ ok: true }));
  return app;
}

const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

describe('methods a path does not take', () => {
  it('answers 405 with Allow naming the methods of the path, in the envelope', async () => {
    const app = await service();
    const res = await app.inject({ method: 'TRACE', url: '/things/a' });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD');
    expect(res.json()).toMatchObject({ error: true, code: 'method_not_allowed' });
    const del = await app.inject({ method: 'DELETE', url: '/things' });
    expect(del.statusCode).toBe(405);
    expect(del.headers.allow).toBe('GET, HEAD, POST');
  });

  it('answers 404 without Allow for a path no route takes', async () => {
    const app = await service();
    const res = await app.inject({ method: 'TRACE', url: '/nothing/here' });
    expect(res.statusCode).toBe(404);
    expect(res.headers.allow).toBeUndefined();
    expect(res.json()).toMatchObject({ error: true, code: 'not_found' });
  });

  it('keeps CORS preflights working, and names OPTIONS among the allowed methods when CORS is configured', async () => {
    const app = await service({ corsOrigins: ['https://desk.example'] });
    const preflight = await app.inject({
      method: 'OPTIONS',
      url: '/things',
      headers: { origin: 'https://desk.example', 'access-control-request-method': 'POST' },
    });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('https://desk.example');
    const trace = await app.inject({ method: 'TRACE', url: '/things' });
    expect(trace.statusCode).toBe(405);
    expect(trace.headers.allow).toBe('GET, HEAD, OPTIONS, POST');
  });
});

describe('a request to an unknown route', () => {
  it('is answered 404 without its body being parsed', async () => {
    const app = await service();
    for (const payload of ['{not json', nested(MAX_JSON_DEPTH + 1)]) {
      const res = await app.inject({ method: 'POST', url: '/nope', headers: { 'content-type': 'application/json' }, payload });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ code: 'not_found' });
      expect(res.headers.connection).toBe('close');
    }
  });
});

describe('JSON nesting', () => {
  it(`refuses a body nesting deeper than ${MAX_JSON_DEPTH} levels with 400 invalid_json`, async () => {
    const app = await service();
    const res = await app.inject({
      method: 'POST',
      url: '/things',
      headers: { 'content-type': 'application/json' },
      payload: `{"name":"a","tags":${nested(MAX_JSON_DEPTH)}}`,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: true, code: 'invalid_json', message: `the JSON body nests deeper than ${MAX_JSON_DEPTH} levels` });
  });

  it(`parses a body of exactly ${MAX_JSON_DEPTH} levels as before`, async () => {
    const app = await service();
    const res = await app.inject({
      method: 'POST',
      url: '/things',
      headers: { 'content-type': 'application/json' },
      payload: `{"name":"a","tags":${nested(MAX_JSON_DEPTH - 1)}}`,
    });
    expect(res.statusCode).toBe(201);
  });

  it('still refuses a __proto__ key, as Fastify’s own parser does', async () => {
    const app = await service();
    const res = await app.inject({
      method: 'POST',
      url: '/things',
      headers: { 'content-type': 'application/json' },
      payload: '{"name":"a","__proto__":{"x":1}}',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'invalid_json' });
  });

  it('does not count brackets inside strings, escaped quotes included', () => {
    expect(nestsDeeperThan(`["${'['.repeat(100)}"]`, 2)).toBe(false);
    expect(nestsDeeperThan(`["\\"${'['.repeat(100)}"]`, 2)).toBe(false);
    expect(nestsDeeperThan(`["\\\\", [[1]]]`, 2)).toBe(true);
    expect(nestsDeeperThan(`{"a":{"b":[1]}}`, 3)).toBe(false);
    expect(nestsDeeperThan(`{"a":{"b":[1]}}`, 2)).toBe(true);
  });
});

describe('query parameters', () => {
  it('refuses one the route’s query schema does not name with 422 validation_error', async () => {
    const app = await service();
    const res = await app.inject({ method: 'GET', url: '/things/a?fields=x&bogus=1' });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ code: 'validation_error', details: [{ path: 'querystring', message: 'Unrecognized key: "bogus"' }] });
  });

  it('refuses any on a documented route with no query schema', async () => {
    const app = await service();
    const res = await app.inject({ method: 'GET', url: '/things?bogus=1' });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ code: 'validation_error' });
    expect((await app.inject({ method: 'GET', url: '/things' })).statusCode).toBe(200);
  });

  it('leaves a loose query schema (a webhook’s sender adds its own) and the kit’s hidden routes alone', async () => {
    const app = await service();
    expect((await app.inject({ method: 'GET', url: '/hooks?mode=a&extra=1' })).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/metrics?x=1' })).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/docs/json?x=1' })).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/docs/static/swagger-ui.css?x=1' })).statusCode).toBe(200);
  });
});

/** Writes raw bytes to a listening app; resolves with everything it sent back once it closed the connection. */
async function raw(app: App, bytes: string): Promise<string> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    let answer = '';
    const socket = net.connect(port, '127.0.0.1', () => socket.write(bytes));
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    socket.on('error', reject);
    socket.on('close', () => resolve(answer));
  });
}

function parsed(answer: string): { status: string; headers: string; body: unknown } {
  const [head = '', body = ''] = answer.split('\r\n\r\n');
  return { status: head.split('\r\n')[0] ?? '', headers: head.toLowerCase(), body: JSON.parse(body) as unknown };
}

describe('requests the HTTP parser refuses', () => {
  const cases: [string, string, string, string][] = [
    ['a duplicate Content-Length', 'POST /things HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n{}', '400 Bad Request', 'bad_request'],
    ['a CR inside a header value', 'GET /things HTTP/1.1\r\nHost: a\r\nX-Note: a\rb\r\n\r\n', '400 Bad Request', 'bad_request'],
    ['an LF inside a header name', 'GET /things HTTP/1.1\r\nHost: a\r\nX-\nNote: a\r\n\r\n', '400 Bad Request', 'bad_request'],
    ['a control byte in the path', 'GET /thi\u0001ngs HTTP/1.1\r\nHost: a\r\n\r\n', '400 Bad Request', 'bad_request'],
    [
      'headers over the limit',
      `GET /things HTTP/1.1\r\nHost: a\r\nX-Pad: ${'a'.repeat(20_000)}\r\n\r\n`,
      '431 Request Header Fields Too Large',
      'headers_too_large',
    ],
  ];
  for (const [what, bytes, status, code] of cases) {
    it(`answers ${what} with ${status.slice(0, 3)} in the envelope and closes the connection`, async () => {
      const app = await service({ errorCodeCase: 'upper' });
      const answer = parsed(await raw(app, bytes));
      expect(answer.status).toBe(`HTTP/1.1 ${status}`);
      expect(answer.headers).toContain('content-type: application/json');
      expect(answer.headers).toContain('connection: close');
      expect(answer.body).toMatchObject({ error: true, code: code.toUpperCase() });
    });
  }

  it('answers a body that stops arriving with 408 in the envelope once the request timeout has passed', async () => {
    const app = await service({ requestTimeoutMs: 500 });
    const answer = parsed(await raw(app, 'POST /things HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":'));
    expect(answer.status).toBe('HTTP/1.1 408 Request Timeout');
    expect(answer.body).toMatchObject({ error: true, code: 'request_timeout', message: 'the request did not arrive in time' });
  }, 30_000);
});
