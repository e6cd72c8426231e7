/**
 * account.db as the per-engine SqliteSnapshotStore of before the merge left it (commit e53e363,
 * test/fixtures/README.md): the merged store takes it up at its schema version and keeps every
 * snapshot. PostgreSQL's counterpart is in postgres-store.process.test.ts.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SnapshotStore } from '../src/store.js';
import { BEFORE_MERGE } from './before-merge.js';
import { SUMMARY, sqliteStore } from './helpers.js';

describe('account.db of before the merge', () => {
  let dir: string;
  let store: SnapshotStore;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fxdesk-account-before-'));
    const file = path.join(dir, 'account.db');
    fs.copyFileSync(BEFORE_MERGE.sqliteFile, file);
    store = sqliteStore(file, 4);
  });

  afterEach(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('reads back every snapshot as the store of before did', async () => {
    const before = BEFORE_MERGE.snapshots();
    expect(await store.recent(500)).toEqual(before);
    expect(await store.recent(500, 'details')).toEqual(before.filter((snapshot) => snapshot.kind === 'details'));
  });

  it('numbers the next snapshot after the newest and keeps the retention', async () => {
    expect((await store.add('summary', 'stub', SUMMARY, '2026-01-05T13:00:00.000Z')).id).toBe(8);
    expect((await store.recent(500)).map((snapshot) => snapshot.id)).toEqual([8, 7, 6, 5]);
  });
});
