import { describe, expect, it } from 'vitest';
import { PostgresLabStore } from '../src/lab/postgres-store.js';
import { labStoreContract } from './lab-store.contract.js';
import { postgresForFile } from './postgres-server.js';

const { unavailable, database } = postgresForFile();

describe.skipIf(unavailable !== undefined)(`PostgreSQL${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
  labStoreContract('PostgreSQL', {
    database: async () => {
      const url = await database();
      return (replicaId) => PostgresLabStore.open(url, replicaId);
    },
  });

  describe('PostgreSQL lab store', () => {
    it('migrates once when replicas start at the same moment', async () => {
      const url = await database();
      const stores = await Promise.all(Array.from({ length: 4 }, (_, i) => PostgresLabStore.open(url, `r${i}`)));
      expect(await stores[3]!.backtests({ limit: 1 })).toEqual({ items: [], next: null });
      await Promise.all(stores.map((s) => s.close()));
    });
  });
});
