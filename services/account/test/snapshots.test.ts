import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteSnapshotStore } from '../src/store.js';
import { startOanda, SUMMARY } from './helpers.js';

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

  it('keep only the newest SNAPSHOT_RETENTION rows', () => {
    const store = new SqliteSnapshotStore(path.join(dir, 'retention.db'), 3);
    const ids = Array.from({ length: 5 }, () => store.add('summary', 'stub', SUMMARY, '2026-01-05T12:00:00.000Z').id);
    expect(store.recent(10).map((s) => s.id)).toEqual(ids.slice(2).reverse());
    store.close();
  });
});
