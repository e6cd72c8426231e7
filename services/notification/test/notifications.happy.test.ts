import { afterEach, describe, expect, it } from 'vitest';
import type { DeliveryRecord } from '@fxdesk/schemas';
import { API_KEY, startService, type Harness } from './harness.js';
import type { SqliteStoreDatabase } from '@fxdesk/core';
import type { DatabaseNotificationStore } from '../src/database-store.js';

const RECIPIENTS = { CHAT_APP_CHAT_IDS: '111,222', EMAIL_TO: 'a@example.com', SMS_TO: '+14155550100', MESSENGER_APP_TO: '14155550101' };
const body = { message: 'GBP_USD short opened', channels: ['CHAT_APP', 'EMAIL'], source: 'strategy' };

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('POST /notifications', () => {
  it('stores one delivery per (channel, recipient) and answers 201 with their ids', async () => {
    h = await startService(RECIPIENTS);
    const res = await h.notify({ ...body, channels: ['CHAT_APP', 'EMAIL', 'SMS', 'MESSENGER_APP', 'EMAIL'] });
    expect(res.statusCode).toBe(201);
    expect(res.json).toEqual({ requestId: expect.any(String), deliveryIds: expect.any(Array), deliveriesAttempted: 5 });
    expect(res.headers['idempotent-replayed']).toBeUndefined();
    const ids = res.json.deliveryIds as string[];
    const stored = await Promise.all(ids.map(async (id) => (await h?.store.get(id)) as DeliveryRecord));
    expect(stored.map((d) => [d.channel, d.recipient])).toEqual([
      ['CHAT_APP', '111'],
      ['CHAT_APP', '222'],
      ['EMAIL', 'a@example.com'],
      ['SMS', '+14155550100'],
      ['MESSENGER_APP', '14155550101'],
    ]);
    expect(stored.every((d) => d.requestId === res.json.requestId && d.source === 'strategy')).toBe(true);
  });

  it('answers 201 with no deliveries for a channel without recipients', async () => {
    h = await startService({});
    const res = await h.notify({ ...body, channels: ['SMS'] });
    expect(res.statusCode).toBe(201);
    expect(res.json).toMatchObject({ deliveryIds: [], deliveriesAttempted: 0 });
  });

  it('answers 200 skipped and stores nothing when NOTIFICATIONS_ENABLED=false', async () => {
    h = await startService({ ...RECIPIENTS, NOTIFICATIONS_ENABLED: 'false' });
    const res = await h.notify(body);
    expect(res.statusCode).toBe(200);
    expect(res.json).toEqual({ status: 'skipped' });
    expect(await h.store.countByStatus()).toEqual({});
  });

  it('replays the original 201 body for a repeated (source, idempotencyKey) and sends nothing again', async () => {
    h = await startService(RECIPIENTS);
    const first = await h.notify({ ...body, idempotencyKey: 'signal-42' });
    await h.outbox.settle();
    const again = await h.notify({ ...body, idempotencyKey: 'signal-42', message: 'different text' });
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json).toEqual(first.json);
    await h.outbox.settle();
    expect(await h.store.countByStatus()).toEqual({ sent: 3 });
  });

  it('keeps idempotency keys apart per source', async () => {
    h = await startService(RECIPIENTS);
    const a = await h.notify({ ...body, idempotencyKey: 'k' });
    const b = await h.notify({ ...body, source: 'execution', idempotencyKey: 'k' });
    expect(b.json.requestId).not.toBe(a.json.requestId);
    expect(b.headers['idempotent-replayed']).toBeUndefined();
  });

  it('creates one request and one set of deliveries for 50 concurrent twins, every answer with the same requestId', async () => {
    h = await startService(RECIPIENTS);
    const service = h;
    const answers = await Promise.all(Array.from({ length: 50 }, () => service.notify({ ...body, idempotencyKey: 'burst' })));
    expect(answers.every((a) => a.statusCode === 201)).toBe(true);
    expect(new Set(answers.map((a) => a.json.requestId)).size).toBe(1);
    expect(new Set(answers.map((a) => JSON.stringify(a.json.deliveryIds))).size).toBe(1);
    expect(answers.filter((a) => a.headers['idempotent-replayed'] === undefined)).toHaveLength(1);
    const db = ((h.store as DatabaseNotificationStore).db as SqliteStoreDatabase).connection;
    expect(db.prepare('SELECT COUNT(*) AS n FROM notification_requests').get()).toEqual({ n: 1 });
    expect(db.prepare('SELECT COUNT(*) AS n FROM notification_deliveries').get()).toEqual({ n: 3 });
  });

  it('refuses bad bodies with 422 and the envelope', async () => {
    h = await startService(RECIPIENTS);
    const cases: Record<string, unknown>[] = [
      { ...body, channels: [] },
      { ...body, channels: ['FAX'] },
      { ...body, contentType: 'markdown' },
      { ...body, idempotencyKey: 'k'.repeat(201) },
      { ...body, message: '' },
      { channels: ['EMAIL'], source: 's' },
      { ...body, extra: true },
    ];
    for (const payload of cases) {
      const res = await h.notify(payload);
      expect(res.statusCode, JSON.stringify(payload).slice(0, 80)).toBe(422);
      expect(res.json).toMatchObject({ error: true, code: 'validation_error' });
    }
    expect((await h.notify({ ...body, idempotencyKey: 'k'.repeat(200) })).statusCode).toBe(201);
  });
});

