import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
import { openNotificationStore } from '../src/database-store.js';
import { notificationStoreContract } from './notification-store.contract.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'fxdesk-notification-store-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
let files = 0;

// Replicas on one file are connections of one process here; the service itself opens one per DATA_DIR.
notificationStoreContract('SQLite', {
  database: async () => {
    const file = path.join(root, `notification-${++files}.db`);
    return (replicaId) => openNotificationStore({ databaseUrl: undefined, file, replicaId });
  },
  oneProcess: true,
});
