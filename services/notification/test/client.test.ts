import { NotificationClient, notificationCalls } from '@fxdesk/client';
import type { Env } from '@fxdesk/core';
import { expectClientMatchesDocument } from '@fxdesk/core/testing';
import { describe, expect, it } from 'vitest';
import { API_KEY, buildTestService, startService } from './harness.js';

/** Runs `use` with a client of the test service listening on a free port. */
async function withClient(env: Env, use: (client: NotificationClient) => Promise<void>): Promise<void> {
  const service = await startService(env);
  const client = new NotificationClient({ baseUrl: await service.app.listen({ host: '127.0.0.1', port: 0 }), apiKey: API_KEY });
  try {
    await use(client);
  } finally {
    await client.close();
    await service.close();
  }
}

describe('@fxdesk/client NotificationClient', () => {
  it("checks each answer with the schema the service's OpenAPI document names for it", async () => {
    const { app } = await buildTestService();
    try {
      await expectClientMatchesDocument(app, notificationCalls);
    } finally {
      await app.close();
    }
  });

  it('sends, is told of a replay, and reads the deliveries back', () =>
    withClient({ CHAT_APP_CHAT_IDS: '111' }, async (client) => {
      const request = { message: 'EUR_USD long filled', channels: ['CHAT_APP' as const], source: 'client-test', idempotencyKey: 'k1' };
      const first = await client.send(request);
      expect(first).toMatchObject({ status: 'accepted', deliveriesAttempted: 1, replayed: false });
      expect(await client.send(request)).toEqual({ ...first, replayed: true });
      const { items } = await client.deliveries({ source: 'client-test' });
      expect(items.map((d) => d.id)).toEqual(first.status === 'accepted' ? first.deliveryIds : []);
    }));

  it('reads a skipped answer while notifications are disabled', () =>
    withClient({ NOTIFICATIONS_ENABLED: 'false' }, async (client) => {
      expect(await client.send({ message: 'm', channels: ['EMAIL'], source: 'client-test' })).toEqual({ status: 'skipped' });
    }));
});
