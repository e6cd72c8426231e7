import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ManualClock } from '@fxdesk/primitives';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDeps } from '../src/deps.js';
import { buildTestApp, envelopeOf, KEY_HEADER, sqliteStore, startOanda, testConfig } from './helpers.js';
import { snapshotStoreContract } from './snapshot-store.contract.js';

const contractDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fxdesk-account-contract-'));
let databases = 0;
afterAll(() => fs.rmSync(contractDir, { recursive: true, force: true }));

// A file rather than :memory:, so that two stores (two replicas) can open the same database.
snapshotStoreContract('SQLite', {
  database: async () => {
    const file = path.join(contractDir, `account-${++databases}.db`);
    return async (retention) => sqliteStore(file, retention);
  },
});

describe('snapshots on disk', () => {
  let dir: string;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fxdesk-account-'));
  });

  afterEach(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('survive a restart of the service', async () => {
    const dbFile = path.join(dir, 'account.db');
    const before = await startOanda({ dbFile });
    const summary = (await before.get('/api/v1/account/summary')).json();
    const details = (await before.get('/api/v1/account/details')).json();
    await before.close();

    const after = await startOanda({ dbFile });
    const { snapshots } = (await after.get('/api/v1/account/snapshots')).json();
    await after.close();
    expect(snapshots.map((s: { id: number; kind: string }) => [s.id, s.kind])).toEqual([
      [details.snapshot.id, 'details'],
      [summary.snapshot.id, 'summary'],
    ]);
    expect(snapshots[1].account).toEqual(summary.account);
  });
});

describe('a snapshot store that fails', () => {
  it('answers 503 storage_unavailable with Retry-After, for a read it could not store and for the list', async () => {
    const config = testConfig();
    const store = sqliteStore();
    const app = await buildTestApp(config, openDeps(config, { clock: new ManualClock('2026-01-05T12:00:00Z'), store }));
    await store.close();
    for (const route of ['summary', 'details', 'snapshots']) {
      const res = await app.inject({ url: `/api/v1/account/${route}`, headers: KEY_HEADER });
      expect(res.statusCode, route).toBe(503);
      expect(res.headers['retry-after']).toBe('5');
      expect(envelopeOf(res).code).toBe('storage_unavailable');
    }
    const ready = await app.inject({ url: '/health/ready' });
    expect(ready.json().checks.database).toEqual({ ok: false, detail: expect.stringMatching(/^SQLite does not answer: /) });
    await app.close();
  });
});
