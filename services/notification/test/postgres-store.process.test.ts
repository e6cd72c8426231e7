import { postgresUnavailable, startPostgres, type RunningPostgres } from '@fxdesk/core/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openNotificationStore } from '../src/database-store.js';
import { notification, notificationStoreContract } from './notification-store.contract.js';

const unavailable = postgresUnavailable();
let server: RunningPostgres;

// One server for the file; each test gets its own database.
beforeAll(async () => {
  if (!unavailable) server = await startPostgres();
}, 300_000);
afterAll(() => server?.stop());

const T0 = Date.UTC(2026, 0, 5, 12);
const chat = { key: 'chat:1', rule: { limit: 1, windowMs: 1000 } };
const open = (url: string, replicaId: string) => openNotificationStore({ databaseUrl: url, file: ':memory:', replicaId });

describe.skipIf(unavailable !== undefined)(`PostgreSQL${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
  notificationStoreContract('PostgreSQL', {
    database: async () => {
      const url = await server.createDatabase();
      return (replicaId) => open(url, replicaId);
    },
  });

  describe('PostgreSQL notification store', () => {
    it('migrates once when replicas start at the same moment', async () => {
      const url = await server.createDatabase();
      const stores = await Promise.all(Array.from({ length: 4 }, (_, i) => open(url, `r${i}`)));
      const n = notification({ idempotencyKey: 'k' });
      expect(await stores[3]!.create(n)).toMatchObject({ replayed: false });
      expect(await stores[0]!.create(notification({ idempotencyKey: 'k' }))).toMatchObject({ replayed: true, requestId: n.requestId });
      await Promise.all(stores.map((s) => s.close()));
    });

    it('records the replica that claimed each delivery and its lease', async () => {
      const url = await server.createDatabase();
      const store = await open(url, 'replica-7');
      await store.create(notification());
      await store.claimDue(T0, 10, T0 + 35_000);
      await store.close();
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      const { rows } = await client.query('SELECT owner, lease_until::text AS lease FROM notification_deliveries');
      await client.end();
      expect(rows).toEqual([{ owner: 'replica-7', lease: String(T0 + 35_000) }]);
    });

    it('skips, rather than waits for, the due deliveries another transaction holds', async () => {
      const url = await server.createDatabase();
      const store = await open(url, 'a');
      const n = notification({ recipients: ['1', '2', '3'] });
      await store.create(n);
      const other = new pg.Client({ connectionString: url });
      await other.connect();
      await other.query('BEGIN');
      await other.query('SELECT 1 FROM notification_deliveries WHERE id = $1 FOR UPDATE', [n.deliveries[0]?.id]);
      const claimed = await store.claimDue(T0, 10, T0 + 35_000);
      expect(claimed.map((d) => d.recipient)).toEqual(['2', '3']);
      await other.query('ROLLBACK');
      expect((await store.claimDue(T0, 10, T0 + 35_000)).map((d) => d.recipient)).toEqual(['1']);
      await other.end();
      await store.close();
    });

    it('shares the pacing calendars between replicas: a turn one reserves, the other sees taken', async () => {
      const url = await server.createDatabase();
      const [a, b] = await Promise.all([open(url, 'a'), open(url, 'b')]);
      const times = await Promise.all(
        Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? a : b).pacing.decide('telegram', ({ calendar }) => calendar.reserve(`m${i}`, [chat], T0))),
      );
      expect([...times].sort((x, y) => x - y)).toEqual(Array.from({ length: 10 }, (_, i) => T0 + i * 1000));
      // The latest turn is held for its message, through whichever replica reserved it: either one hands it over at its time.
      const last = times.indexOf(Math.max(...times));
      expect(await (last % 2 === 0 ? b : a).pacing.decide('telegram', ({ calendar }) => calendar.reserve(`m${last}`, [chat], T0 + 9000))).toBe(T0 + 9000);
      expect(await a.pacing.decide('telegram', ({ calendar }) => calendar.reserve('m10', [chat], T0))).toBe(T0 + 10_000);
      await Promise.all([a.close(), b.close()]);
    });
  });
});
