import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compileNamed } from '../src/db/postgres-db.js';
import { SqliteStoreDatabase } from '../src/db/sqlite-db.js';
import { databaseContract } from './database.contract.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fxdesk-db-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
let n = 0;

databaseContract('SQLite', async (schema, shared) => SqliteStoreDatabase.open(path.join(dir, `${shared ?? `db-${n++}`}.db`), schema));

describe('the SQLite database', () => {
  it('group-commits the writes and transactions of one turn', async () => {
    const db = SqliteStoreDatabase.open(':memory:', { name: 't', migrations: ['CREATE TABLE t (id TEXT PRIMARY KEY)'] });
    await Promise.all([
      db.run("INSERT INTO t VALUES ('a')"),
      db.transaction(async (tx) => {
        await tx.run("INSERT INTO t VALUES ('b')");
        await tx.run("INSERT INTO t VALUES ('c')");
      }),
      db.insertMany('t', ['id'], [{ id: 'd' }, { id: 'e' }]),
    ]);
    expect(db.commitStats).toMatchObject({ commits: 1, operations: 3 });
    expect(await db.query('SELECT id FROM t ORDER BY id')).toHaveLength(5);
    await db.close();
  });

  it('refuses a transaction call after the transaction ended', async () => {
    const db = SqliteStoreDatabase.open(':memory:', { name: 't', migrations: ['CREATE TABLE t (id TEXT PRIMARY KEY)'] });
    const leaked = await db.transaction((tx) => Promise.resolve(tx));
    await expect(leaked.run("INSERT INTO t VALUES ('late')")).rejects.toThrow(/ended/);
    await db.close();
  });
});

describe('named parameters for PostgreSQL', () => {
  it('numbers each name once, in order of first use', () => {
    expect(compileNamed('SELECT @b, @a, @b')).toEqual({ text: 'SELECT $1, $2, $1', names: ['b', 'a'] });
  });

  it('leaves quoted text, identifiers and comments alone', () => {
    expect(compileNamed(`SELECT '@x', "@y", @z -- @w\n, @v`)).toEqual({ text: `SELECT '@x', "@y", $1 -- @w\n, $2`, names: ['z', 'v'] });
  });
});
