import fs from 'node:fs';
import path from 'node:path';
import { postgresUnavailable, startPostgres, type RunningPostgres } from '@fxdesk/core/testing';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openNotificationStore, type DatabaseNotificationStore } from '../src/database-store.js';
import { expectEveryRowOfBefore, expectToCarryOn, FIXTURES, WRITER } from './store-upgrade.js';

const unavailable = postgresUnavailable();
let server: RunningPostgres;
let store: DatabaseNotificationStore | undefined;

beforeAll(async () => {
  if (!unavailable) server = await startPostgres();
}, 300_000);
afterEach(async () => {
  await store?.close();
  store = undefined;
});
afterAll(() => server?.stop());

/** Runs SQL on a connection of its own (a script may change its session's settings). */
async function sql<R extends pg.QueryResultRow>(url: string, text: string): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(text)).rows;
  } finally {
    await client.end();
  }
}

/** A database as the PostgreSQL store of e53e363 left it (fxdesk_schema version 1), and its URL. */
async function databaseOfBefore(): Promise<string> {
  const url = await server.createDatabase();
  await sql(url, fs.readFileSync(path.join(FIXTURES, 'notification-e53e363.postgres.sql'), 'utf8'));
  return url;
}

describe.skipIf(unavailable !== undefined)(`a PostgreSQL database of the store of before${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
  it('is taken at the step it amounts to, and reads back every row as it was', async () => {
    const url = await databaseOfBefore();
    store = await openNotificationStore({ databaseUrl: url, file: ':memory:', replicaId: WRITER });
    await expectEveryRowOfBefore(store);
    // A build of before now finds the schema newer than it knows, and refuses it.
    expect(await sql(url, "SELECT version FROM fxdesk_schema WHERE store = 'notification'")).toEqual([{ version: 2147483647 }]);
  });

  it('has the columns, types and nullability of a database made by this build', async () => {
    const columns = `SELECT table_name, column_name, data_type, is_nullable, column_default FROM information_schema.columns
      WHERE table_schema = 'public' AND table_name LIKE 'notification%' ORDER BY table_name, column_name`;
    const before = await databaseOfBefore();
    const fresh = await server.createDatabase();
    for (const url of [before, fresh]) await (await openNotificationStore({ databaseUrl: url, file: ':memory:', replicaId: WRITER })).close();
    expect(await sql(before, columns)).toEqual(await sql(fresh, columns));
  });

  it('goes on from its rows: idempotency keys, the queue, a claim left sending, the pacing calendar', async () => {
    store = await openNotificationStore({ databaseUrl: await databaseOfBefore(), file: ':memory:', replicaId: WRITER });
    await expectToCarryOn(store);
    const chat = { key: 'chat:111', rule: { limit: 1, windowMs: 1000 } };
    expect(await store.pacing.decide('telegram', ({ calendar }) => calendar.reserve('next', [chat], Date.UTC(2026, 0, 5, 12, 0, 3)))).toBe(
      Date.UTC(2026, 0, 5, 12, 0, 4),
    );
  });
});
