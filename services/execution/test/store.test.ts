import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SqliteStoreDatabase } from '@fxdesk/core';
import { afterAll, describe, expect, it } from 'vitest';
import { EXECUTION_SCHEMA, openExecutionFile } from '../src/schema.js';
import { DatabaseSignalStore, listQuery } from '../src/signal-store.js';
import type { SignalFilter } from '../src/store.js';
import { claim, filled, signalStoreContract } from './signal-store.contract.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'fxdesk-exec-store-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
let files = 0;

function tempFile(): string {
  return path.join(root, `execution-${++files}.db`);
}

const at = (second: number) => `2026-01-05T12:00:${String(second).padStart(2, '0')}.000Z`;

// Replicas on one file are connections of one process here; the service itself keeps one per DATA_DIR.
signalStoreContract('SQLite', {
  database: () => {
    const file = tempFile();
    return Promise.resolve((replicaId) => Promise.resolve(new DatabaseSignalStore(openExecutionFile(file), replicaId)));
  },
});

describe('SQLite signal store', () => {
  it('counts its commits', async () => {
    const s = new DatabaseSignalStore(openExecutionFile(tempFile()), 'a');
    const before = s.commitStats!.commits;
    await s.claim(claim('x'));
    await s.complete('x', filled);
    expect(s.commitStats!.commits).toBeGreaterThan(before);
    expect(s.commitStats!.operations).toBeGreaterThanOrEqual(2);
    await s.close();
  });

  it('serves every combination of filters, bounds and cursor from an index, in order, without sorting', () => {
    const db = openExecutionFile(tempFile()).connection;
    const options: SignalFilter[] = [
      { state: 'filled' },
      { symbol: 'EURUSD' },
      { source: 'manual' },
      { receivedFrom: at(1) },
      { receivedBefore: at(2) },
      { after: { receivedAt: at(1), signalId: 'a' } },
    ];
    for (let mask = 0; mask < 1 << options.length; mask++) {
      const filter = Object.assign({}, ...options.filter((_, i) => mask & (1 << i))) as SignalFilter;
      const { sql, params } = listQuery(filter, 50);
      const plan = db
        .prepare<Record<string, string | number>, { detail: string }>(`EXPLAIN QUERY PLAN ${sql}`)
        .all(params)
        .map((p) => p.detail);
      expect(plan, JSON.stringify(filter)).toEqual([expect.stringMatching(/^(SCAN|SEARCH) signals USING INDEX signals_(received|state|symbol|source)\b/)]);
    }
    db.close();
  });

  it('lists the signals of a database written before the list, by the symbol and source of their stored request, and takes their claims over', async () => {
    const file = tempFile();
    SqliteStoreDatabase.open(file, { ...EXECUTION_SCHEMA, migrations: EXECUTION_SCHEMA.migrations.slice(0, 2) })
      .connection.prepare(
        `INSERT INTO signals (signal_id, payload_hash, state, request_json, request_id, order_comment, received_at, updated_at)
         VALUES ('old', 'h', 'processing', '{"symbol":"GBPUSD","source":"webhook"}', 'r', 'c', '2026-01-05T11:00:00.000Z', '2026-01-05T11:00:00.000Z')`,
      )
      .run();
    const store = new DatabaseSignalStore(openExecutionFile(file), 'a');
    await store.claim(claim('new', { receivedAt: at(1) }));
    expect((await store.list({ symbol: 'GBPUSD', source: 'webhook', state: 'processing' }, 10)).records.map((r) => r.signal_id)).toEqual(['old']);
    expect((await store.list({}, 10)).records.map((r) => r.signal_id)).toEqual(['new', 'old']);
    // A row claimed before claims had an owner and a lease is nobody's, and long expired.
    const other = new DatabaseSignalStore(openExecutionFile(file), 'b');
    const answer = () => ({ httpStatus: 503, responseBody: '{}', error: { code: 'execution_outcome_unknown', message: 'interrupted' } });
    expect((await other.failAbandoned(at(2), answer, { includeOwn: true })).map((s) => s.signalId)).toEqual(['old']);
    await other.close();
    await store.close();
  });
});
