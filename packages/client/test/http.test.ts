import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { HttpClient } from '../src/http.js';
import { ServiceError } from '../src/errors.js';

let server: http.Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
});

async function serve(handler: http.RequestListener): Promise<string> {
  server = http.createServer(handler);
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const OkSchema = z.object({ ok: z.boolean() });

async function failure(call: Promise<unknown>): Promise<ServiceError> {
  try {
    await call;
  } catch (err) {
    if (err instanceof ServiceError) return err;
    throw err;
  }
  throw new Error('the call succeeded');
}

describe('HttpClient', () => {
  it('sends the key header and JSON body, and checks the answer against its schema', async () => {
    let seen: http.IncomingHttpHeaders = {};
    let body = '';
    const url = await serve((req, res) => {
      seen = req.headers;
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
    });
    const client = new HttpClient('demo', { baseUrl: `${url}/base`, apiKey: 'k' }, 'x-api-key');
    const res = await client.call({ method: 'POST', path: '/things', query: { a: 1, b: undefined }, body: { x: 1 }, schema: OkSchema });
    expect(res.data).toEqual({ ok: true });
    expect(seen['x-api-key']).toBe('k');
    expect(seen['content-type']).toBe('application/json');
    expect(JSON.parse(body)).toEqual({ x: 1 });
    expect(client.url('/things', { a: 1 }).toString()).toBe(`${url}/base/things?a=1`);
    await client.close();
  });

  it('sends a call of a client table with its path parameters filled in and encoded', async () => {
    let path = '';
    const url = await serve((req, res) => {
      path = req.url ?? '';
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
    const client = new HttpClient('demo', { baseUrl: url });
    const call = { method: 'GET', path: '/things/{id}/parts/{part}', status: 200, schema: OkSchema } as const;
    expect((await client.send(call, { params: { id: 'a b/c', part: '7' }, query: { q: 1 } })).data).toEqual({ ok: true });
    expect(path).toBe('/things/a%20b%2Fc/parts/7?q=1');
    await client.close();
  });

  it('refuses to send a call whose path parameter has no value', async () => {
    const client = new HttpClient('demo', { baseUrl: 'http://127.0.0.1:9' });
    expect(() => client.send({ method: 'GET', path: '/things/{id}', status: 200, schema: OkSchema })).toThrow('no value for {id}');
    await client.close();
  });

  it('reads the body of a further status the call accepts with the same schema', async () => {
    const url = await serve((_req, res) => res.writeHead(503, { 'content-type': 'application/json' }).end('{"ok":false}'));
    const client = new HttpClient('demo', { baseUrl: url });
    const call = { method: 'GET', path: '/health', status: 200, schema: OkSchema } as const;
    expect((await client.send(call, { alsoStatuses: [503] })).data).toEqual({ ok: false });
    await failure(client.send(call));
    await client.close();
  });

  it('turns an error envelope into a ServiceError with its code, message, request id, details and Retry-After', async () => {
    const url = await serve((_req, res) =>
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '7' }).end(
        JSON.stringify({
          error: true,
          code: 'rate_limited',
          message: 'slow down',
          timestamp: '2026-01-05T12:00:00.000Z',
          requestId: 'r-1',
          details: [{ path: 'body.x', message: 'bad' }],
        }),
      ),
    );
    const client = new HttpClient('demo', { baseUrl: url });
    const err = await failure(client.call({ method: 'GET', path: '/', schema: OkSchema }));
    expect(err).toMatchObject({
      service: 'demo',
      kind: 'http',
      status: 429,
      code: 'rate_limited',
      requestId: 'r-1',
      retryAfterSeconds: 7,
      details: [{ path: 'body.x', message: 'bad' }],
    });
    expect(err.message).toBe('demo: slow down');
    expect(err.isRetryable).toBe(true);
    await client.close();
  });

  it('gives a non-envelope error body the code http_<status>', async () => {
    const url = await serve((_req, res) => res.writeHead(502, { 'content-type': 'text/html' }).end('<h1>Bad gateway</h1>'));
    const client = new HttpClient('demo', { baseUrl: url });
    expect(await failure(client.call({ method: 'GET', path: '/', schema: OkSchema }))).toMatchObject({ kind: 'http', status: 502, code: 'http_502' });
    await client.close();
  });

  it('reports a 2xx body of the wrong shape as invalid_response', async () => {
    const url = await serve((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":"yes"}'));
    const client = new HttpClient('demo', { baseUrl: url });
    const err = await failure(client.call({ method: 'GET', path: '/', schema: OkSchema }));
    expect(err).toMatchObject({ kind: 'invalid_response', code: 'invalid_response', status: 200 });
    expect(err.isRetryable).toBe(false);
    await client.close();
  });

  it('gives up after timeoutMs with a retryable timeout error', async () => {
    const url = await serve(() => undefined);
    const client = new HttpClient('demo', { baseUrl: url, timeoutMs: 100 });
    const err = await failure(client.call({ method: 'GET', path: '/', schema: OkSchema }));
    expect(err).toMatchObject({ kind: 'timeout', code: 'timeout' });
    expect(err.isRetryable).toBe(true);
    await client.close();
  });

  it('reports a refused connection as a retryable network error', async () => {
    const url = await serve(() => undefined);
    server!.close();
    server = undefined;
    const client = new HttpClient('demo', { baseUrl: url, timeoutMs: 2000 });
    const err = await failure(client.call({ method: 'GET', path: '/', schema: OkSchema }));
    expect(err).toMatchObject({ kind: 'network', code: 'network_error' });
    expect(err.message).toContain('ECONNREFUSED');
    expect(err.isRetryable).toBe(true);
    await client.close();
  });

  it('does not count a refusal (4xx other than 408 and 429) as retryable', async () => {
    expect(new ServiceError({ service: 's', kind: 'http', status: 422, code: 'validation_error', message: 'x' }).isRetryable).toBe(false);
    expect(new ServiceError({ service: 's', kind: 'http', status: 503, code: 'not_ready', message: 'x' }).isRetryable).toBe(true);
  });
});
