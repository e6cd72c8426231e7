import { afterAll } from 'vitest';
import { openCandleStore } from '../src/deps.js';
import { candleStoreContract } from './candle-store.contract.js';
import { tempFolder } from './candle-files.js';

const folder = tempFolder();
let opened = 0;
afterAll(() => folder.cleanup());

// A file each, opened as server.ts opens it without DATABASE_URL: DATA_DIR/market-data.db.
candleStoreContract('SQLite', () => openCandleStore({ DATA_DIR: `${folder.dir}/${++opened}`, DATABASE_URL: undefined }));
