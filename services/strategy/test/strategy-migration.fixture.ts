/**
 * The strategy's records as the stores of before the merge wrote them (commit e53e363:
 * sqlite-store.ts and postgres-store.ts, one StrategyStore each): the fixtures in fixtures/
 * (made by fixtures/strategy-before-merge.make.ts with this file's `writeRecords`), what that
 * store read back (`readEverything`) and what the merged stores must do on them next.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { StrategySignal } from '@fxdesk/schemas';
import { expect } from 'vitest';
import type { PaperTrade, StrategyStores } from '../src/store/index.js';
import { signalFixture } from './signal-fixture.js';

const fixtures = path.join(path.dirname(new URL(import.meta.url).pathname), 'fixtures');
/** strategy.db at user_version 5, with its identity marker beside it (`.id`). */
export const SQLITE_BEFORE = path.join(fixtures, 'strategy-before-merge.db');
/** pg_dump of a database of the PostgreSQL store (fxdesk_schema: strategy at version 3), comments and psql commands taken out. */
export const POSTGRES_BEFORE = path.join(fixtures, 'strategy-before-merge.postgres.sql');
const READ_BEFORE = path.join(fixtures, 'strategy-before-merge.json');

/** What `readEverything` read from the store of before, on the records `writeRecords` wrote. */
export function readBefore(): unknown {
  return JSON.parse(fs.readFileSync(READ_BEFORE, 'utf8'));
}

const at = (day: number, second: number) => `2026-01-0${day}T12:00:${String(second).padStart(2, '0')}.000Z`;
const pending: Pick<StrategySignal, 'execution' | 'notification'> = {
  execution: { status: 'pending', code: null, message: null, tickets: null, attempts: 0, updated_at: null },
  notification: { status: 'pending', request_id: null, delivery_ids: [], message: null, attempts: 0, updated_at: null },
};
const id = (n: number) => `00000000-0000-5000-8000-00000000000${n}`;

/** A dry_run signal with its paper trade, open. */
const paper = signalFixture({ signal_id: id(1), generated_at: at(5, 1) });
/** A live signal whose order and announcement never went out. */
const unsent = signalFixture({
  signal_id: id(2),
  generated_at: at(5, 2),
  instrument: 'USD_JPY',
  symbol: 'USDJPY',
  type: 'SHORT',
  entry_price: 150,
  stop_loss: 150.5,
  take_profit: 149,
  dry_run: false,
  ...pending,
});
/** A live signal, filled and announced. */
const sent = signalFixture({ signal_id: id(3), generated_at: at(6, 3), dry_run: false, ...pending });
/** A dry_run signal whose paper trade closed at its target. */
const closed = signalFixture({
  signal_id: id(4),
  generated_at: at(6, 4),
  instrument: 'GBP_USD',
  symbol: 'GBPUSD',
  entry_price: 1.25,
  stop_loss: 1.249,
  take_profit: 1.252,
});
const SIGNALS = [paper, unsent, sent, closed];

function tradeOf(signal: StrategySignal): PaperTrade {
  const { signal_id: signalId, instrument, entry_price: entry, stop_loss: stopLoss, take_profit: takeProfit } = signal;
  return {
    signalId,
    instrument,
    side: 1,
    units: 10_000,
    entry,
    stopLoss,
    takeProfit,
    candleTime: Date.parse(signal.candle_time) / 1000,
    openedAt: signal.generated_at,
  };
}

/**
 * A record of every kind, through the stores' methods (the store of before had the same ones on
 * one object: the generator hands it in as every store).
 */
export async function writeRecords(stores: StrategyStores): Promise<void> {
  const { signals, runs, paperTrades, sessions, events, downstream } = stores;
  const run = { running: true, instruments: ['EUR_USD', 'USD_JPY'], dryRun: true, startedAt: at(5, 0) };
  await runs.recordRun(run, at(5, 0), 0);
  await runs.recordRun({ ...run, running: false }, at(6, 9), 1);
  await signals.insert(paper, tradeOf(paper));
  await signals.insert(unsent);
  await signals.insert(sent);
  await signals.insert(closed, tradeOf(closed));
  await paperTrades.closePaperTrade(closed.signal_id, 1.252, 20, at(6, 8));
  await signals.updateExecution(sent, {
    status: 'filled',
    code: null,
    message: null,
    tickets: { order: '11', deal: '12', position: '11' },
    attempts: 1,
    updated_at: at(6, 5),
  });
  await signals.updateNotification(sent, { status: 'sent', request_id: 'r-1', delivery_ids: ['d-1', 'd-2'], message: null, attempts: 1, updated_at: at(6, 6) });
  await events.appendEvents([
    { name: 'candle', key: 'EUR_USD|M5|2026-01-06T12:00:00.000Z', data: '{"instrument":"EUR_USD","time":"2026-01-06T12:00:00.000Z"}' },
    { name: 'lab', data: '{"kind":"backtest","id":"b-1","status":"done"}' },
  ]);
  await sessions.openSession({ idHash: 'hash-live', csrfToken: 'csrf-live', expiresAt: '2026-02-01T00:00:00.000Z' }, at(6, 0), 200);
  await sessions.openSession({ idHash: 'hash-later', csrfToken: 'csrf-later', expiresAt: '2026-03-01T00:00:00.000Z' }, at(6, 1), 200);
  await sessions.consoleSecret('the-secret-of-before');
  await downstream.saveDownstream('execution', { configured: true, state: 'ok', last_success_at: at(6, 5), last_error: null, consecutive_failures: 0 });
  await downstream.saveDownstream('notification', {
    configured: true,
    state: 'failing',
    last_success_at: at(6, 6),
    last_error: { at: at(6, 7), code: 'timeout', message: 'no answer in 5000 ms' },
    consecutive_failures: 2,
  });
}

