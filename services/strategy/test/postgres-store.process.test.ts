import { describe, expect, it } from 'vitest';
import { PostgresStrategyStore } from '../src/postgres-store.js';
import { postgresForFile } from './postgres-server.js';
import { signalFixture } from './signal-fixture.js';
import { strategyStoreContract } from './strategy-store.contract.js';

const { unavailable, database } = postgresForFile();

describe.skipIf(unavailable !== undefined)(`PostgreSQL${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
  strategyStoreContract('PostgreSQL', {
    database: async () => {
      const url = await database();
      return (options) => PostgresStrategyStore.open(url, options);
    },
  });

  describe('PostgreSQL strategy store', () => {
    it('migrates once when replicas start at the same moment', async () => {
      const url = await database();
      const stores = await Promise.all(Array.from({ length: 4 }, () => PostgresStrategyStore.open(url)));
      const signal = signalFixture();
      expect(await stores[3]!.insert(signal)).toBe(true);
      expect(await stores[0]!.find(signal.signal_id)).toEqual(signal);
      await Promise.all(stores.map((s) => s.close()));
    });
  });
});
