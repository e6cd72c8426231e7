import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { checkOpenApiContract } from '../testing/openapi-contract.js';
import { protectRoutes } from '../src/auth.js';
import type { App } from '../src/service.js';
import { testService } from './kit.js';

const apps: App[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((a) => a.close()));
});

const KEY = 'contract-key-1';
const Thing = z.object({ id: z.string(), count: z.number().int() });

async function service(register: (app: App) => void | Promise<void>): Promise<App> {
  const app = await testService({ bodyLimitBytes: 2048, securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' } } });
  apps.push(app);
  await app.register(async (scope) => {
    protectRoutes(scope, { header: 'x-api-key', key: KEY, schemes: ['apiKey'] });
    await register(scope);
  });
  return app;
}

const check = (app: App) => checkOpenApiContract(app, { credentials: { apiKey: KEY }, bodyLimitBytes: 2048 });

describe('the OpenAPI contract check', () => {
  it('passes a service whose answers all match its document, sending every kind of request', async () => {
    const app = await service((scope) => {
      scope.post(
        '/things',
        { schema: { body: z.strictObject({ count: z.number().int().min(0).max(10) }), response: { 201: Thing } } },
        async (request, reply) => reply.status(201).send({ id: 'a', count: request.body.count }),
      );
      scope.get(
        '/things/:id',
        { schema: { params: z.object({ id: z.string().max(8) }), response: { 200: Thing, 404: z.object({ error: z.literal(true) }).passthrough() } } },
        async (request, reply) =>
          request.params.id === 'a'
            ? { id: 'a', count: 1 }
            : reply.status(404).send({ error: true, code: 'not_found', message: 'no', timestamp: 'now' } as never),
      );
    });
    const report = await check(app);
    expect(Object.keys(report)).toEqual(['POST /things', 'GET /things/{id}']);
    expect(Object.keys(report['POST /things'] ?? {}).sort()).toEqual(['201', '400', '401', '413', '415', '422']);
    expect(Object.keys(report['GET /things/{id}'] ?? {})).toEqual(expect.arrayContaining(['401', '404', '422']));
  });

  it('fails on a status the operation does not document', async () => {
    const app = await service((scope) => {
      scope.get('/teapot', { schema: { response: { 200: Thing } } }, async (_request, reply) =>
        reply.status(418 as 200).send({ error: true, code: 'teapot', message: 'short and stout', timestamp: 'now' } as never),
      );
    });
    await expect(check(app)).rejects.toThrow(/GET \/teapot .*answered 418, a status the document does not name/);
  });

  it('fails on a body that breaks its documented schema', async () => {
    const app = await service((scope) => {
      // The serializer would catch the wrong type; a raw string goes out unchecked, as a stored replay would.
      scope.get('/raw', { schema: { response: { 200: Thing } } }, async (_request, reply) =>
        reply.type('application/json').send('{"id":"a","count":"many"}' as never),
      );
    });
    await expect(check(app)).rejects.toThrow(/GET \/raw .*answered 200 with a body that breaks its schema: data\/count must be integer/);
  });

  it('fails on an operation that accepts a query parameter it does not name', async () => {
    const app = await service((scope) => {
      scope.get('/open', { schema: { querystring: z.object({ q: z.string().optional() }).loose(), response: { 200: Thing } } }, async () => ({
        id: 'a',
        count: 1,
      }));
    });
    await expect(check(app)).rejects.toThrow(/GET \/open \(unknown query parameter: .*answered 200, not 422/);
  });

  it('fails on a method the path does not document that is not answered 405', async () => {
    const app = await service((scope) => {
      scope.get('/things', { schema: { response: { 200: Thing } } }, async () => ({ id: 'a', count: 1 }));
      scope.delete('/things', { schema: { hide: true } }, async (_request, reply) => reply.status(204).send());
    });
    await expect(check(app)).rejects.toThrow(/DELETE \/things answered 204/);
  });

  it('fails on a media type the operation does not document', async () => {
    const app = await service((scope) => {
      scope.get('/text', { schema: { response: { 200: Thing } } }, async (_request, reply) => reply.type('text/plain').send('hello' as never));
    });
    await expect(check(app)).rejects.toThrow(/GET \/text .*answered 200 as text\/plain/);
  });
});