/** Every record, through every read of the stores. */
export async function readEverything(stores: StrategyStores) {
  const { signals, runs, paperTrades, sessions, events, downstream } = stores;
  return {
    signals: await Promise.all(SIGNALS.map((s) => signals.find(s.signal_id))),
    page: await signals.page({ limit: 10 }),
    latest: { EUR_USD: await signals.latest('EUR_USD'), USD_JPY: await signals.latest('USD_JPY'), GBP_USD: await signals.latest('GBP_USD') },
    lastSignalTime: await signals.lastSignalTime(),
    countOnDay: { '2026-01-05': await signals.countOnDay('2026-01-05'), '2026-01-06': await signals.countOnDay('2026-01-06') },
    countSince: await signals.countSince(at(6, 0)),
    hasInstrument: { GBP_USD: await signals.hasInstrument('GBP_USD'), AUD_USD: await signals.hasInstrument('AUD_USD') },
    unfinished: await signals.unfinished(),
    runState: await runs.runState(),
    openPaperTrades: await paperTrades.openPaperTrades(),
    realizedPaperPnl: await paperTrades.realizedPaperPnl(),
    sessions: { live: await sessions.findSession('hash-live', at(6, 2)), later: await sessions.findSession('hash-later', at(6, 2)) },
    consoleSecret: await sessions.consoleSecret('a-new-candidate'),
    events: await events.eventsAfter(0, 100),
    lastEventSeq: await events.lastEventSeq(),
    downstreamStates: await downstream.downstreamStates(),
  };
}

/** The upgraded records go on where they were: the next signal, event, run, session and outcome follow those of before. */
export async function expectToGoOn(stores: StrategyStores): Promise<void> {
  const { signals, runs, paperTrades, sessions, events } = stores;
  // The fills of before (a filled order, the paper trades) count as announced: an upgrade sends no backlog.
  expect(await signals.unannouncedFills(10)).toEqual([]);
  expect(await paperTrades.unannouncedFills(10)).toEqual([]);
  // The position of before's filled order names its signal (the column the upgrade filled from the outcome).
  expect([...(await signals.byPositions(['11', '12']))].map(([ticket, s]) => [ticket, s.signal_id])).toEqual([['11', id(3)]]);
  const next = signalFixture({ signal_id: id(5), generated_at: at(7, 0) });
  expect(await signals.insert(next, tradeOf(next))).toBe(true);
  expect(await signals.insert(paper)).toBe(false);
  expect((await signals.page({ limit: 1 })).signals).toEqual([next]);
  expect(await events.eventsAfter(8, 10)).toEqual([{ seq: 9, name: 'signal', data: JSON.stringify(next) }]);
  await events.appendEvents([{ name: 'candle', key: 'EUR_USD|M5|2026-01-06T12:00:00.000Z', data: 'logged before' }]);
  expect(await events.lastEventSeq()).toBe(9);

  await signals.updateExecution(unsent, { ...unsent.execution, status: 'failed', attempts: 3, updated_at: at(7, 1) });
  expect((await signals.unfinished()).map((s) => s.signal_id)).toEqual([unsent.signal_id]);
  await paperTrades.closePaperTrade(paper.signal_id, 1.099, -10, at(7, 2));
  expect(await paperTrades.openPaperTrades()).toEqual([tradeOf(next)]);
  expect(await paperTrades.realizedPaperPnl()).toBe(10);

  const stopped = await runs.runState();
  expect(await runs.recordRun({ running: true, instruments: ['EUR_USD'], dryRun: false, startedAt: at(7, 3) }, at(7, 3), 1)).toBeUndefined();
  expect(await runs.recordRun({ running: true, instruments: ['EUR_USD'], dryRun: false, startedAt: at(7, 3) }, at(7, 3), 2)).toMatchObject({ generation: 3 });
  expect(stopped).toMatchObject({ running: false, generation: 2 });

  // Two sessions at most: the new one drops the oldest of before.
  await sessions.openSession({ idHash: 'hash-new', csrfToken: 'csrf-new', expiresAt: '2026-04-01T00:00:00.000Z' }, at(7, 4), 2);
  expect(await sessions.findSession('hash-live', at(7, 5))).toBeUndefined();
  expect(await sessions.findSession('hash-later', at(7, 5))).toBeDefined();
  expect(await sessions.findSession('hash-new', at(7, 5))).toEqual({ idHash: 'hash-new', csrfToken: 'csrf-new', expiresAt: '2026-04-01T00:00:00.000Z' });
}
