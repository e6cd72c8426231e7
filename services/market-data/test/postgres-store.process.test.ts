import { postgresUnavailable, startPostgres, type RunningPostgres } from '@fxdesk/core/testing';
import { afterAll, beforeAll, describe } from 'vitest';
import { openCandleStore } from '../src/deps.js';
import { candleStoreContract } from './candle-store.contract.js';

const unavailable = postgresUnavailable();
let server: RunningPostgres;

// One server for the file; each test gets its own database.
beforeAll(async () => {
  if (unavailable) return;
  server = await startPostgres();
}, 300_000);
afterAll(async () => {
  await server?.stop();
});

describe.skipIf(unavailable !== undefined)(`PostgreSQL${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
  // Opened as server.ts opens it with DATABASE_URL.
  candleStoreContract('PostgreSQL', async () => openCandleStore({ DATA_DIR: '/nonexistent', DATABASE_URL: await server.createDatabase() }));
});
