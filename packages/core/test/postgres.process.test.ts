import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migratePostgres, openPostgres, type PostgresPool } from '../src/postgres.js';
import { postgresUnavailable, startPostgres, type RunningPostgres } from '../testing/engines.js';

const unavailable = postgresUnavailable();

describe.skipIf(unavailable !== undefined)(`PostgreSQL migrations${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
  let server: RunningPostgres;
  beforeAll(async () => {
    server = await startPostgres();
  }, 120_000);
  afterAll(() => server?.stop());

  const MIGRATIONS = [
    'CREATE TABLE things (id INTEGER PRIMARY KEY)',
    'ALTER TABLE things ADD COLUMN name TEXT',
    "INSERT INTO things (id, name) VALUES (1, 'once')",
  ];

  async function count(pool: PostgresPool): Promise<number> {
    const { rows } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM things');
    return rows[0]!.n;
  }

  it('applies each migration once when several replicas open the database at the same moment', async () => {
    const url = await server.createDatabase();
    const pools = await Promise.all(Array.from({ length: 6 }, () => openPostgres({ url, store: 'test', migrations: MIGRATIONS })));
    expect(await count(pools[0]!)).toBe(1);
    const { rows } = await pools[0]!.query('SELECT store, version FROM fxdesk_schema');
    expect(rows).toEqual([{ store: 'test', version: 3 }]);
    await Promise.all(pools.map((p) => p.end()));
  });

  it('runs only the migrations past the recorded version, and counts each store apart', async () => {
    const url = await server.createDatabase();
    const first = await openPostgres({ url, store: 'test', migrations: MIGRATIONS.slice(0, 2) });
    await first.query("INSERT INTO things (id, name) VALUES (2, 'before')");
    await migratePostgres(first, 'test', MIGRATIONS);
    expect(await count(first)).toBe(2);
    await migratePostgres(first, 'other', ['CREATE TABLE others (id INTEGER)']);
    const { rows } = await first.query('SELECT store, version FROM fxdesk_schema ORDER BY store');
    expect(rows).toEqual([
      { store: 'other', version: 1 },
      { store: 'test', version: 3 },
    ]);
    await first.end();
  });

  it('leaves the schema as it was when a migration fails, and refuses a schema newer than the build', async () => {
    const url = await server.createDatabase();
    await expect(openPostgres({ url, store: 'test', migrations: [MIGRATIONS[0]!, 'ALTER TABLE nowhere ADD COLUMN x TEXT'] })).rejects.toThrow(/nowhere/);
    const pool = await openPostgres({ url, store: 'test', migrations: MIGRATIONS });
    expect(await count(pool)).toBe(1);
    await expect(migratePostgres(pool, 'test', MIGRATIONS.slice(0, 2))).rejects.toThrow(/newer than this build knows \(2\)/);
    await pool.end();
  });

  it('fails a statement that runs past the timeout, but not a migration', async () => {
    const url = await server.createDatabase();
    const pool = await openPostgres({ url, store: 'test', migrations: ['SELECT pg_sleep(0.5)'], timeoutMs: 200 });
    await expect(pool.query('SELECT pg_sleep(1)')).rejects.toThrow(/statement timeout/);
    expect((await pool.query<{ ok: number }>('SELECT 1 AS ok')).rows).toEqual([{ ok: 1 }]);
    await pool.end();
  });
});
