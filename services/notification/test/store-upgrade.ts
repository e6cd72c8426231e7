/**
 * A database of the per-engine stores of before (commit e53e363), upgraded by the one store of
 * now: every row they wrote reads back through the store's methods as they read it then.
 *
 * The fixtures were made with e53e363's own stores, the same calls on each engine (three requests,
 * seven deliveries: sent with a sandbox request and two parts, delivered then read, put back for a
 * retry, failed, held for pacing, left sending under replica `old`, requeued as the template; a
 * moved chat, two WhatsApp windows, a Telegram turn on PostgreSQL): `notification-e53e363.db` is
 * the SQLite file, `notification-e53e363.postgres.sql` the PostgreSQL schema and rows, and
 * `notification-e53e363.expected.json` what that build's stores answered (both the same).
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import type { NotificationStore } from '../src/store.js';

export const FIXTURES = path.join(import.meta.dirname, 'fixtures');
/** The replica that wrote the fixtures (and left one delivery `sending`). */
export const WRITER = 'old';

const T0 = Date.UTC(2026, 0, 5, 12);
const id = (n: number) => `00000000-0000-4000-8000-00000000000${n}`;

const before = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'notification-e53e363.expected.json'), 'utf8')) as {
  records: unknown[];
  pages: unknown[];
  bySource: unknown;
  byStatus: unknown;
  parts: unknown;
  route: string;
  inbound: number[];
  replaced: boolean[];
  counts: Record<string, number>;
  nextDue: number;
};

/** Every row of the fixture, read through `store` as the build of before read it. */
export async function expectEveryRowOfBefore(store: NotificationStore): Promise<void> {
  expect(await Promise.all(before.records.map((_, i) => store.get(id(i + 1))))).toEqual(before.records);
  const pages = [];
  let cursor;
  do {
    const page = await store.list({}, 3, cursor);
    pages.push(page);
    cursor = page.next;
  } while (cursor);
  expect(pages).toEqual(before.pages);
  expect(await store.list({ source: 'execution' }, 10, undefined)).toEqual(before.bySource);
  expect(await store.list({ status: 'pending' }, 10, undefined)).toEqual(before.byStatus);
  expect(await store.partsSent(id(1))).toEqual(before.parts);
  expect(await store.routeOf('CHAT_APP', '-4001')).toBe(before.route);
  expect([await store.lastInboundAt('14155550100'), await store.lastInboundAt('14155550103')]).toEqual(before.inbound);
  expect([await store.isReplacedText('wamid.7'), await store.isReplacedText('wamid.2')]).toEqual(before.replaced);
  expect(await store.countByStatus()).toEqual(before.counts);
  expect(await store.nextDueAt()).toBe(before.nextDue);
}

/** The upgraded store goes on from the rows of before: their idempotency keys, their queue, the claim left sending. */
export async function expectToCarryOn(store: NotificationStore): Promise<void> {
  const replay = await store.create({
    requestId: '10000000-0000-4000-8000-000000000009',
    source: 'strategy',
    idempotencyKey: 'fill-1',
    message: 'EUR_USD long filled at 1.0850',
    subject: 'Fill',
    contentType: 'text',
    channels: ['CHAT_APP', 'MESSENGER_APP'],
    payloadHash: 'hash-1',
    deliveries: [{ id: id(9), channel: 'CHAT_APP', recipient: '111' }],
    now: T0 + 10_000,
  });
  expect(replay).toEqual({ replayed: true, requestId: '10000000-0000-4000-8000-000000000001', deliveryIds: [id(1), id(2)], samePayload: true });
  // Replica `old` starts again: its claim left sending comes back at once.
  expect(await store.recoverInDoubt(T0 + 10_000, [], 5, true)).toEqual({ failed: [], resent: [id(6)] });
  const claimed = await store.claimDue(T0 + 60_000, 10, T0 + 95_000);
  expect(claimed.map((d) => [d.id, d.message, d.contentType])).toEqual([
    [id(3), '<p>Order <b>rejected</b></p>', 'html'],
    [id(5), '<p>Order <b>rejected</b></p>', 'html'],
    [id(6), '<p>Order <b>rejected</b></p>', 'html'],
    [id(7), 'GBP_USD short opened', 'text'],
  ]);
  await store.markSent(id(7), { provider: 'whatsapp', providerMessageId: 'wamid.8' }, T0 + 61_000);
  expect(await store.applyPlatformStatus('wamid.8', undefined, { status: 'delivered', at: T0 + 62_000 }, T0 + 62_000)).toBe('applied');
  expect(await store.get(id(7))).toMatchObject({ status: 'delivered', attempts: 1, providerMessageId: 'wamid.8' });
}
