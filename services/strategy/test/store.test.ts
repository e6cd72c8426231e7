import path from 'node:path';
import { afterAll } from 'vitest';
import { openStrategyStores } from '../src/store/index.js';
import { tempDir } from './helpers.js';
import { strategyStoreContract } from './strategy-store.contract.js';

const temp = tempDir();
afterAll(() => temp.remove());
let files = 0;

// Replicas on one file are connections of one process here; the service keeps one per DATA_DIR.
strategyStoreContract('SQLite', {
  database: async () => {
    const file = path.join(temp.dir, `strategy-${++files}.db`);
    return (options) => openStrategyStores({ file, ...options });
  },
});
