/**
 * Databases made by the per-engine stores of before (commit e53e363), opened by the one store of
 * now: every row reads back as that code read it, and the upgraded database takes new writes.
 * The fixtures (test/fixtures/README.md): an execution.db written by SqliteSignalStore, with its
 * simulated terminal's account, and a dump of a PostgreSQL database written by
 * PostgresSignalStore; `execution-e53e363.read.json` is what that code's find() and existing()
 * read of each row (the same on both engines), and what its terminal store loaded.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PostgresStoreDatabase } from '@fxdesk/core';
import { postgresUnavailable, startPostgres, type RunningPostgres } from '@fxdesk/core/testing';
import type { SignalRecord } from '@fxdesk/schemas';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXECUTION_SCHEMA, openExecutionFile } from '../src/schema.js';
import { DatabaseSignalStore } from '../src/signal-store.js';
import type { ExistingSignal, SignalStore } from '../src/store.js';
import { SqliteTerminalStore } from '../src/terminal-store.js';
import { claim } from './signal-store.contract.js';

const FIXTURES = path.join(import.meta.dirname, 'fixtures');
const { terminal, ...signals } = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'execution-e53e363.read.json'), 'utf8')) as {
  terminal: { load: unknown; records: unknown[] };
} & Record<string, { record: SignalRecord; existing: ExistingSignal }>;

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'fxdesk-exec-migration-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

/** Every signal of the fixture, newest received first, then by signal_id (bytes). */
const listed = Object.values(signals)
  .map((s) => s.record.signal_id)
  .sort((a, b) => {
    const [x, y] = [signals[a]!.record, signals[b]!.record];
    return x.received_at === y.received_at ? (a < b ? 1 : -1) : x.received_at < y.received_at ? 1 : -1;
  });

const answer = () => ({ httpStatus: 503, responseBody: '{}', error: { code: 'execution_outcome_unknown', message: 'interrupted' } });

/** The fixture's rows, read through the store as replica-1: each by id, then every one in the list. */
async function expectEveryRow(store: SignalStore): Promise<void> {
  expect(Object.keys(signals)).toHaveLength(8);
  for (const [signalId, before] of Object.entries(signals)) {
    expect(await store.find(signalId), signalId).toEqual(before.record);
    expect(await store.existing(signalId), signalId).toEqual(before.existing);
  }
  const page = await store.list({}, 100);
  expect(page.records.map((r) => r.signal_id)).toEqual(listed);
  expect(page.records).toEqual(listed.map((id) => signals[id]!.record));
  expect((await store.list({ symbol: 'EURUSD', state: 'processing' }, 100)).records.map((r) => r.signal_id)).toEqual(['processing-own', 'processing-other']);
}

/** The claims of before keep their owner and lease: replica-1 takes its own and the one past its lease, not replica-2's within it. */
async function expectClaimsTakenOver(store: SignalStore): Promise<void> {
  const taken = await store.failAbandoned('2026-01-05T12:01:00.000Z', answer, { includeOwn: true });
  expect(taken.map((s) => s.signalId).sort()).toEqual(['processing-expired', 'processing-own']);
  expect((await store.find('processing-other'))?.state).toBe('processing');
  expect(await store.claim(claim('filled-1'))).toEqual({ claimed: false, existing: signals['filled-1']!.existing });
  expect(await store.claim(claim('new'))).toEqual({ claimed: true });
}

describe('an execution.db written by the SQLite store of before', () => {
  function copy(): string {
    const file = path.join(fs.mkdtempSync(path.join(root, 'data-')), 'execution.db');
    fs.copyFileSync(path.join(FIXTURES, 'execution-e53e363.sqlite'), file);
    return file;
  }

  it('reads back every signal as that store read it', async () => {
    const store = new DatabaseSignalStore(openExecutionFile(copy()), 'replica-1');
    await expectEveryRow(store);
    await store.close();
  });

  it("reads back the simulated terminal's account as that store loaded it", async () => {
    const file = openExecutionFile(copy());
    const store = new SqliteTerminalStore(file);
    expect(store.load()).toEqual(terminal.load);
    expect(store.findRecords('', 31, 10_000)).toEqual(terminal.records);
    await file.close();
  });

  it('takes new claims, and the claims of before over, as their owner and lease say', async () => {
    const file = copy();
    const store = new DatabaseSignalStore(openExecutionFile(file), 'replica-1');
    await expectClaimsTakenOver(store);
    await store.close();
    const reopened = new DatabaseSignalStore(openExecutionFile(file), 'replica-1');
    expect((await reopened.find('processing-own'))?.state).toBe('unknown');
    await reopened.close();
  });
});

const unavailable = postgresUnavailable();
let server: RunningPostgres;
beforeAll(async () => {
  if (!unavailable) server = await startPostgres();
}, 300_000);
afterAll(() => server?.stop());

describe.skipIf(unavailable !== undefined)(`a PostgreSQL database of the store of before${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
  /** A database restored from the dump: the schema of before at its version 1 (fxdesk_schema), and its rows. */
  async function restored(): Promise<{ url: string; query: (sql: string) => Promise<unknown[]> }> {
    const url = await server.createDatabase({ icuLocale: 'en-US' });
    const query = async (sql: string) => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        return (await client.query(sql)).rows as unknown[];
      } finally {
        await client.end();
      }
    };
    await query(fs.readFileSync(path.join(FIXTURES, 'execution-e53e363.postgres.sql'), 'utf8'));
    return { url, query };
  }

  it('is adopted at the step its schema amounts to, with nothing to run, and a build of before refused', async () => {
    const { url, query } = await restored();
    await (await PostgresStoreDatabase.open(url, EXECUTION_SCHEMA)).close();
    expect(await query("SELECT version FROM fxdesk_migrations WHERE store = 'execution'")).toEqual([{ version: EXECUTION_SCHEMA.migrations.length }]);
    expect(await query("SELECT version FROM fxdesk_schema WHERE store = 'execution'")).toEqual([{ version: 2147483647 }]);
    expect(await query("SELECT to_regclass('sim_account')::text AS name")).toEqual([{ name: null }]);
  });

  it('reads back every signal as that store read it', async () => {
    const { url } = await restored();
    const store = new DatabaseSignalStore(await PostgresStoreDatabase.open(url, EXECUTION_SCHEMA), 'replica-1');
    await expectEveryRow(store);
    await store.close();
  });

  it('takes new claims, and the claims of before over, as their owner and lease say', async () => {
    const { url } = await restored();
    const store = new DatabaseSignalStore(await PostgresStoreDatabase.open(url, EXECUTION_SCHEMA), 'replica-1');
    await expectClaimsTakenOver(store);
    await store.close();
  });
});
