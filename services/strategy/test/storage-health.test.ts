/**
 * Readiness while the signal store cannot write (issue 21): once the disk is full (SQLite's real
 * refusal under `PRAGMA max_page_count`), /health/ready answers 503 naming strategy.db.
 */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SqliteStoreDatabase } from '@fxdesk/core';
import { harness, tempDir, type Harness } from './helpers.js';

let h: Harness | undefined;
const dirs: Array<() => void> = [];
afterEach(async () => {
  await h?.close();
  h = undefined;
  for (const remove of dirs.splice(0)) remove();
});

describe('strategy store that cannot write', { timeout: 30_000 }, () => {
  it('after a write refused for a full disk, readiness answers 503 naming strategy.db and the code', async () => {
    const { dir, remove } = tempDir();
    dirs.push(remove);
    h = await harness({ dbFile: path.join(dir, 'strategy.db') });
    expect((await h.app.inject({ method: 'GET', url: '/health/ready' })).statusCode).toBe(200);
    const db = (h.stores.db as SqliteStoreDatabase).connection;
    db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true }) as number}`);

    let refused: unknown;
    for (let i = 0; i < 1000 && refused === undefined; i++) {
      const session = { idHash: `session-${i}`, csrfToken: 'a-token', expiresAt: '2026-01-06T12:00:00.000Z' };
      refused = await h.stores.sessions.openSession(session, '2026-01-05T12:00:00.000Z', 1000).catch((err: unknown) => err ?? 'refused');
    }
    expect(refused).toMatchObject({ code: 'SQLITE_FULL' });

    const ready = await h.app.inject({ method: 'GET', url: '/health/ready' });
    expect(ready.statusCode).toBe(503);
    expect(ready.json()).toMatchObject({
      checks: { database: { ok: false, detail: expect.stringMatching(/strategy\.db cannot write \(SQLITE_FULL/) as string } },
    });
  });
});
