import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, expect, it } from 'vitest';
import { SqlLabStore } from '../src/lab/sql-store.js';
import { tempDir } from './helpers.js';
import { expectToGoOn, readBefore, readEverything, SQLITE_BEFORE } from './lab-migration.fixture.js';

const temp = tempDir();
afterAll(() => temp.remove());

/** A copy of the lab.db the SQLite store of before wrote, and the merged store opened on it. */
async function upgraded(): Promise<{ store: SqlLabStore; file: string }> {
  const file = path.join(temp.dir, `lab-${fs.readdirSync(temp.dir).length}.db`);
  fs.copyFileSync(SQLITE_BEFORE, file);
  return { store: await SqlLabStore.open({ file }), file };
}

it('reads every job, trade and sweep of a lab.db written before the merge as the store of before did', async () => {
  const { store } = await upgraded();
  expect(await readEverything(store)).toEqual(readBefore().reads);
  await store.close();
});

it('goes on from the upgraded lab.db: its unfinished jobs fail at the start, a new one is numbered past the deleted one', async () => {
  const { store, file } = await upgraded();
  await expectToGoOn(store);
  await store.close();
  const db = new Database(file, { readonly: true });
  expect(db.pragma('user_version', { simple: true })).toBe(4);
  expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
  expect(db.pragma('foreign_key_check')).toEqual([]);
  db.close();
});
