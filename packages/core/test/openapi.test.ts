import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { protectRoutes } from '../src/auth.js';
import type { App, ServiceOptions } from '../src/service.js';
import { testService } from './kit.js';

const apps: App[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((a) => a.close()));
});

interface Operation {
  security?: Record<string, string[]>[];
  responses: Record<string, { description: string; content?: Record<string, { schema: unknown }> }>;
}

async function documentOf(register: (app: App) => void | Promise<void>, options: Partial<ServiceOptions> = {}) {
  const app = await testService({ securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' } }, ...options });
  apps.push(app);
  await register(app);
  await app.ready();
  return app.swagger() as unknown as { paths: Record<string, Record<string, Operation>> };
}

const statuses = (op: Operation | undefined) => Object.keys(op?.responses ?? {}).sort();

describe('answers the kit documents on every route', () => {
  it('documents 400, 403, 408, 413, 415, 422 and 500 on a route that reads a JSON body', async () => {
    const doc = await documentOf((app) => {
      app.post('/things', { schema: { body: z.object({ name: z.string() }), response: { 201: z.object({ id: z.string() }) } } }, async () => ({ id: 'a' }));
    });
    expect(statuses(doc.paths['/things']?.post)).toEqual(['201', '400', '403', '408', '413', '415', '422', '500']);
  });

  it('documents 422 where parameters are validated, and 429 where a rate limit applies', async () => {
    const doc = await documentOf(
      (app) => {
        app.get('/things/:id', { schema: { params: z.object({ id: z.string().max(10) }) } }, async () => ({}));
        app.get('/free', { config: { rateLimit: false } }, async () => ({}));
      },
      { rateLimit: { max: 10, timeWindowMs: 60_000 } },
    );
    expect(statuses(doc.paths['/things/{id}']?.get)).toEqual(['422', '429', '500']);
    // A route with no query schema takes no parameter, so it too answers 422 to one (strict-query.ts).
    expect(statuses(doc.paths['/free']?.get)).toEqual(['422', '500']);
  });

  it('keeps what a route declares itself and describes the statuses it adds', async () => {
    const Own = z.object({ error: z.literal(true), why: z.string() });
    const doc = await documentOf((app) => {
      app.post('/things', { schema: { body: z.object({}), response: { 422: Own } } }, async () => undefined);
    });
    const op = doc.paths['/things']?.post as Operation;
    expect(op.responses['422']?.content?.['application/json']?.schema).toMatchObject({ properties: { why: { type: 'string' } } });
    expect(op.responses['413']?.description).toMatch(/BODY_LIMIT_BYTES/);
  });
});

describe('protected routes', () => {
  it('declare their security requirement and 401, and routes outside the scope declare neither', async () => {
    const doc = await documentOf(async (app) => {
      app.get('/open', async () => ({}));
      await app.register(async (scope) => {
        protectRoutes(scope, { header: 'x-api-key', key: 'k', schemes: ['apiKey'] });
        scope.get('/keyed', async () => ({}));
      });
    });
    expect(doc.paths['/keyed']?.get?.security).toEqual([{ apiKey: [] }]);
    expect(statuses(doc.paths['/keyed']?.get)).toContain('401');
    expect(doc.paths['/open']?.get?.security).toBeUndefined();
    expect(statuses(doc.paths['/open']?.get)).not.toContain('401');
  });

  it('declare nothing when no key is configured', async () => {
    const doc = await documentOf(async (app) => {
      await app.register(async (scope) => {
        protectRoutes(scope, { header: 'x-api-key', key: undefined, schemes: ['apiKey'] });
        scope.get('/keyed', async () => ({}));
      });
    });
    expect(doc.paths['/keyed']?.get?.security).toBeUndefined();
    expect(statuses(doc.paths['/keyed']?.get)).not.toContain('401');
  });
});

describe('components', () => {
  it('lists the named schemas the operations reach, and none of the others registered in the process', async () => {
    const Inner = z.object({ n: z.number() }).meta({ id: 'OpenApiTestInner' });
    const Outer = z.object({ inner: Inner }).meta({ id: 'OpenApiTestOuter' });
    z.object({ unused: z.string() }).meta({ id: 'OpenApiTestUnused' });
    const doc = (await documentOf((app) => {
      app.get('/outer', { schema: { response: { 200: Outer } } }, async () => ({ inner: { n: 1 } }));
    })) as unknown as { components: { schemas: Record<string, unknown> } };
    const names = Object.keys(doc.components.schemas);
    expect(names).toEqual(expect.arrayContaining(['OpenApiTestOuter', 'OpenApiTestInner', 'ErrorEnvelope']));
    expect(names).not.toContain('OpenApiTestUnused');
  });
});
