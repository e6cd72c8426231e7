/**
 * Readiness while the snapshot store cannot write (issue 21): once the disk is full (SQLite's real
 * refusal under `PRAGMA max_page_count`), /health/ready answers 503 naming account.db.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SqliteStoreDatabase } from '@fxdesk/core';
import { describe, expect, it } from 'vitest';
import { SNAPSHOT_SCHEMA, SnapshotStore } from '../src/store.js';
import { startSimulated } from './helpers.js';

describe('account snapshot store that cannot write', { timeout: 30_000 }, () => {
  it('after a snapshot could not be stored for a full disk, readiness answers 503 naming account.db', async () => {
    const db = SqliteStoreDatabase.open(path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'fxdesk-account-storage-')), 'account.db'), SNAPSHOT_SCHEMA);
    const h = await startSimulated({ store: new SnapshotStore(db) });
    try {
      expect((await h.get('/health/ready', {})).statusCode).toBe(200);
      db.connection.pragma(`max_page_count = ${db.connection.pragma('page_count', { simple: true }) as number}`);

      let answered = 200;
      for (let i = 0; i < 500 && answered === 200; i++) answered = (await h.get('/api/v1/account/details')).statusCode;
      expect(answered).toBeGreaterThanOrEqual(500);

      const ready = await h.get('/health/ready', {});
      expect(ready.statusCode).toBe(503);
      expect(ready.json()).toMatchObject({
        checks: { database: { ok: false, detail: expect.stringMatching(/account\.db cannot write \(SQLITE_FULL/) as string } },
      });
    } finally {
      await h.close();
    }
  });
});
