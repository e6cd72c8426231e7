import fs from 'node:fs';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { openStrategyStores, STRATEGY_SCHEMA } from '../src/store/index.js';
import { postgresForFile } from './postgres-server.js';
import { signalFixture } from './signal-fixture.js';
import { expectToGoOn, POSTGRES_BEFORE, readBefore, readEverything } from './strategy-migration.fixture.js';
import { strategyStoreContract } from './strategy-store.contract.js';

const { unavailable, database } = postgresForFile();

/**
 * A database as the PostgreSQL store of before the merge left it (its schema counted as
 * `strategy` version 3 in fxdesk_schema): with its rows, or its schema alone (the event counter
 * at 0, as that store's migration left it).
 */
async function databaseOfBefore({ rows }: { rows: boolean }): Promise<string> {
  const url = await database();
  const dump = fs.readFileSync(POSTGRES_BEFORE, 'utf8');
  const sql = rows
    ? dump
    : dump
        .replace(/^INSERT INTO public\.strategy_event_seq VALUES .*$/m, 'INSERT INTO public.strategy_event_seq VALUES (1, 0);')
        .replace(/^(INSERT INTO public\.strategy_(?!event_seq)|SELECT pg_catalog\.setval).*$/gm, '');
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
  strategyStoreContract('PostgreSQL', {
    database: async () => {
      const url = await database();
      return (options) => openStrategyStores({ databaseUrl: url, ...options });
    },
  });

  // Every query of the stores on the tables the store of before made (its BOOLEAN run flags, its identity columns).
  strategyStoreContract('PostgreSQL, a schema of before the merge', {
    database: async () => {
      const url = await databaseOfBefore({ rows: false });
      return (options) => openStrategyStores({ databaseUrl: url, ...options });
    },
  });

  describe('PostgreSQL strategy store', () => {
    it('migrates once when replicas start at the same moment', async () => {
      const url = await database();
      const stores = await Promise.all(Array.from({ length: 4 }, () => openStrategyStores({ databaseUrl: url })));
      const signal = signalFixture();
      expect(await stores[3]!.signals.insert(signal)).toBe(true);
      expect(await stores[0]!.signals.find(signal.signal_id)).toEqual(signal);
      await Promise.all(stores.map((s) => s.close()));
    });

    it('reads every signal, run, paper trade, session, event and downstream state of a database written before the merge as the store of before did', async () => {
      const stores = await openStrategyStores({ databaseUrl: await databaseOfBefore({ rows: true }) });
      expect(await readEverything(stores)).toEqual(readBefore());
      await stores.close();
    });

    it('goes on from the upgraded database where its records left off', async () => {
      const url = await databaseOfBefore({ rows: true });
      const stores = await openStrategyStores({ databaseUrl: url });
      await expectToGoOn(stores);
      await stores.close();
      // Counted in fxdesk_migrations now; the old count is raised past any build of before, which refuses the schema.
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      const counts = await client.query<{ store: string; version: number }>(
        "SELECT 'migrations' AS store, version FROM fxdesk_migrations WHERE store = 'strategy' UNION ALL SELECT 'schema', version FROM fxdesk_schema WHERE store = 'strategy'",
      );
      await client.end();
      expect(counts.rows).toEqual([
        { store: 'migrations', version: STRATEGY_SCHEMA.migrations.length },
        { store: 'schema', version: 2147483647 },
      ]);
    });

    it('makes the same tables, keys and indexes in a new database as in one it upgrades', async () => {
      const schemaOf = async (url: string) => {
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        try {
          const { rows } = await client.query<{ name: string }>(
            `SELECT indexdef AS name FROM pg_indexes WHERE tablename LIKE 'strategy\\_%'
             UNION ALL SELECT table_name || '.' || column_name FROM information_schema.columns WHERE table_name LIKE 'strategy\\_%'
             ORDER BY name`,
          );
          return rows.map((row) => row.name);
        } finally {
          await client.end();
        }
      };
      const [fresh, upgraded] = [await database(), await databaseOfBefore({ rows: false })];
      await Promise.all([fresh, upgraded].map(async (url) => (await openStrategyStores({ databaseUrl: url })).close()));
      const made = await schemaOf(fresh);
      expect(made).toContain('strategy_signals.seq');
      expect(made).toContainEqual(expect.stringMatching(/^CREATE INDEX strategy_signals_unfinished ON public\.strategy_signals USING btree \(seq\) WHERE/));
      expect(await schemaOf(upgraded)).toEqual(made);
    });
  });
});
