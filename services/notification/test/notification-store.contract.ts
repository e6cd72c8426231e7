/**
 * The contract the NotificationStore keeps, run on each engine (sqlite-store.test.ts on SQLite,
 * postgres-store.process.test.ts on a real PostgreSQL server). "Replicas" are stores opened on
 * one database under different replica ids.
 */
import { randomUUID } from 'node:crypto';
import type { NotificationChannel } from '@fxdesk/schemas';
import { storesClosedAfterEach } from '@fxdesk/core/testing';
import { describe, expect, it } from 'vitest';
import type { PacingKey } from '../src/pacing.js';
import type { NewNotification, NotificationStore } from '../src/store.js';

/** Opens a store on one database as the replica named; every call is another connection to the same data. */
export type OpenStore = (replicaId: string) => Promise<NotificationStore>;

export interface NotificationStoreHarness {
  /** A fresh, empty database. */
  database(): Promise<OpenStore>;
  /** One process holds the database (SQLite, by the DATA_DIR lock): at start every claim in it is a dead process's. */
  oneProcess?: boolean;
}

const T0 = Date.UTC(2026, 0, 5, 12);
const LEASE_MS = 35_000;

/** A request for `recipients` of `channel` (one delivery each), stored at `now`. */
export function notification(fields: Partial<NewNotification> & { recipients?: string[] } = {}): NewNotification {
  const { recipients = ['111'], ...rest } = fields;
  const channel: NotificationChannel = rest.channels?.[0] ?? 'CHAT_APP';
  return {
    requestId: randomUUID(),
    source: 'strategy',
    idempotencyKey: undefined,
    message: 'EUR_USD long filled at 1.0850',
    subject: 'Fill',
    contentType: 'text',
    channels: [channel],
    payloadHash: 'h1',
    deliveries: recipients.map((recipient) => ({ id: randomUUID(), channel, recipient })),
    now: T0,
    ...rest,
  };
}

const chat: PacingKey = { key: 'chat:1', rule: { limit: 1, windowMs: 1000 } };

