import fs from 'node:fs';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { SqlLabStore } from '../src/lab/sql-store.js';
import { expectToGoOn, POSTGRES_BEFORE, readBefore, readEverything } from './lab-migration.fixture.js';
import { labStoreContract } from './lab-store.contract.js';
import { postgresForFile } from './postgres-server.js';

const { unavailable, database } = postgresForFile();

/**
 * A database as the PostgreSQL store of before the merge left it (its schema counted as
 * `strategy_lab` version 1 in fxdesk_schema): with its rows, or its schema alone.
 */
async function databaseOfBefore({ rows }: { rows: boolean }): Promise<string> {
  const url = await database();
  const dump = fs.readFileSync(POSTGRES_BEFORE, 'utf8');
  const sql = rows ? dump : dump.replace(/^INSERT INTO public\.strategy_lab_.*$/gm, '');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
  return url;
}

describe.skipIf(unavailable !== undefined)(`PostgreSQL${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
  labStoreContract('PostgreSQL', {
    database: async () => {
      const url = await database();
      return (replicaId) => SqlLabStore.open({ databaseUrl: url, replicaId });
    },
  });

  // Every query of the store on the tables the store of before made (not the migrations' own).
  labStoreContract('PostgreSQL, a schema of before the merge', {
    database: async () => {
      const url = await databaseOfBefore({ rows: false });
      return (replicaId) => SqlLabStore.open({ databaseUrl: url, replicaId });
    },
  });

  describe('PostgreSQL lab store', () => {
    it('migrates once when replicas start at the same moment', async () => {
      const url = await database();
      const stores = await Promise.all(Array.from({ length: 4 }, (_, i) => SqlLabStore.open({ databaseUrl: url, replicaId: `r${i}` })));
      expect(await stores[3]!.backtests({ limit: 1 })).toEqual({ items: [], next: null });
      await Promise.all(stores.map((s) => s.close()));
    });

    it('reads every job, trade and sweep of a database written before the merge as the store of before did', async () => {
      const store = await SqlLabStore.open({ databaseUrl: await databaseOfBefore({ rows: true }), replicaId: 'replica-a' });
      expect(await readEverything(store)).toEqual(readBefore().reads);
      await store.close();
    });

    it('goes on from the upgraded database: its unfinished jobs fail at the start, a new one is numbered past the deleted one', async () => {
      const url = await databaseOfBefore({ rows: true });
      const store = await SqlLabStore.open({ databaseUrl: url, replicaId: 'replica-a' });
      await expectToGoOn(store);
      await store.close();
      // Counted in fxdesk_migrations now; the old count is raised past any build of before, which refuses the schema.
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      const counts = await client.query<{ store: string; version: number }>(
        "SELECT 'migrations' AS store, version FROM fxdesk_migrations WHERE store = 'strategy_lab' UNION ALL SELECT 'schema', version FROM fxdesk_schema WHERE store = 'strategy_lab'",
      );
      await client.end();
      expect(counts.rows).toEqual([
        { store: 'migrations', version: 4 },
        { store: 'schema', version: 2147483647 },
      ]);
    });
  });
});
