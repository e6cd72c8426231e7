/**
 * Readiness while the store cannot write (issue 21): once the disk is full (SQLite's real refusal
 * under `PRAGMA max_page_count`), /health/ready answers 503 naming the file.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SqliteStoreDatabase } from '@fxdesk/core';
import type { DatabaseNotificationStore } from '../src/database-store.js';
import { startService, type Harness } from './harness.js';

const body = { message: 'GBP_USD short opened', channels: ['CHAT_APP'], source: 'strategy' };

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('notification store that cannot write', { timeout: 30_000 }, () => {
  it('after a request could not be stored for a full disk, readiness answers 503 naming notification.db', async () => {
    h = await startService({ CHAT_APP_CHAT_IDS: '111', DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'fxdesk-notif-storage-')) });
    expect((await h.app.inject({ method: 'GET', url: '/health/ready' })).statusCode).toBe(200);
    const db = ((h.store as DatabaseNotificationStore).db as SqliteStoreDatabase).connection;
    db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true }) as number}`);

    let answered = 201;
    for (let i = 0; i < 500 && answered === 201; i++) answered = (await h.notify({ ...body, idempotencyKey: `k${i}` })).statusCode;
    expect(answered).toBeGreaterThanOrEqual(500);

    const ready = await h.app.inject({ method: 'GET', url: '/health/ready' });
    expect(ready.statusCode).toBe(503);
    expect(ready.json()).toMatchObject({
      checks: { database: { ok: false, detail: expect.stringMatching(/notification\.db cannot write \(SQLITE_FULL/) as string } },
    });
  });
});
