import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, expect, it } from 'vitest';
import { openStrategyStores, STRATEGY_SCHEMA, type StrategyStores } from '../src/store/index.js';
import { tempDir } from './helpers.js';
import { expectToGoOn, readBefore, readEverything, SQLITE_BEFORE } from './strategy-migration.fixture.js';

const temp = tempDir();
afterAll(() => temp.remove());

/** A copy of the strategy.db the SQLite store of before wrote, and the merged stores opened on it. */
async function upgraded(): Promise<{ stores: StrategyStores; file: string }> {
  const file = path.join(temp.dir, `strategy-${fs.readdirSync(temp.dir).length}.db`);
  fs.copyFileSync(SQLITE_BEFORE, file);
  return { stores: await openStrategyStores({ file }), file };
}

it('reads every signal, run, paper trade, session, event and downstream state of a strategy.db written before the merge as the store of before did', async () => {
  const { stores } = await upgraded();
  expect(await readEverything(stores)).toEqual(readBefore());
  await stores.close();
});

it('goes on from the upgraded strategy.db where its records left off, its tables under their PostgreSQL names', async () => {
  const { stores, file } = await upgraded();
  await expectToGoOn(stores);
  await stores.close();
  const db = new Database(file, { readonly: true });
  expect(db.pragma('user_version', { simple: true })).toBe(STRATEGY_SCHEMA.migrations.length);
  expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
  const tables = db.prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all();
  expect(tables.map((t) => t.name)).toEqual([
    'fxdesk_meta',
    'strategy_console_secret',
    'strategy_console_sessions',
    'strategy_daily_summaries',
    'strategy_downstream_states',
    'strategy_event_seq',
    'strategy_events',
    'strategy_journal',
    'strategy_paper_trades',
    'strategy_risk_announcements',
    'strategy_risk_states',
    'strategy_run_state',
    'strategy_signals',
  ]);
  db.close();
});

it('makes the same tables and indexes in a new strategy.db as in one it upgrades', async () => {
  const schema = (file: string) => {
    const db = new Database(file, { readonly: true });
    const rows = db
      .prepare<[], { type: string; name: string; tbl_name: string }>(
        "SELECT type, name, tbl_name FROM sqlite_master WHERE name NOT LIKE 'sqlite_autoindex%' ORDER BY name",
      )
      .all();
    db.close();
    return rows;
  };
  const { stores, file } = await upgraded();
  await stores.close();
  const fresh = path.join(temp.dir, 'fresh.db');
  await (await openStrategyStores({ file: fresh })).close();
  expect(schema(fresh)).toEqual(schema(file));
});