describe('authentication', () => {
  it('requires Bearer or X-API-Key on /notifications when NOTIFICATION_API_KEY is set', async () => {
    h = await startService(RECIPIENTS);
    const inject = (headers: Record<string, string>, method: 'GET' | 'POST' = 'GET') =>
      h!.app.inject({ method, url: '/notifications', headers, ...(method === 'POST' ? { payload: body } : {}) });
    expect((await inject({})).statusCode).toBe(401);
    expect((await inject({ 'x-api-key': 'wrong-key-123' })).statusCode).toBe(401);
    expect((await inject({ authorization: 'Bearer wrong-key-123' })).statusCode).toBe(401);
    expect((await inject({}, 'POST')).json()).toMatchObject({ error: true, code: 'unauthorized' });
    expect((await inject({ 'x-api-key': API_KEY })).statusCode).toBe(200);
    expect((await inject({ authorization: `Bearer ${API_KEY}` })).statusCode).toBe(200);
    expect((await inject({ authorization: `Bearer ${API_KEY}` }, 'POST')).statusCode).toBe(201);
    expect((await h.app.inject({ method: 'GET', url: '/notifications/x' })).statusCode).toBe(401);
  });

  it('applies no authentication when NOTIFICATION_API_KEY is unset', async () => {
    h = await startService({ ...RECIPIENTS, NOTIFICATION_API_KEY: undefined });
    expect((await h.app.inject({ method: 'POST', url: '/notifications', payload: body })).statusCode).toBe(201);
    expect((await h.app.inject({ method: 'GET', url: '/notifications' })).statusCode).toBe(200);
  });

  it('leaves the webhook routes outside the key (the platform cannot send it)', async () => {
    h = await startService({ MESSENGER_APP_VERIFY_TOKEN: 'verify-me-please' });
    const res = await h.app.inject({ method: 'GET', url: '/webhooks/messenger_app?hub.mode=subscribe&hub.verify_token=verify-me-please&hub.challenge=42' });
    expect(res.statusCode).toBe(200);
  });
});