export function notificationStoreContract(name: string, harness: NotificationStoreHarness): void {
  describe(`notification store contract: ${name}`, () => {
    const database = storesClosedAfterEach(() => harness.database());

    async function store(replicaId = 'a'): Promise<NotificationStore> {
      return (await database())(replicaId);
    }

    /** Two replicas on one database. */
    async function replicas(): Promise<[NotificationStore, NotificationStore]> {
      const open = await database();
      return [await open('a'), await open('b')];
    }

    /** Stores one delivery and claims it on `s`, at T0. */
    async function claimedOne(s: NotificationStore, fields: Parameters<typeof notification>[0] = {}): Promise<string> {
      const n = notification(fields);
      await s.create(n);
      const [claimed] = await s.claimDue(T0, 1, T0 + LEASE_MS);
      expect(claimed?.id).toBe(n.deliveries[0]?.id);
      return claimed?.id as string;
    }

    describe('requests and idempotency', () => {
      it('stores a request and one pending delivery per recipient, due at once', async () => {
        const s = await store();
        const n = notification({ recipients: ['111', '222'] });
        expect(await s.create(n)).toEqual({ replayed: false, requestId: n.requestId, deliveryIds: n.deliveries.map((d) => d.id), samePayload: true });
        const record = await s.get(n.deliveries[1]?.id as string);
        expect(record).toMatchObject({
          requestId: n.requestId,
          channel: 'CHAT_APP',
          recipient: '222',
          source: 'strategy',
          subject: 'Fill',
          status: 'pending',
          attempts: 0,
          provider: null,
          error: null,
          createdAt: new Date(T0).toISOString(),
          nextAttemptAt: new Date(T0).toISOString(),
        });
        expect(await s.nextDueAt()).toBe(T0);
      });

      it('answers a repeated (source, idempotencyKey) with the original, storing nothing, and says whether the payload matched', async () => {
        const s = await store();
        const first = notification({ idempotencyKey: 'k1' });
        await s.create(first);
        const same = await s.create(notification({ idempotencyKey: 'k1' }));
        expect(same).toEqual({ replayed: true, requestId: first.requestId, deliveryIds: first.deliveries.map((d) => d.id), samePayload: true });
        expect(await s.create(notification({ idempotencyKey: 'k1', payloadHash: 'h2' }))).toMatchObject({ replayed: true, samePayload: false });
        expect(await s.create(notification({ idempotencyKey: 'k1', source: 'other' }))).toMatchObject({ replayed: false });
        expect(await s.countByStatus()).toEqual({ pending: 2 });
      });

      it('never lets requests without a key collide', async () => {
        const s = await store();
        await s.create(notification());
        expect(await s.create(notification())).toMatchObject({ replayed: false });
      });

      it('stores one of 50 concurrent twins spread over two replicas, and answers all 50 with its ids', async () => {
        const [a, b] = await replicas();
        const results = await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 === 0 ? a : b).create(notification({ idempotencyKey: 'twin' }))));
        expect(results.filter((r) => !r.replayed)).toHaveLength(1);
        expect(new Set(results.map((r) => JSON.stringify([r.requestId, r.deliveryIds]))).size).toBe(1);
        expect(await b.countByStatus()).toEqual({ pending: 1 });
      });
    });

    describe('claims', () => {
      it('claims the due pending deliveries, oldest first, up to the limit, with their content and one more attempt', async () => {
        const s = await store();
        const early = notification({ recipients: ['1', '2'] });
        const late = notification({ recipients: ['3'], now: T0 + 5000, message: '<b>later</b>', contentType: 'html', subject: undefined });
        await s.create(early);
        await s.create(late);
        const first = await s.claimDue(T0, 10, T0 + LEASE_MS);
        expect(first.map((d) => d.recipient)).toEqual(['1', '2']);
        expect(first[0]).toEqual({
          id: early.deliveries[0]?.id,
          requestId: early.requestId,
          channel: 'CHAT_APP',
          recipient: '1',
          attempts: 1,
          message: 'EUR_USD long filled at 1.0850',
          subject: 'Fill',
          contentType: 'text',
        });
        expect(await s.get(first[0]?.id as string)).toMatchObject({ status: 'sending', attempts: 1, nextAttemptAt: null });
        expect(await s.nextDueAt()).toBe(T0 + 5000);
        expect(await s.claimDue(T0 + 5000, 10, T0 + 5000 + LEASE_MS)).toMatchObject([
          { recipient: '3', message: '<b>later</b>', contentType: 'html', subject: null },
        ]);
        expect(await s.claimDue(T0 + 60_000, 10, T0 + 60_000 + LEASE_MS)).toEqual([]);
        expect(await s.nextDueAt()).toBeUndefined();
      });

      it('gives each of 200 deliveries to exactly one of two replicas claiming at once', async () => {
        const [a, b] = await replicas();
        await a.create(notification({ recipients: Array.from({ length: 200 }, (_, i) => String(i + 1)) }));
        const claims = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? a : b).claimDue(T0, 7, T0 + LEASE_MS)));
        const ids = claims.flat().map((d) => d.id);
        expect(ids).toHaveLength(200);
        expect(new Set(ids).size).toBe(200);
        expect(claims.filter((c, i) => i % 2 === 1 && c.length > 0).length).toBeGreaterThan(0);
        expect(await a.countByStatus()).toEqual({ sending: 200 });
      });
    });

    describe('in-doubt deliveries (a worker died mid-call)', () => {
      it('sends again, once its lease has passed, a delivery left sending (at-least-once), on any replica', async () => {
        const [dead, live] = await replicas();
        const id = await claimedOne(dead);
        expect(await live.recoverInDoubt(T0 + LEASE_MS, [], 5)).toEqual({ failed: [], resent: [] });
        expect(await live.recoverInDoubt(T0 + LEASE_MS + 1, [], 5)).toEqual({ failed: [], resent: [id] });
        expect(await live.get(id)).toMatchObject({ status: 'pending', attempts: 1, nextAttemptAt: new Date(T0 + LEASE_MS + 1).toISOString() });
        expect(await live.claimDue(T0 + LEASE_MS + 1, 10, T0 + 2 * LEASE_MS)).toMatchObject([{ id, attempts: 2 }]);
      });

      it('fails with outcome_unknown, never resends, a lapsed delivery of an at-most-once channel or one out of attempts', async () => {
        const [dead, live] = await replicas();
        const sms = await claimedOne(dead, { channels: ['SMS'], recipients: ['+14155550100'] });
        const email = await claimedOne(dead, { channels: ['EMAIL'], recipients: ['a@example.com'] });
        expect(await live.recoverInDoubt(T0 + LEASE_MS + 1, ['SMS', 'MESSENGER_APP'], 5)).toEqual({ failed: [sms], resent: [email] });
        expect(await live.get(sms)).toMatchObject({ status: 'failed', nextAttemptAt: null, error: { code: 'outcome_unknown' } });
        const spent = await claimedOne(dead, { channels: ['EMAIL'], recipients: ['b@example.com'] });
        expect(await live.recoverInDoubt(T0 + LEASE_MS + 1, ['SMS'], 1)).toEqual({ failed: [spent], resent: [] });
      });
    });

    describe('a replica that starts again (recoverInDoubt atStart)', () => {
      it('takes back at once, whatever their lease, the claims an earlier process under its name left', async () => {
        const open = await database();
        const id = await claimedOne(await open('a'));
        const again = await open('a');
        expect(await again.recoverInDoubt(T0 + 1, [], 5)).toEqual({ failed: [], resent: [] });
        expect(await again.recoverInDoubt(T0 + 1, [], 5, true)).toEqual({ failed: [], resent: [id] });
        expect(await again.claimDue(T0 + 1, 10, T0 + 1 + LEASE_MS)).toMatchObject([{ id, attempts: 2 }]);
        // Its own new claim is live: a later recovery, not at start, leaves it to its lease.
        expect(await again.recoverInDoubt(T0 + 2, [], 5)).toEqual({ failed: [], resent: [] });
      });

      it('fails at once, never resends, such a claim of an at-most-once channel', async () => {
        const open = await database();
        const sms = await claimedOne(await open('a'), { channels: ['SMS'], recipients: ['+14155550100'] });
        expect(await (await open('a')).recoverInDoubt(T0 + 1, ['SMS'], 5, true)).toEqual({ failed: [sms], resent: [] });
      });

      it(
        harness.oneProcess
          ? 'takes back every claim in the database at start, whoever’s name is on it (one process holds it)'
          : 'leaves another replica’s claims to their lease',
        async () => {
          const open = await database();
          const id = await claimedOne(await open('a'));
          expect(await (await open('b')).recoverInDoubt(T0 + 1, [], 5, true)).toEqual({ failed: [], resent: harness.oneProcess ? [id] : [] });
        },
      );
    });

    describe('outcomes', () => {
      it('records a delivery sent, with the provider, its message id and the sandbox request, and never claims it again', async () => {
        const s = await store();
        const id = await claimedOne(s);
        await s.markSent(id, { provider: 'sandbox', providerMessageId: 'sandbox-1', sandboxRequest: { method: 'POST' } }, T0 + 10);
        expect(await s.get(id)).toMatchObject({
          status: 'sent',
          provider: 'sandbox',
          providerMessageId: 'sandbox-1',
          sandboxRequest: { method: 'POST' },
          sentAt: new Date(T0 + 10).toISOString(),
          error: null,
        });
        expect(await s.recoverInDoubt(T0 + 10 * LEASE_MS, [], 5)).toEqual({ failed: [], resent: [] });
        expect(await s.claimDue(T0 + 10 * LEASE_MS, 10, T0 + 11 * LEASE_MS)).toEqual([]);
      });

      it('records a delivery the provider queued as queued, with no sent time', async () => {
        const s = await store();
        const id = await claimedOne(s, { channels: ['SMS'], recipients: ['+14155550100'] });
        await s.markSent(id, { provider: 'twilio', providerMessageId: 'SM1', queued: true }, T0 + 10);
        expect(await s.get(id)).toMatchObject({ status: 'queued', providerMessageId: 'SM1', sentAt: null });
      });

      it('keeps a status report that came before its send was recorded, and lets a send replace an unknown outcome', async () => {
        const s = await store();
        const early = await claimedOne(s, { channels: ['MESSENGER_APP'], recipients: ['14155550100'] });
        expect(await s.applyPlatformStatus('wamid.1', early, { status: 'delivered', at: T0 + 5 }, T0 + 5)).toBe('applied');
        await s.markSent(early, { provider: 'whatsapp', providerMessageId: 'wamid.1' }, T0 + 10);
        expect(await s.get(early)).toMatchObject({ status: 'delivered', providerMessageId: 'wamid.1' });

        const doubted = await claimedOne(s, { channels: ['SMS'], recipients: ['+14155550100'] });
        await s.markFailed(doubted, { code: 'outcome_unknown', message: 'timeout' }, 'twilio', T0 + 10);
        await s.markSent(doubted, { provider: 'twilio', providerMessageId: 'SM2', queued: true }, T0 + 20);
        expect(await s.get(doubted)).toMatchObject({ status: 'queued', error: null });
      });

      it('puts a delivery back, due later, with its error, and gives its attempt back on a hold', async () => {
        const s = await store();
        const id = await claimedOne(s);
        await s.markRetry(id, { code: '503', message: 'Service Unavailable', httpStatus: 503 }, 'telegram', T0 + 2000, T0 + 10);
        expect(await s.get(id)).toMatchObject({
          status: 'pending',
          attempts: 1,
          provider: 'telegram',
          error: { code: '503' },
          nextAttemptAt: new Date(T0 + 2000).toISOString(),
        });
        expect(await s.claimDue(T0 + 2000, 1, T0 + 2000 + LEASE_MS)).toMatchObject([{ id, attempts: 2 }]);
        await s.markRetry(id, { code: 'paced', message: 'wait' }, 'telegram', T0 + 3000, T0 + 2010, true);
        expect(await s.get(id)).toMatchObject({ status: 'pending', attempts: 1, error: { code: 'paced' } });
      });

      it('fails a delivery with the provider error', async () => {
        const s = await store();
        const id = await claimedOne(s);
        await s.markFailed(id, { code: '400', message: 'Bad Request: chat not found', httpStatus: 400 }, 'telegram', T0 + 10);
        expect(await s.get(id)).toMatchObject({ status: 'failed', provider: 'telegram', nextAttemptAt: null, error: { code: '400', httpStatus: 400 } });
      });

      it('lets only the replica holding a claim record its retry or failure: a worker whose lease was taken over changes nothing', async () => {
        const [slow, live] = await replicas();
        const id = await claimedOne(slow);
        await live.recoverInDoubt(T0 + LEASE_MS + 1, [], 5);
        expect(await live.claimDue(T0 + LEASE_MS + 1, 1, T0 + 2 * LEASE_MS)).toMatchObject([{ id }]);
        await slow.markRetry(id, { code: 'timeout', message: 'late' }, 'telegram', T0 + LEASE_MS + 2, T0 + LEASE_MS + 2);
        await slow.markFailed(id, { code: '400', message: 'late' }, 'telegram', T0 + LEASE_MS + 2);
        expect(await live.get(id)).toMatchObject({ status: 'sending', attempts: 2, error: null });
        await live.markRetry(id, { code: '503', message: 'again' }, 'telegram', T0 + LEASE_MS + 5, T0 + LEASE_MS + 3);
        expect(await live.get(id)).toMatchObject({ status: 'pending', error: { code: '503' } });
      });
    });

    describe('what the channels keep', () => {
      it('follows a recipient that moved, after every move, and knows nothing of one that did not', async () => {
        const [a, b] = await replicas();
        expect(await a.routeOf('CHAT_APP', '-4001')).toBeUndefined();
        await a.reroute('CHAT_APP', '-4001', '-1004001', T0);
        await a.reroute('CHAT_APP', '-1004001', '-1009999', T0);
        expect(await b.routeOf('CHAT_APP', '-4001')).toBe('-1009999');
        expect(await b.routeOf('SMS', '-4001')).toBeUndefined();
      });

      it('keeps the parts of a split message sent, in order, each once', async () => {
        const s = await store();
        const id = await claimedOne(s);
        await s.recordPart(id, { part: 1, parts: 3, address: '111', providerMessageId: '501' }, T0);
        await s.recordPart(id, { part: 0, parts: 3, address: '111', providerMessageId: '500' }, T0);
        await s.recordPart(id, { part: 0, parts: 3, address: '111', providerMessageId: '999' }, T0);
        expect(await s.partsSent(id)).toEqual([
          { part: 0, parts: 3, address: '111', providerMessageId: '500' },
          { part: 1, parts: 3, address: '111', providerMessageId: '501' },
        ]);
      });

      it('keeps the latest message of each WhatsApp user, and closes a window only on what came before', async () => {
        const s = await store();
        await s.noteInbound([
          { waId: '14155550100', at: T0 },
          { waId: '14155550100', at: T0 - 1000 },
          { waId: '14155550101', at: T0 + 5 },
        ]);
        await s.noteInbound([{ waId: '14155550101', at: T0 }]);
        expect(await s.lastInboundAt('14155550100')).toBe(T0);
        expect(await s.lastInboundAt('14155550101')).toBe(T0 + 5);
        await s.closeSession('14155550100', T0 - 1);
        await s.closeSession('14155550101', T0 + 5);
        expect(await s.lastInboundAt('14155550100')).toBe(T0);
        expect(await s.lastInboundAt('14155550101')).toBeUndefined();
      });

      it('puts a text failed with 131047 back in the queue once, giving its attempt back, and knows its wamid was replaced', async () => {
        const s = await store();
        const id = await claimedOne(s, { channels: ['MESSENGER_APP'], recipients: ['14155550100'] });
        await s.markSent(id, { provider: 'whatsapp', providerMessageId: 'wamid.text' }, T0 + 10);
        const error = { code: '131047', message: 'Re-engagement message' };
        expect(await s.isReplacedText('wamid.text')).toBe(false);
        expect(await s.requeueAsTemplate('wamid.text', id, error, T0 + 20, T0 + 30)).toBe('queued');
        expect(await s.get(id)).toMatchObject({ status: 'pending', attempts: 0, sentAt: null, error: { code: '131047' } });
        expect(await s.isReplacedText('wamid.text')).toBe(true);
        expect(await s.requeueAsTemplate('wamid.text', id, error, T0 + 20, T0 + 40)).toBe('refused');
        expect(await s.requeueAsTemplate('wamid.unknown', undefined, error, T0 + 20, T0 + 40)).toBe('refused');
      });
    });

    describe('platform status reports', () => {
      it('applies a report to the delivery of its channel by provider id, else by the delivery id echoed back', async () => {
        const s = await store();
        const id = await claimedOne(s, { channels: ['MESSENGER_APP'], recipients: ['14155550100'] });
        await s.markSent(id, { provider: 'whatsapp', providerMessageId: 'wamid.1' }, T0 + 10);
        expect(await s.applyPlatformStatus('wamid.1', undefined, { status: 'delivered', at: T0 + 20 }, T0 + 30)).toBe('applied');
        expect(await s.applyPlatformStatus('wamid.other', id, { status: 'read', at: T0 + 40 }, T0 + 50)).toBe('applied');
        expect(await s.get(id)).toMatchObject({ status: 'read', deliveredAt: new Date(T0 + 20).toISOString(), readAt: new Date(T0 + 40).toISOString() });
        expect(await s.applyPlatformStatus('wamid.1', undefined, { status: 'delivered', at: T0 + 60 }, T0 + 60)).toBe('unchanged');
        expect(await s.applyPlatformStatus('wamid.1', undefined, { status: 'delivered', at: T0 }, T0 + 60, 'SMS')).toBe('unknown');
        expect(await s.applyPlatformStatus('wamid.none', undefined, { status: 'read', at: T0 }, T0 + 60)).toBe('unknown');
      });

      it('ends at the furthest status when reports race on two replicas', async () => {
        const [a, b] = await replicas();
        const ids: string[] = [];
        for (let i = 0; i < 10; i++) {
          const id = await claimedOne(a, { channels: ['MESSENGER_APP'], recipients: [`1415555010${i}`] });
          await a.markSent(id, { provider: 'whatsapp', providerMessageId: `wamid.${i}` }, T0 + 10);
          ids.push(id);
        }
        await Promise.all(
          ids.flatMap((_, i) => [
            a.applyPlatformStatus(`wamid.${i}`, undefined, { status: 'read', at: T0 + 40 }, T0 + 50),
            b.applyPlatformStatus(`wamid.${i}`, undefined, { status: 'delivered', at: T0 + 30 }, T0 + 50),
            b.applyPlatformStatus(`wamid.${i}`, undefined, { status: 'sent', at: T0 + 20 }, T0 + 50),
          ]),
        );
        for (const id of ids) {
          expect(await b.get(id)).toMatchObject({ status: 'read', deliveredAt: new Date(T0 + 30).toISOString(), readAt: new Date(T0 + 40).toISOString() });
        }
      });
    });

    describe('reads', () => {
      it('lists newest first, filtered, a page at a time, and knows no record it does not have', async () => {
        const s = await store();
        for (let i = 0; i < 5; i++) await s.create(notification({ recipients: ['111', '222'], now: T0 + i * 1000, source: i % 2 === 0 ? 'even' : 'odd' }));
        const first = await s.list({ recipient: '222' }, 2, undefined);
        expect(first.items.map((d) => [d.recipient, d.createdAt])).toEqual([
          ['222', new Date(T0 + 4000).toISOString()],
          ['222', new Date(T0 + 3000).toISOString()],
        ]);
        const second = await s.list({ recipient: '222' }, 2, first.next);
        expect(second.items.map((d) => d.createdAt)).toEqual([new Date(T0 + 2000).toISOString(), new Date(T0 + 1000).toISOString()]);
        const last = await s.list({ recipient: '222' }, 2, second.next);
        expect(last.items.map((d) => d.createdAt)).toEqual([new Date(T0).toISOString()]);
        expect(last.next).toBeUndefined();
        expect((await s.list({ source: 'odd', status: 'pending', channel: 'CHAT_APP' }, 50, undefined)).items).toHaveLength(4);
        expect((await s.list({ channel: 'SMS' }, 50, undefined)).items).toEqual([]);
        const all = await s.list({}, 50, undefined);
        expect(all.items.map((d) => d.recipient).slice(0, 2)).toEqual(['222', '111']);
        expect(await s.get(randomUUID())).toBeUndefined();
      });

      it('counts the deliveries by status', async () => {
        const s = await store();
        await s.create(notification({ recipients: ['1', '2', '3'] }));
        const [one] = await s.claimDue(T0, 1, T0 + LEASE_MS);
        await s.markSent(one?.id as string, { provider: 'telegram', providerMessageId: '1' }, T0);
        await s.claimDue(T0, 1, T0 + LEASE_MS);
        expect(await s.countByStatus()).toEqual({ sent: 1, sending: 1, pending: 1 });
      });

      it('is healthy while the database answers', async () => {
        expect(await (await store()).health()).toMatchObject({ ok: true });
      });
    });

    describe('pacing', () => {
      it('keeps a pacer’s calendar from one decision to the next and runs concurrent decisions one at a time', async () => {
        const s = await store();
        const times = await Promise.all(
          Array.from({ length: 20 }, (_, i) => s.pacing.decide('telegram', ({ calendar }) => calendar.reserve(`m${i}`, [chat], T0))),
        );
        expect([...times].sort((x, y) => x - y)).toEqual(Array.from({ length: 20 }, (_, i) => T0 + i * 1000));
        expect(await s.pacing.decide('telegram', ({ calendar }) => calendar.reserve('m20', [chat], T0))).toBe(T0 + 20_000);
        expect(await s.pacing.decide('whatsapp', ({ calendar }) => calendar.reserve('m0', [chat], T0))).toBe(T0);
      });

      it('keeps holds and when the pacer last pruned', async () => {
        const s = await store();
        await s.pacing.decide('whatsapp', (state) => {
          state.holds.set('14155550100', { until: T0 + 4000, strikes: 2 });
          state.prunedAt = T0;
        });
        expect(await s.pacing.decide('whatsapp', (state) => [state.holds.get('14155550100'), state.prunedAt])).toEqual([{ until: T0 + 4000, strikes: 2 }, T0]);
      });
    });
  });
}
