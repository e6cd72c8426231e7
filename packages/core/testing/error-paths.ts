import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { App } from '../src/service.js';

export interface ErrorPathSuiteOptions {
  /** Builds the service's app exactly as server.ts would, with test config and deps. */
  build: () => Promise<App>;
  /** The service's BODY_LIMIT_BYTES in that config. */
  bodyLimitBytes: number;
  /** How the service spells codes (the strategy service: upper). */
  codeCase?: 'lower' | 'upper';
  /** Headers that open the kit's own routes (/docs, /metrics) where the service keys them. */
  kitRouteHeaders?: Record<string, string>;
}

const PROBE = '/__probe';

/** Routes that reach each error path of the kit through the service's own wiring. */
function registerProbes(app: App): void {
  app.post(
    `${PROBE}/echo`,
    { schema: { hide: true, body: z.strictObject({ name: z.string().min(1), count: z.number().int() }) } },
    async (request) => request.body,
  );
  app.get(`${PROBE}/throw`, { schema: { hide: true } }, async () => {
    throw new Error('probe failure with a secret path /etc/passwd');
  });
}

function expectEnvelope(body: string, code: string): Record<string, unknown> {
  const parsed = JSON.parse(body) as Record<string, unknown>;
  expect(parsed).toMatchObject({ error: true, code, message: expect.any(String), timestamp: expect.any(String) });
  expect(Number.isNaN(Date.parse(parsed.timestamp as string))).toBe(false);
  expect(body).not.toMatch(/"stack"|at \w+ \(|statusCode/);
  return parsed;
}

/**
 * The error paths every service must answer with the envelope (DESIGN.md §2): unknown route,
 * malformed JSON, schema violation, body over the limit, a thrown exception; plus request ids,
 * /docs, the OpenAPI document, /metrics and /health/live.
 */
export function errorPathSuite(name: string, options: ErrorPathSuiteOptions): void {
  const code = (c: string) => (options.codeCase === 'upper' ? c.toUpperCase() : c);

  describe(`${name} service kit wiring`, () => {
    let app: App;
    beforeAll(async () => {
      app = await options.build();
      registerProbes(app);
      await app.ready();
    });
    afterAll(async () => {
      await app.close();
    });

    it('answers an unknown route with 404 and the envelope', async () => {
      const res = await app.inject({ method: 'GET', url: '/no/such/route' });
      expect(res.statusCode).toBe(404);
      expectEnvelope(res.body, code('not_found'));
    });

    it('answers malformed JSON with 400 and the envelope', async () => {
      const res = await app.inject({
        method: 'POST',
        url: `${PROBE}/echo`,
        headers: { 'content-type': 'application/json' },
        payload: '{"name": "x",',
      });
      expect(res.statusCode).toBe(400);
      expectEnvelope(res.body, code('invalid_json'));
    });

    it('answers a schema violation with 422, the envelope and a detail per problem', async () => {
      const res = await app.inject({ method: 'POST', url: `${PROBE}/echo`, payload: { name: '', count: 'x', extra: 1 } });
      expect(res.statusCode).toBe(422);
      const body = expectEnvelope(res.body, code('validation_error'));
      const paths = (body.details as { path: string }[]).map((d) => d.path);
      expect(paths).toEqual(expect.arrayContaining(['body.name', 'body.count']));
    });

    it('answers a body over the limit with 413 and the envelope', async () => {
      const res = await app.inject({
        method: 'POST',
        url: `${PROBE}/echo`,
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ name: 'x'.repeat(options.bodyLimitBytes + 10), count: 1 }),
      });
      expect(res.statusCode).toBe(413);
      expectEnvelope(res.body, code('payload_too_large'));
    });

    it('answers a thrown exception with 500 and a generic message, never the error itself', async () => {
      const res = await app.inject({ method: 'GET', url: `${PROBE}/throw` });
      expect(res.statusCode).toBe(500);
      const body = expectEnvelope(res.body, code('internal_error'));
      expect(body.message).toBe('internal error');
      expect(res.body).not.toContain('/etc/passwd');
    });

    it('answers a non-JSON body with 415 and the envelope', async () => {
      const res = await app.inject({ method: 'POST', url: `${PROBE}/echo`, headers: { 'content-type': 'text/xml' }, payload: '<a/>' });
      expect(res.statusCode).toBe(415);
      expectEnvelope(res.body, code('unsupported_media_type'));
    });

    it('echoes a well-formed x-request-id and puts it in the envelope', async () => {
      const res = await app.inject({ method: 'GET', url: '/no/such/route', headers: { 'x-request-id': 'trace-123' } });
      expect(res.headers['x-request-id']).toBe('trace-123');
      expect(JSON.parse(res.body).requestId).toBe('trace-123');
    });

    it('replaces a malformed x-request-id with its own', async () => {
      const res = await app.inject({ method: 'GET', url: '/health/live', headers: { 'x-request-id': 'bad id <script>' } });
      expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    });

    it('serves Swagger UI at /docs and the OpenAPI document at /docs/json', async () => {
      const ui = await app.inject({ method: 'GET', url: '/docs/', headers: options.kitRouteHeaders });
      expect(ui.statusCode).toBe(200);
      expect(ui.headers['content-type']).toContain('text/html');
      const doc = await app.inject({ method: 'GET', url: '/docs/json', headers: options.kitRouteHeaders });
      expect(doc.statusCode).toBe(200);
      const openapi = doc.json<{ openapi: string; paths: Record<string, unknown> }>();
      expect(openapi.openapi).toMatch(/^3\./);
      expect(Object.keys(openapi.paths)).toContain('/health/live');
      expect(Object.keys(openapi.paths).some((p) => p.startsWith(PROBE))).toBe(false);
    });

    it('serves /metrics in the Prometheus text format, counting answered requests', async () => {
      await app.inject({ method: 'GET', url: '/health/live' });
      const res = await app.inject({ method: 'GET', url: '/metrics', headers: options.kitRouteHeaders });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toContain('text/plain');
      expect(res.body).toMatch(/# TYPE fxdesk_http_requests_total counter/);
      expect(res.body).toMatch(/fxdesk_http_requests_total\{method="GET",route="\/health\/live",status="200"\} \d+/);
    });

    it('answers /health/live with 200', async () => {
      const res = await app.inject({ method: 'GET', url: '/health/live' });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ status: 'live' });
    });
  });
}
