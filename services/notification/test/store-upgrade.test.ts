import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { SqliteStoreDatabase } from '@fxdesk/core';
import { afterEach, describe, expect, it } from 'vitest';
import { openNotificationStore, type DatabaseNotificationStore } from '../src/database-store.js';
import { expectEveryRowOfBefore, expectToCarryOn, FIXTURES, WRITER } from './store-upgrade.js';

let dir: string | undefined;
let store: DatabaseNotificationStore | undefined;
afterEach(async () => {
  await store?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  store = dir = undefined;
});

/** A copy of the notification.db that the SQLite store of e53e363 wrote (schema version 4), opened by this build. */
async function upgraded(): Promise<DatabaseNotificationStore> {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fxdesk-notification-upgrade-'));
  const file = path.join(dir, 'notification.db');
  fs.copyFileSync(path.join(FIXTURES, 'notification-e53e363.db'), file);
  store = await openNotificationStore({ databaseUrl: undefined, file, replicaId: WRITER });
  return store;
}

describe('a notification.db of the SQLite store of before', () => {
  it('is migrated to the tables of now, and reads back every row as it was', async () => {
    const s = await upgraded();
    expect((s.db as SqliteStoreDatabase).connection.pragma('user_version', { simple: true })).toBeGreaterThan(4);
    await expectEveryRowOfBefore(s);
  });

  it('goes on from its rows: idempotency keys, the queue, a claim left sending', async () => {
    await expectToCarryOn(await upgraded());
  });
});