describe('GET /notifications and /notifications/:id', () => {
  const get = async (url: string) => {
    const res = await h!.app.inject({ method: 'GET', url, headers: { 'x-api-key': API_KEY } });
    return { statusCode: res.statusCode, json: res.json<{ items: DeliveryRecord[]; nextCursor: string | null } & Record<string, unknown>>() };
  };

  async function seed(): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await h!.notify({ message: `m${i}`, channels: ['CHAT_APP', 'SMS'], source: i % 2 === 0 ? 'strategy' : 'execution' });
      ids.push(...(res.json.deliveryIds as string[]));
      h!.clock.advance(1000);
    }
    await h!.outbox.settle();
    return ids;
  }

  it('lists newest first with a default limit of 50', async () => {
    h = await startService({ CHAT_APP_CHAT_IDS: '111', SMS_TO: '+14155550100' });
    const ids = await seed();
    const page = await get('/notifications');
    expect(page.statusCode).toBe(200);
    expect(page.json.items.map((d) => d.id)).toEqual([...ids].reverse());
    expect(page.json.nextCursor).toBeNull();
  });

  it('filters by source, channel, recipient and status, together', async () => {
    h = await startService({ CHAT_APP_CHAT_IDS: '111', SMS_TO: '+14155550100' });
    await seed();
    expect((await get('/notifications?source=strategy')).json.items).toHaveLength(6);
    expect((await get('/notifications?channel=SMS')).json.items.every((d) => d.channel === 'SMS')).toBe(true);
    expect((await get('/notifications?recipient=%2B14155550100')).json.items).toHaveLength(5);
    expect((await get('/notifications?status=sent&source=execution&channel=CHAT_APP')).json.items).toHaveLength(2);
    expect((await get('/notifications?status=failed')).json.items).toHaveLength(0);
  });

  it('pages with limit and an opaque cursor until the last page', async () => {
    h = await startService({ CHAT_APP_CHAT_IDS: '111', SMS_TO: '+14155550100' });
    const ids = await seed();
    const seen: string[] = [];
    let url = '/notifications?limit=3';
    for (let pages = 0; ; pages++) {
      const page = await get(url);
      expect(page.json.items.length).toBeLessThanOrEqual(3);
      seen.push(...page.json.items.map((d) => d.id));
      if (!page.json.nextCursor) break;
      expect(pages).toBeLessThan(4);
      url = `/notifications?limit=3&cursor=${encodeURIComponent(page.json.nextCursor)}`;
    }
    expect(seen).toEqual([...ids].reverse());
  });

  it('refuses a limit out of 1..500 and a forged cursor with 422', async () => {
    h = await startService({});
    for (const q of ['limit=0', 'limit=501', 'limit=abc', 'cursor=bm9wZQ', 'status=lost', 'channel=FAX', 'unknown=1']) {
      const res = await get(`/notifications?${q}`);
      expect(res.statusCode, q).toBe(422);
      expect(res.json).toMatchObject({ error: true, code: 'validation_error' });
    }
    expect((await get('/notifications?limit=500')).statusCode).toBe(200);
  });

  it('returns one record with every field, or 404', async () => {
    h = await startService({ CHAT_APP_CHAT_IDS: '111' });
    const res = await h.notify({ ...body, channels: ['CHAT_APP'], subject: 'Heads up' });
    await h.outbox.settle();
    const id = (res.json.deliveryIds as string[])[0] as string;
    const one = await get(`/notifications/${id}`);
    expect(one.statusCode).toBe(200);
    expect(one.json).toMatchObject({
      id,
      requestId: res.json.requestId,
      channel: 'CHAT_APP',
      recipient: '111',
      source: 'strategy',
      status: 'sent',
      attempts: 1,
      provider: 'sandbox',
      providerMessageId: `sandbox-${id}`,
      error: null,
      subject: 'Heads up',
      createdAt: '2026-01-05T12:00:00.000Z',
      updatedAt: '2026-01-05T12:00:00.000Z',
      sentAt: '2026-01-05T12:00:00.000Z',
      deliveredAt: null,
      readAt: null,
    });
    const missing = await get('/notifications/00000000-0000-4000-8000-000000000000');
    expect(missing.statusCode).toBe(404);
    expect(missing.json).toMatchObject({ error: true, code: 'not_found' });
  });
});
