import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { expectClientMatchesDocument } from '../testing/client-contract.js';
import type { App } from '../src/service.js';
import { testService } from './kit.js';

const apps: App[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((a) => a.close()));
});

const Widget = z.object({ id: z.string() }).meta({ id: 'ClientContractWidget' });
const LooseWidget = z.looseObject({ id: z.string() }).meta({ id: 'ClientContractLooseWidget' });

async function widgetService(): Promise<App> {
  const app = await testService();
  apps.push(app);
  app.get('/widgets/:id', { schema: { params: z.object({ id: z.string() }), response: { 200: Widget } } }, async () => ({ id: 'w' }));
  await app.ready();
  return app;
}

describe('expectClientMatchesDocument', () => {
  it('passes a client that checks an answer with the schema the route declares', async () => {
    await expectClientMatchesDocument(await widgetService(), { widget: { method: 'GET', path: '/widgets/{id}', status: 200, schema: Widget } });
  });

  it('fails a client that keeps its own copy of the schema', async () => {
    const app = await widgetService();
    const failure = await expectClientMatchesDocument(app, { widget: { method: 'GET', path: '/widgets/{id}', status: 200, schema: LooseWidget } }).catch(
      (err: { actual?: unknown; expected?: unknown }) => err,
    );
    expect(failure).toMatchObject({ actual: '#/components/schemas/ClientContractWidget', expected: '#/components/schemas/ClientContractLooseWidget' });
  });

  it('fails a client whose schema has no name the document could use', async () => {
    const app = await widgetService();
    await expect(
      expectClientMatchesDocument(app, { widget: { method: 'GET', path: '/widgets/{id}', status: 200, schema: z.object({ id: z.string() }) } }),
    ).rejects.toThrow(/has no id/);
  });

  it('fails a call the document does not have', async () => {
    const app = await widgetService();
    await expect(expectClientMatchesDocument(app, { widget: { method: 'POST', path: '/widgets', status: 201, schema: Widget } })).rejects.toThrow(
      /not in the document/,
    );
  });
});
