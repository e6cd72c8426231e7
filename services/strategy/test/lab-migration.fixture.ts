/**
 * A lab database made by the per-engine stores of before the merge (fixtures/lab-before-merge.*,
 * made by fixtures/lab-before-merge.make.ts): what those stores read back, and the same reads
 * through any store.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import type { LabStore } from '../src/lab/store.js';
import { backtest, RESULT } from './lab-store.contract.js';

const FIXTURES = path.join(path.dirname(new URL(import.meta.url).pathname), 'fixtures');

/** lab.db as lab/sqlite-store.ts left it (owner `local`). */
export const SQLITE_BEFORE = path.join(FIXTURES, 'lab-before-merge.db');
/** The PostgreSQL database lab/postgres-store.ts left (owner `replica-a`), dumped with its fxdesk_schema row. */
export const POSTGRES_BEFORE = path.join(FIXTURES, 'lab-before-merge.postgres.sql');

/** What the stores of before read (the same on both engines), and the seq of the backtest deleted last. */
export function readBefore(): { deletedSeq: number; reads: Awaited<ReturnType<typeof readEverything>> } {
  const before = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'lab-before-merge.json'), 'utf8'), withNoData) as {
    deletedSeq: number;
    reads: Awaited<ReturnType<typeof readEverything>>;
  };
  return before;
}

/** A backtest of before (its record or a list's summary) as this build reads it: it names no data (issue 26). */
function withNoData(_key: string, value: unknown): unknown {
  const isBacktest = typeof value === 'object' && value !== null && 'skipped_signals' in value && 'sweep_id' in value;
  return isBacktest && !('data' in value) ? { ...value, data: null } : value;
}

const BACKTEST_IDS = ['alone-done', 'alone-failed', 'alone-cancelled', 'alone-queued', 'alone-running', 'member-0', 'member-1', 'window-0', 'deleted'];
const SWEEP_IDS = ['sweep-wf', 'sweep-cancelled', 'none'];

/** Everything a store answers about the fixture's jobs, as JSON would carry it. */
export async function readEverything(store: LabStore) {
  const firstPage = await store.backtests({ limit: 2 });
  const firstSweeps = await store.sweeps({ limit: 1 });
  const backtests = [];
  for (const id of BACKTEST_IDS) {
    backtests.push([
      id,
      {
        record: (await store.backtest(id)) ?? null,
        state: (await store.jobState('backtest', id)) ?? null,
        equity: (await store.equity(id)) ?? null,
        trades: await store.trades(id, { limit: 100 }),
        tradesPaged: await store.trades(id, { limit: 2, after: 0 }),
        euro: await store.trades(id, { limit: 100, instrument: 'EUR_USD' }),
      },
    ] as const);
  }
  const sweeps = [];
  for (const id of SWEEP_IDS) {
    sweeps.push([
      id,
      { record: (await store.sweep(id)) ?? null, state: (await store.jobState('sweep', id)) ?? null, backtests: await store.sweepBacktests(id) },
    ] as const);
  }
  const reads = {
    backtests: Object.fromEntries(backtests),
    sweeps: Object.fromEntries(sweeps),
    alone: await store.backtests({ limit: 100 }),
    alonePages: [firstPage, await store.backtests({ limit: 2, before: firstPage.next ?? undefined })],
    ofSweep: await store.backtests({ limit: 100, sweepId: 'sweep-wf' }),
    sweepList: await store.sweeps({ limit: 100 }),
    sweepPages: [firstSweeps, await store.sweeps({ limit: 1, before: firstSweeps.next ?? undefined })],
  };
  return JSON.parse(JSON.stringify(reads)) as typeof reads;
}

/** The upgraded store goes on: the jobs left unfinished fail at its start, and a new backtest is numbered past the one deleted last. */
export async function expectToGoOn(store: LabStore): Promise<void> {
  expect(await store.failAbandoned('2026-02-01T11:00:00.000Z', { includeOwn: true })).toEqual({ backtests: ['alone-queued', 'alone-running'], sweeps: [] });
  await store.insertBacktest(backtest('after'));
  await store.startBacktest('after', '2026-02-01T11:00:01.000Z');
  expect(await store.finishBacktest('after', RESULT, '2026-02-01T11:00:02.000Z')).toBe(true);
  const newest = await store.backtests({ limit: 1 });
  expect(newest.items.map((b) => b.id)).toEqual(['after']);
  expect(newest.next).toBeGreaterThan(readBefore().deletedSeq);
  expect((await store.trades('after', { limit: 10, instrument: 'USD_JPY' })).items).toEqual([RESULT.trades[1]]);
}
