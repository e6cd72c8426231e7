import path from 'node:path';
import { afterAll } from 'vitest';
import { SqliteLabStore } from '../src/lab/sqlite-store.js';
import { tempDir } from './helpers.js';
import { labStoreContract } from './lab-store.contract.js';

const temp = tempDir();
afterAll(() => temp.remove());
let files = 0;

// Replicas on one file are connections of one process here; the service keeps one per DATA_DIR.
labStoreContract('SQLite', {
  database: async () => {
    const file = path.join(temp.dir, `lab-${++files}.db`);
    return async (replicaId) => new SqliteLabStore(file, replicaId);
  },
});
