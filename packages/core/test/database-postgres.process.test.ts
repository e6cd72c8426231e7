import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { PostgresStoreDatabase } from '../src/db/postgres-db.js';
import type { Schema } from '../src/db/port.js';
import { postgresUnavailable, startPostgres, type RunningPostgres } from '../testing/engines.js';
import { databaseContract } from './database.contract.js';

const unavailable = postgresUnavailable();

describe.skipIf(unavailable !== undefined)(`the database port on PostgreSQL${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
  let server: RunningPostgres;
  const shared = new Map<string, string>();
  beforeAll(async () => {
    server = await startPostgres();
  }, 120_000);
  afterAll(() => server?.stop());

  databaseContract('PostgreSQL', async (schema, name) => {
    let url = name === undefined ? undefined : shared.get(name);
    if (url === undefined) {
      url = await server.createDatabase();
      if (name !== undefined) shared.set(name, url);
    }
    return PostgresStoreDatabase.open(url, schema);
  });

  const SCHEMA: Schema = {
    name: 'things',
    migrations: ['CREATE TABLE things (id INTEGER PRIMARY KEY)', 'ALTER TABLE things ADD COLUMN name TEXT', "INSERT INTO things VALUES (1, 'once')"],
  };

  it('applies each migration once when several replicas open the database at the same moment', async () => {
    const url = await server.createDatabase();
    const dbs = await Promise.all(Array.from({ length: 6 }, () => PostgresStoreDatabase.open(url, SCHEMA)));
    expect(await dbs[0]!.query('SELECT id, name FROM things')).toEqual([{ id: 1, name: 'once' }]);
    expect(await dbs[0]!.query('SELECT store, version FROM fxdesk_migrations')).toEqual([{ store: 'things', version: 3 }]);
    await Promise.all(dbs.map((db) => db.close()));
  });

  async function earlierDatabase(version: number): Promise<string> {
    const url = await server.createDatabase();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query('CREATE TABLE fxdesk_schema (store TEXT PRIMARY KEY, version INTEGER NOT NULL)');
    await client.query("INSERT INTO fxdesk_schema VALUES ('old_things', $1)", [version]);
    await client.query("CREATE TABLE things (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO things VALUES (7, 'kept')");
    await client.end();
    return url;
  }

  it('takes a database of the stores of before at the step its old version amounts to, and keeps its rows', async () => {
    const url = await earlierDatabase(1);
    const db = await PostgresStoreDatabase.open(url, { ...SCHEMA, postgresBefore: { store: 'old_things', versions: { 1: 2 } } });
    expect(await db.query('SELECT id, name FROM things ORDER BY id')).toEqual([
      { id: 1, name: 'once' },
      { id: 7, name: 'kept' },
    ]);
    // A build of before now finds its schema newer than it knows, and refuses it.
    expect(await db.one("SELECT version FROM fxdesk_schema WHERE store = 'old_things'")).toEqual({ version: 2147483647 });
    await db.close();
  });

  it('refuses a database of before at a version it cannot place', async () => {
    const url = await earlierDatabase(5);
    await expect(PostgresStoreDatabase.open(url, { ...SCHEMA, postgresBefore: { store: 'old_things', versions: { 1: 2 } } })).rejects.toThrow(
      /version 5 of old_things is one this build cannot upgrade/,
    );
  });
});
