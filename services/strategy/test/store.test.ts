import path from 'node:path';
import { afterAll } from 'vitest';
import { SqliteStrategyStore } from '../src/sqlite-store.js';
import { tempDir } from './helpers.js';
import { strategyStoreContract } from './strategy-store.contract.js';

const temp = tempDir();
afterAll(() => temp.remove());
let files = 0;

// Replicas on one file are connections of one process here; the service keeps one per DATA_DIR.
strategyStoreContract('SQLite', {
  database: async () => {
    const file = path.join(temp.dir, `strategy-${++files}.db`);
    return async (options) => new SqliteStrategyStore(file, options);
  },
});
