/**
 * The contract the SnapshotStore keeps on either engine (snapshots.test.ts on SQLite,
 * postgres-store.process.test.ts on a real PostgreSQL server).
 */
import type { AccountDetails, AccountSnapshotKind } from '@fxdesk/schemas';
import { afterEach, describe, expect, it } from 'vitest';
import type { SnapshotStore } from '../src/store.js';
import { SUMMARY } from './helpers.js';

/** Opens a store on one database keeping `retention` snapshots; every call is another replica on the same data. */
export type OpenStore = (retention?: number) => Promise<SnapshotStore>;

export interface SnapshotStoreHarness {
  /** A fresh, empty database. */
  database(): Promise<OpenStore>;
}

const TAKEN_AT = '2026-01-05T12:00:00.000Z';

const DETAILS: AccountDetails = {
  ...SUMMARY,
  positions: [],
  trades: [
    {
      id: '6',
      instrument: 'EUR_USD',
      currentUnits: '-1000',
      initialUnits: '-1000',
      price: '1.08512',
      openTime: '2026-01-05T11:00:00.000Z',
      unrealizedPL: '0.0300',
      stopLoss: null,
      takeProfit: '1.08000',
    },
  ],
  orders: [],
};

export function snapshotStoreContract(name: string, harness: SnapshotStoreHarness): void {
  describe(`snapshot store contract: ${name}`, () => {
    const opened: SnapshotStore[] = [];
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((store) => store.close()));
    });

    async function database(): Promise<OpenStore> {
      const open = await harness.database();
      return async (retention) => {
        const store = await open(retention);
        opened.push(store);
        return store;
      };
    }

    async function store(retention?: number): Promise<SnapshotStore> {
      return (await database())(retention);
    }

    /** Adds `count` summaries one after the other and gives their ids. */
    async function addSummaries(s: SnapshotStore, count: number): Promise<number[]> {
      const ids: number[] = [];
      for (let i = 0; i < count; i++) ids.push((await s.add('summary', 'stub', SUMMARY, TAKEN_AT)).id);
      return ids;
    }

    it('gives back a stored snapshot exactly as it was read, under the id the add answered', async () => {
      const s = await store();
      const added = await s.add('details', 'oanda', DETAILS, TAKEN_AT);
      expect(added).toEqual({
        id: expect.any(Number),
        kind: 'details',
        takenAt: TAKEN_AT,
        broker: 'oanda',
        accountId: DETAILS.id,
        lastTransactionId: DETAILS.lastTransactionId,
        asOf: DETAILS.asOf,
        account: DETAILS,
      });
      expect(await s.recent(10)).toEqual([added]);
    });

    it('numbers snapshots 1, 2, 3… and lists them newest first, as many as asked', async () => {
      const s = await store();
      expect(await addSummaries(s, 5)).toEqual([1, 2, 3, 4, 5]);
      expect((await s.recent(3)).map((snapshot) => snapshot.id)).toEqual([5, 4, 3]);
      expect(await s.recent(10)).toHaveLength(5);
    });

    it('narrows the list to one kind', async () => {
      const s = await store();
      const kinds: AccountSnapshotKind[] = ['summary', 'details', 'summary', 'details'];
      for (const kind of kinds) await s.add(kind, 'stub', kind === 'details' ? DETAILS : SUMMARY, TAKEN_AT);
      expect((await s.recent(10, 'details')).map((snapshot) => [snapshot.id, snapshot.kind])).toEqual([
        [4, 'details'],
        [2, 'details'],
      ]);
      expect((await s.recent(1, 'summary')).map((snapshot) => snapshot.id)).toEqual([3]);
    });

    it('keeps only the newest `retention` snapshots', async () => {
      const s = await store(3);
      const ids = await addSummaries(s, 5);
      expect((await s.recent(10)).map((snapshot) => snapshot.id)).toEqual(ids.slice(2).reverse());
    });

    it('keeps every snapshot with a retention of 0', async () => {
      const s = await store(0);
      await addSummaries(s, 20);
      expect(await s.recent(500)).toHaveLength(20);
    });

    it('keeps exactly the newest `retention` of 100 snapshots added at once by two replicas, numbered without gap or repeat', async () => {
      const open = await database();
      const replicas = [await open(10), await open(10)];
      const added = await Promise.all(Array.from({ length: 100 }, (_, i) => replicas[i % 2]!.add('summary', `replica-${i % 2}`, SUMMARY, TAKEN_AT)));
      const ids = added.map((snapshot) => snapshot.id).sort((a, b) => a - b);
      expect(ids).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
      for (const replica of replicas) expect((await replica.recent(500)).map((snapshot) => snapshot.id)).toEqual(ids.slice(-10).reverse());
    });

    it('continues after the newest id when reopened, never reusing a pruned one', async () => {
      const open = await database();
      const before = await open(2);
      await addSummaries(before, 5);
      await before.close();
      const after = await open(2);
      expect(await addSummaries(after, 1)).toEqual([6]);
      expect((await after.recent(10)).map((snapshot) => snapshot.id)).toEqual([6, 5]);
    });

    it('prunes to a lowered retention at the next add after a restart', async () => {
      const open = await database();
      await addSummaries(await open(0), 10);
      const lowered = await open(4);
      await addSummaries(lowered, 1);
      expect((await lowered.recent(500)).map((snapshot) => snapshot.id)).toEqual([11, 10, 9, 8]);
    });

    it('takes no id for an add the database refuses, so the retention still counts whole snapshots', async () => {
      const s = await store(3);
      await addSummaries(s, 2);
      await expect(s.add('bogus' as AccountSnapshotKind, 'stub', SUMMARY, TAKEN_AT)).rejects.toThrow();
      expect(await addSummaries(s, 2)).toEqual([3, 4]);
      expect((await s.recent(10)).map((snapshot) => snapshot.id)).toEqual([4, 3, 2]);
    });

    it('answers its health check', async () => {
      expect(await (await store()).health()).toEqual({ ok: true, detail: name });
    });
  });
}
