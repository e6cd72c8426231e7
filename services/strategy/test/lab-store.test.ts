import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { SqlLabStore } from '../src/lab/sql-store.js';
import { tempDir } from './helpers.js';
import { backtest, labStoreContract, RESULT, trade } from './lab-store.contract.js';

const temp = tempDir();
afterAll(() => temp.remove());
let files = 0;

// Replicas on one file are connections of one process here; the service keeps one per DATA_DIR.
labStoreContract('SQLite', {
  database: async () => {
    const file = path.join(temp.dir, `lab-${++files}.db`);
    return (replicaId) => SqlLabStore.open({ file, replicaId });
  },
});

it("lets the event loop turn while it writes a backtest's thousands of trades, which are read only once it is done", async () => {
  const store = await SqlLabStore.open({ replicaId: 'a' });
  const at = '2026-02-01T10:00:00.000Z';
  await store.insertBacktest(backtest('b1'));
  await store.startBacktest('b1', at);
  const trades = Array.from({ length: 3500 }, (_, k) => trade('EUR_USD', k));
  let turns = 0;
  let readWhileWriting: number | undefined;
  const turning = setInterval(() => {
    turns++;
    void store.trades('b1', { limit: 10 }).then((page) => (readWhileWriting ??= page.items.length));
  }, 0);
  const finished = await store.finishBacktest('b1', { ...RESULT, trades }, at);
  clearInterval(turning);
  expect(finished).toBe(true);
  expect(turns).toBeGreaterThanOrEqual(3);
  expect(readWhileWriting).toBe(0);
  expect((await store.trades('b1', { limit: 5000 })).items).toHaveLength(3500);
  await store.close();
});
