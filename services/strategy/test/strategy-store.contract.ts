/**
 * The contract the strategy's stores keep on every engine (store.test.ts on SQLite,
 * postgres-store.process.test.ts on a real PostgreSQL server).
 */
import { randomUUID } from 'node:crypto';
import type { JournalTrade, StrategySignal } from '@fxdesk/schemas';
import { storesClosedAfterEach } from '@fxdesk/core/testing';
import { describe, expect, it } from 'vitest';
import type { RiskState } from '@fxdesk/trading';
import type { DeskEvent, JournalCursor, PaperTrade, RunChange, StoredRisk, StrategyStores, StrategyStoresOptions } from '../src/store/index.js';
import { signalFixture } from './signal-fixture.js';

/** Opens the stores on one database; every call is another connection to the same data (another replica). */
export type OpenStore = (options?: Pick<StrategyStoresOptions, 'eventLogKeep'>) => Promise<StrategyStores>;

export interface StrategyStoreHarness {
  /** A fresh, empty database. */
  database(): Promise<OpenStore>;
}

const at = (second: number) => `2026-01-05T12:00:${String(second).padStart(2, '0')}.000Z`;

/** A signal with a fresh id, generated at second `second` of 12:00. */
function signalAt(second: number, over: Partial<StrategySignal> = {}): StrategySignal {
  return signalFixture({ signal_id: randomUUID(), generated_at: at(second), ...over });
}

const pending = {
  execution: { status: 'pending', code: null, message: null, tickets: null, attempts: 0, updated_at: null },
  notification: { status: 'pending', request_id: null, delivery_ids: [], message: null, attempts: 0, updated_at: null },
} as const satisfies Pick<StrategySignal, 'execution' | 'notification'>;

function tradeOf(signal: StrategySignal): PaperTrade {
  return {
    signalId: signal.signal_id,
    instrument: signal.instrument,
    side: 1,
    units: 10_000,
    entry: signal.entry_price,
    stopLoss: signal.stop_loss,
    takeProfit: signal.take_profit,
    candleTime: Date.parse(signal.candle_time) / 1000,
    openedAt: signal.generated_at,
  };
}

const started: RunChange = { running: true, instruments: ['EUR_USD', 'USD_JPY'], dryRun: true, startedAt: at(0) };

export function strategyStoreContract(name: string, harness: StrategyStoreHarness): void {
  describe(`strategy store contract: ${name}`, () => {
    const database = storesClosedAfterEach(() => harness.database());

    async function store(): Promise<StrategyStores> {
      return (await database())();
    }

    describe('signals', () => {
      it('stores a signal and reads it back as it was', async () => {
        const s = await store();
        const signal = signalAt(1);
        expect(await s.signals.insert(signal)).toBe(true);
        expect(await s.signals.find(signal.signal_id)).toEqual(signal);
        expect(await s.signals.find(randomUUID())).toBeUndefined();
      });

      it('stores a signal_id once: a second insert writes nothing and keeps the first', async () => {
        const s = await store();
        const signal = signalAt(1);
        await s.signals.insert(signal);
        expect(await s.signals.insert({ ...signal, generated_at: at(2), entry_price: 1.2 })).toBe(false);
        expect(await s.signals.find(signal.signal_id)).toEqual(signal);
        expect((await s.signals.page({ limit: 10 })).signals).toHaveLength(1);
      });

      it('lets exactly one of 50 simultaneous inserts of one signal_id through, spread over two replicas', async () => {
        const open = await database();
        const replicas = [await open(), await open()];
        const signal = signalAt(1);
        const results = await Promise.all(Array.from({ length: 50 }, (_, i) => replicas[i % 2]!.signals.insert(signal, tradeOf(signal))));
        expect(results.filter(Boolean)).toHaveLength(1);
        expect((await replicas[0]!.signals.page({ limit: 10 })).signals).toHaveLength(1);
        expect(await replicas[1]!.paperTrades.openPaperTrades()).toHaveLength(1);
      });

      it('finds the latest signal of a pair, the newest generated_at, and whether a pair has any', async () => {
        const s = await store();
        expect(await s.signals.lastSignalTime()).toBeUndefined();
        expect(await s.signals.latest('EUR_USD')).toBeUndefined();
        const [first, second, other] = [signalAt(1), signalAt(2), signalAt(3, { instrument: 'USD_JPY', symbol: 'USDJPY' })];
        for (const signal of [first, second, other]) await s.signals.insert(signal);
        expect(await s.signals.latest('EUR_USD')).toEqual(second);
        expect(await s.signals.latest('USD_JPY')).toEqual(other);
        expect(await s.signals.lastSignalTime()).toBe(at(3));
        expect(await s.signals.hasInstrument('USD_JPY')).toBe(true);
        expect(await s.signals.hasInstrument('GBP_USD')).toBe(false);
      });

      it('counts the signals of a UTC day and those since an instant', async () => {
        const s = await store();
        await s.signals.insert(signalAt(1, { generated_at: '2026-01-04T23:59:59.999Z' }));
        for (const second of [0, 1, 2]) await s.signals.insert(signalAt(second));
        expect(await s.signals.countOnDay('2026-01-05')).toBe(3);
        expect(await s.signals.countOnDay('2026-01-04')).toBe(1);
        expect(await s.signals.countOnDay('2026-01-06')).toBe(0);
        expect(await s.signals.countSince(at(1))).toBe(2);
        expect(await s.signals.countSince(at(3))).toBe(0);
      });

      it('pages newest first, by instrument too, to the last page', async () => {
        const s = await store();
        const signals = [0, 1, 2, 3, 4].map((second) => signalAt(second, second % 2 ? { instrument: 'USD_JPY', symbol: 'USDJPY' } : {}));
        for (const signal of signals) await s.signals.insert(signal);
        const newestFirst = [...signals].reverse();
        const first = await s.signals.page({ limit: 2 });
        expect(first.signals).toEqual(newestFirst.slice(0, 2));
        const second = await s.signals.page({ limit: 2, before: first.nextBefore as number });
        expect(second.signals).toEqual(newestFirst.slice(2, 4));
        const last = await s.signals.page({ limit: 2, before: second.nextBefore as number });
        expect(last).toEqual({ signals: newestFirst.slice(4), nextBefore: null });
        expect((await s.signals.page({ limit: 10, instrument: 'USD_JPY' })).signals).toEqual(newestFirst.filter((x) => x.instrument === 'USD_JPY'));
        expect(await s.signals.page({ limit: 2, instrument: 'GBP_USD' })).toEqual({ signals: [], nextBefore: null });
      });

      it('keeps the outcomes of the order and the announcement, and lists what is unfinished, oldest first', async () => {
        const s = await store();
        const [a, b, c] = [signalAt(1, pending), signalAt(2, pending), signalAt(3)];
        for (const signal of [a, b, c]) await s.signals.insert(signal);
        expect((await s.signals.unfinished()).map((x) => x.signal_id)).toEqual([a.signal_id, b.signal_id]);
        const filled = { ...pending.execution, status: 'filled' as const, tickets: { order: '1', deal: '2', position: '1' }, attempts: 1, updated_at: at(4) };
        await s.signals.updateExecution(a, filled);
        expect(await s.signals.unfinished()).toEqual([{ ...a, execution: filled }, b]);
        const sent = { ...pending.notification, status: 'sent' as const, request_id: 'r1', delivery_ids: ['d1'], attempts: 1, updated_at: at(5) };
        await s.signals.updateNotification(a, sent);
        expect(await s.signals.find(a.signal_id)).toEqual({ ...a, execution: filled, notification: sent });
        expect((await s.signals.unfinished()).map((x) => x.signal_id)).toEqual([b.signal_id]);
      });

      it('finds the signal that opened each position by its ticket, however old, on any replica', async () => {
        const open = await database();
        const [a, b] = [await open(), await open()];
        const filledWith = (position: string) => ({
          ...pending.execution,
          status: 'filled' as const,
          tickets: { order: position, deal: position, position },
          attempts: 1,
          updated_at: at(4),
        });
        // A year old, and one of now; one with no position, one rejected.
        const old = signalFixture({ signal_id: randomUUID(), generated_at: '2025-01-06T12:00:00.000Z', ...pending });
        const [recent, unsent] = [signalAt(2, pending), signalAt(3, pending)];
        for (const signal of [old, recent, unsent]) await a.signals.insert(signal);
        await a.signals.updateExecution(old, filledWith('70001'));
        await a.signals.updateExecution(recent, filledWith('70002'));
        await a.signals.updateExecution(unsent, { ...pending.execution, status: 'rejected', code: 'invalid_stops', attempts: 1, updated_at: at(4) });
        const found = await b.signals.byPositions(['70002', '70001', '99999']);
        expect([...found].sort()).toEqual([
          ['70001', { ...old, execution: filledWith('70001') }],
          ['70002', { ...recent, execution: filledWith('70002') }],
        ]);
        expect(await b.signals.byPositions([])).toEqual(new Map());
        // More tickets than one statement takes.
        const many = Array.from({ length: 1200 }, (_, i) => String(80_000 + i));
        expect([...(await b.signals.byPositions([...many, '70001'])).keys()]).toEqual(['70001']);
      });

      it('keeps its signals across a reopen', async () => {
        const open = await database();
        const first = await open();
        const signal = signalAt(1);
        await first.signals.insert(signal);
        await first.close();
        expect(await (await open()).signals.find(signal.signal_id)).toEqual(signal);
      });
    });

    describe('the run', () => {
      it('has none before the first start', async () => {
        expect(await (await store()).runs.runState()).toBeUndefined();
      });

      it('records a start, a stop and a restart, one generation each', async () => {
        const s = await store();
        expect(await s.runs.recordRun(started, at(0), 0)).toEqual({ ...started, changedAt: at(0), generation: 1 });
        // A stop keeps the mode of the run it ends, and when it was recorded.
        const stopped = { ...started, running: false };
        expect(await s.runs.recordRun(stopped, at(5), 1)).toEqual({ ...stopped, changedAt: at(5), generation: 2 });
        expect(await s.runs.runState()).toEqual({ ...stopped, changedAt: at(5), generation: 2 });
        const restarted = { ...started, startedAt: at(9) };
        expect(await s.runs.recordRun(restarted, at(9), 2)).toEqual({ ...restarted, changedAt: at(9), generation: 3 });
        expect(await s.runs.runState()).toEqual({ ...restarted, changedAt: at(9), generation: 3 });
      });

      it('refuses a change made over a generation that is no longer the last, writing nothing', async () => {
        const s = await store();
        await s.runs.recordRun(started, at(0), 0);
        expect(await s.runs.recordRun({ ...started, running: false }, at(1), 0)).toBeUndefined();
        await s.runs.recordRun({ ...started, running: false }, at(2), 1);
        expect(await s.runs.recordRun({ ...started, dryRun: false }, at(3), 1)).toBeUndefined();
        expect(await s.runs.runState()).toEqual({ ...started, running: false, changedAt: at(2), generation: 2 });
      });

      it('records exactly one of 20 simultaneous starts spread over two replicas', async () => {
        const open = await database();
        const replicas = [await open(), await open()];
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, i) => replicas[i % 2]!.runs.recordRun({ ...started, instruments: [`EUR_USD`, `I_${i}`] }, at(0), 0)),
        );
        const recorded = results.filter((r) => r !== undefined);
        expect(recorded).toHaveLength(1);
        expect(await replicas[1]!.runs.runState()).toEqual(recorded[0]);
      });
    });

    describe('paper trades', () => {
      it('opens a dry_run signal’s trade with it, closes it once and sums the realized P/L', async () => {
        const s = await store();
        const [a, b] = [signalAt(1), signalAt(2, { instrument: 'USD_JPY', symbol: 'USDJPY' })];
        await s.signals.insert(a, tradeOf(a));
        await s.signals.insert(b, tradeOf(b));
        expect(await s.paperTrades.openPaperTrades()).toEqual([tradeOf(a), tradeOf(b)]);
        expect(await s.paperTrades.realizedPaperPnl()).toBe(0);
        await s.paperTrades.closePaperTrade(a.signal_id, 1.102, 20, at(9));
        await s.paperTrades.closePaperTrade(a.signal_id, 1.099, -10, at(10));
        await s.paperTrades.closePaperTrade(b.signal_id, 1.098, -20.5, at(11));
        expect(await s.paperTrades.openPaperTrades()).toEqual([]);
        expect(await s.paperTrades.realizedPaperPnl()).toBe(-0.5);
      });

      it('opens no trade for a signal already stored', async () => {
        const s = await store();
        const signal = signalAt(1);
        await s.signals.insert(signal);
        expect(await s.signals.insert(signal, tradeOf(signal))).toBe(false);
        expect(await s.paperTrades.openPaperTrades()).toEqual([]);
      });
    });

    describe('the trade journal', () => {
      const journaled = (n: number, over: Partial<JournalTrade> = {}): JournalTrade => ({
        id: `paper:${n}`,
        account: 'paper',
        signal_id: null,
        position: null,
        instrument: 'EUR_USD',
        side: 'LONG',
        volume_lots: 0.1,
        entry_time: at(0),
        entry_price: 1.085,
        exit_time: at(n),
        exit_price: 1.086,
        exit_reason: 'target',
        pnl: 10,
        commission: -0.7,
        swap: 0,
        r_multiple: 1.5,
        duration_seconds: n,
        ...over,
      });

      it('journals a trade once under its id, however many replicas record it, and reads it back as it was', async () => {
        const open = await database();
        const [a, b] = [await open(), await open()];
        const trade = journaled(7, { id: 'live:123', account: 'live', position: '123', signal_id: randomUUID(), r_multiple: null, swap: -1.25 });
        const recorded = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).journal.record(trade)));
        expect(recorded.filter(Boolean)).toHaveLength(1);
        expect((await b.journal.page({}, 10)).trades).toEqual([trade]);
        expect(await a.journal.has('live:123')).toBe(true);
      });

      it('pages newest exit first without a gap or a duplicate, and filters by account, pair, side, reason and exit time', async () => {
        const store = await (await database())();
        // Recorded out of exit order (a live trade journaled late), two with the same exit time.
        const order = [5, 1, 9, 3, 3, 7, 2, 8];
        for (const [k, second] of order.entries()) {
          await store.journal.record(
            journaled(second, {
              id: `t${k}`,
              account: k % 2 ? 'live' : 'paper',
              side: second > 4 ? 'SHORT' : 'LONG',
              exit_reason: second === 3 ? 'stop' : 'target',
            }),
          );
        }
        const seen: string[] = [];
        let before: JournalCursor | undefined;
        do {
          const page = await store.journal.page({}, 3, before);
          seen.push(...page.trades.map((t) => `${Date.parse(t.exit_time) % 60_000}:${t.id}`));
          before = page.next ?? undefined;
        } while (before);
        expect(seen).toHaveLength(order.length);
        expect(new Set(seen).size).toBe(order.length);
        const exits = seen.map((s) => Number(s.split(':')[0]));
        expect(exits).toEqual([...exits].sort((x, y) => y - x));
        expect((await store.journal.page({ account: 'live' }, 50)).trades.every((t) => t.account === 'live')).toBe(true);
        expect((await store.journal.page({ side: 'SHORT' }, 50)).trades.map((t) => t.id).sort()).toEqual(['t0', 't2', 't5', 't7']);
        expect((await store.journal.page({ exitReason: 'stop' }, 50)).trades.map((t) => t.id).sort()).toEqual(['t3', 't4']);
        const window = await store.journal.page({ fromMs: Date.parse(at(3)), toMs: Date.parse(at(7)) }, 50);
        expect(window.trades.map((t) => t.id).sort()).toEqual(['t0', 't3', 't4']);
        expect((await store.journal.page({ instrument: 'USD_JPY' }, 50)).trades).toEqual([]);
      });

      it('sums the P/L of an account over a range, and knows its first exit', async () => {
        const store = await (await database())();
        expect(await store.journal.firstExitMs('paper')).toBeUndefined();
        await store.journal.record(journaled(2, { id: 'a', pnl: 12.5 }));
        await store.journal.record(journaled(4, { id: 'b', pnl: -3.25 }));
        await store.journal.record(journaled(6, { id: 'c', pnl: 100, account: 'live' }));
        expect(await store.journal.pnlSum('paper', 0)).toBe(9.25);
        expect(await store.journal.pnlSum('paper', Date.parse(at(3)))).toBe(-3.25);
        expect(await store.journal.pnlSum('paper', 0, Date.parse(at(3)))).toBe(12.5);
        expect(await store.journal.firstExitMs('paper')).toBe(Date.parse(at(2)));
      });

      it('lists the trades whose exit is not announced yet in the order journaled, and none once kept, on another replica too', async () => {
        const open = await database();
        const [a, b] = [await open(), await open()];
        for (const [id, second] of [
          ['t1', 9],
          ['t2', 3],
          ['t3', 5],
        ] as const)
          await a.journal.record(journaled(second, { id }));
        expect((await b.journal.unannounced(2)).map((t) => t.id)).toEqual(['t1', 't2']);
        expect(await b.journal.unannounced(1)).toEqual([journaled(9, { id: 't1' })]);
        await b.journal.markAnnounced('t1', 'sent');
        await a.journal.markAnnounced('t3', 'refused');
        expect((await a.journal.unannounced(10)).map((t) => t.id)).toEqual(['t2']);
      });

      it("sums each account's trades of an exit range: how many, the wins, the P/L and the R multiples", async () => {
        const store = await (await database())();
        await store.journal.record(journaled(2, { id: 'a', pnl: 10, r_multiple: 1.5 }));
        await store.journal.record(journaled(4, { id: 'b', pnl: -4, r_multiple: -1 }));
        await store.journal.record(journaled(6, { id: 'c', pnl: 5, r_multiple: null, account: 'live' }));
        await store.journal.record(journaled(8, { id: 'd', pnl: 99 }));
        expect(await store.journal.totals(Date.parse(at(2)), Date.parse(at(8)))).toEqual([
          { account: 'live', trades: 1, wins: 1, pnl: 5, rMultiples: 0 },
          { account: 'paper', trades: 2, wins: 1, pnl: 6, rMultiples: 0.5 },
        ]);
        expect(await store.journal.totals(Date.parse(at(9)), Date.parse(at(20)))).toEqual([]);
      });
    });

    describe('announcements', () => {
      const filledAt = (second: number) =>
        ({ ...pending.execution, status: 'filled', tickets: { order: '1', deal: '2', position: '1' }, attempts: 1, updated_at: at(second) }) as const;

      it('lists the live fills not announced yet, oldest first, each once its signal is announced, and none once kept', async () => {
        const open = await database();
        const [a, b] = [await open(), await open()];
        const live = signalAt(1, { dry_run: false, execution: filledAt(1) });
        const partly = signalAt(2, { dry_run: false, execution: { ...filledAt(2), status: 'partially_filled' } });
        const rejected = signalAt(3, { dry_run: false, execution: { ...pending.execution, status: 'rejected', code: 'invalid_stops' } });
        const unsent = signalAt(4, { dry_run: false, ...pending });
        for (const signal of [live, partly, rejected, unsent]) await a.signals.insert(signal);
        expect((await b.signals.unannouncedFills(10)).map((s) => s.signal_id)).toEqual([live.signal_id, partly.signal_id]);
        await b.signals.markFillAnnounced(live.signal_id, 'sent');
        await a.signals.updateExecution(unsent, filledAt(5));
        expect(await a.signals.unannouncedFills(1)).toEqual([partly]);
        await a.signals.markFillAnnounced(partly.signal_id, 'skipped');
        expect(await b.signals.unannouncedFills(10)).toEqual([]);
        await a.signals.updateNotification(unsent, {
          ...pending.notification,
          status: 'sent',
          request_id: 'r1',
          delivery_ids: ['d1'],
          attempts: 1,
          updated_at: at(6),
        });
        expect((await b.signals.unannouncedFills(10)).map((s) => s.signal_id)).toEqual([unsent.signal_id]);
      });

      it('lists the paper trades entered whose fill is not announced yet, with the fill, and none once kept', async () => {
        const s = await store();
        const [entered, waiting] = [signalAt(1), signalAt(2, { instrument: 'USD_JPY', symbol: 'USDJPY' })];
        await s.signals.insert(entered, tradeOf(entered));
        await s.signals.insert(waiting, tradeOf(waiting));
        const entryTime = Date.parse(at(3)) / 1000;
        const fill = { ...tradeOf(entered), entry: 1.10012, entryTime };
        await s.paperTrades.keep({
          ...fill,
          stop: entered.stop_loss,
          stopReason: 'stop',
          candlesHeld: 0,
          lastCandleTime: entryTime,
          closing: null,
          volumeLots: 0.1,
        });
        expect(await s.paperTrades.unannouncedFills(10)).toEqual([{ ...fill, volumeLots: 0.1 }]);
        await s.paperTrades.markFillAnnounced(entered.signal_id, 'off');
        expect(await s.paperTrades.unannouncedFills(10)).toEqual([]);
      });

      it('records a day summarized once, whichever replica records it, and knows the last', async () => {
        const open = await database();
        const [a, b] = [await open(), await open()];
        expect(await a.dailySummaries.lastDay()).toBeUndefined();
        await a.dailySummaries.record('2026-01-04', 'before', at(1));
        await Promise.all([a.dailySummaries.record('2026-01-05', 'announced', at(2)), b.dailySummaries.record('2026-01-05', 'off', at(2))]);
        expect(await b.dailySummaries.lastDay()).toBe('2026-01-05');
      });
    });

    describe('the risk state', () => {
      const state = (over: Partial<RiskState> = {}): RiskState => ({
        halt: null,
        equityPeak: 10_000,
        day: '2026-01-05',
        dayStartEquity: 10_000,
        consecutiveLosses: 0,
        cooldownUntil: null,
        ...over,
      });
      const book = (over: Partial<StoredRisk> = {}): StoredRisk => ({
        state: state(),
        open: [{ id: 'paper:1', entry: { instrument: 'EUR_USD', side: 1, lots: 0.1 } }],
        equity: { ms: Date.parse(at(1)), value: 9_950.5 },
        resumes: 0,
        flattenedHalt: null,
        ...over,
      });
      const halt = { reason: 'daily_loss_limit', at: Date.parse(at(2)), detail: 'lost 300.00 of the day’s 10000.00: the limit is 3%' } as const;
      const announcement = (key: string) => ({ key, account: 'paper', subject: `subject ${key}`, message: `message ${key}` }) as const;
      const resumeOf = (stored: StoredRisk | undefined) =>
        stored?.state.halt ? { risk: { ...stored, state: { ...stored.state, halt: null } }, announcement: announcement('resume:paper:3') } : null;

      it('keeps each account’s book and reads it back on another replica; an account never written is absent', async () => {
        const open = await database();
        const [a, b] = [await open(), await open()];
        expect(await b.risk.riskStates()).toEqual({});
        expect(await a.risk.saveRisk('paper', book(), at(1))).toBe(true);
        expect(await a.risk.saveRisk('paper', book({ equity: null, open: [] }), at(2))).toBe(true);
        expect(await b.risk.riskStates()).toEqual({ paper: book({ equity: null, open: [] }) });
      });

      it('keeps a halt with its announcement, listed once until it is marked, a second one of the same key kept once', async () => {
        const s = await store();
        const halted = book({ state: state({ halt }) });
        expect(await s.risk.saveRiskAnnounced('paper', halted, at(2), announcement('halt:paper:2'))).toBe(true);
        expect(await s.risk.saveRiskAnnounced('paper', halted, at(2), announcement('halt:paper:2'))).toBe(true);
        expect(await s.risk.riskStates()).toEqual({ paper: halted });
        expect(await s.risk.unannounced(10)).toEqual([announcement('halt:paper:2')]);
        // Its flatten answered, kept with the book.
        expect(await s.risk.saveRisk('paper', { ...halted, flattenedHalt: halt.at }, at(3))).toBe(true);
        expect((await s.risk.riskStates()).paper?.flattenedHalt).toBe(halt.at);
        await s.risk.markAnnounced('halt:paper:2', 'sent');
        expect(await s.risk.unannounced(10)).toEqual([]);
      });

      it('resumes a halted book on any replica, and a write over the count of before changes nothing', async () => {
        const open = await database();
        const [leader, follower] = [await open(), await open()];
        await leader.risk.saveRiskAnnounced('paper', book({ state: state({ halt }) }), at(2), announcement('halt:paper:2'));
        const resumed = await follower.risk.resumeRisk('paper', at(3), resumeOf);
        expect(resumed).toEqual(book({ resumes: 1 }));
        expect(await leader.risk.saveRisk('paper', book({ state: state({ halt, equityPeak: 11_000 }) }), at(4))).toBe(false);
        expect(await leader.risk.saveRiskAnnounced('paper', book({ state: state({ halt }) }), at(4), announcement('halt:paper:4'))).toBe(false);
        expect(await leader.risk.riskStates()).toEqual({ paper: book({ resumes: 1 }) });
        expect((await leader.risk.unannounced(10)).map((a) => a.key)).toEqual(['halt:paper:2', 'resume:paper:3']);
        expect(await leader.risk.saveRisk('paper', book({ resumes: 1, equity: null }), at(5))).toBe(true);
      });

      it('resumes nothing that is not halted', async () => {
        const s = await store();
        expect(await s.risk.resumeRisk('live', at(1), resumeOf)).toBeNull();
        await s.risk.saveRisk('live', book(), at(1));
        expect(await s.risk.resumeRisk('live', at(2), resumeOf)).toBeNull();
        expect(await s.risk.riskStates()).toEqual({ live: book() });
        expect(await s.risk.unannounced(10)).toEqual([]);
      });
    });

    describe('the desk’s event log', () => {
      const filled = { ...pending.execution, status: 'filled' as const, tickets: { order: '1', deal: '2', position: '1' }, attempts: 1, updated_at: at(4) };
      const sent = { ...pending.notification, status: 'sent' as const, request_id: 'r1', delivery_ids: ['d1'], attempts: 1, updated_at: at(5) };

      it('logs a signal, its order and its announcement with the writes that make them, numbered 1, 2, 3, read alike on another replica', async () => {
        const open = await database();
        const [a, b] = [await open(), await open()];
        expect(await b.events.lastEventSeq()).toBe(0);
        const signal = signalAt(1, pending);
        await a.signals.insert(signal);
        await a.signals.insert(signal);
        await a.signals.updateExecution(signal, filled);
        await a.signals.updateNotification(signal, sent);
        // An outcome of a signal the store does not hold changes nothing, and logs nothing.
        await a.signals.updateExecution(signalAt(2), filled);
        const ref = { signal_id: signal.signal_id, instrument: signal.instrument };
        expect(await b.events.eventsAfter(0, 10)).toEqual([
          { seq: 1, name: 'signal', data: JSON.stringify(signal) },
          { seq: 2, name: 'order', data: JSON.stringify({ ...ref, execution: filled }) },
          { seq: 3, name: 'delivery', data: JSON.stringify({ ...ref, notification: sent }) },
        ]);
        expect(await b.events.eventsAfter(1, 1)).toEqual([expect.objectContaining({ seq: 2 })]);
        expect(await b.events.eventsAfter(3, 10)).toEqual([]);
        expect(await b.events.lastEventSeq()).toBe(3);
      });

      it('logs an event with a key once, however many replicas log it', async () => {
        const open = await database();
        const replicas = [await open(), await open()];
        const candle = { name: 'candle' as const, key: 'EUR_USD|M5|2026-01-05T12:00:00.000Z', data: '{"instrument":"EUR_USD"}' };
        await Promise.all(Array.from({ length: 10 }, (_, i) => replicas[i % 2]!.events.appendEvents([candle])));
        await replicas[0]!.events.appendEvents([{ name: 'lab', data: '{"id":"b1"}' }]);
        expect(await replicas[1]!.events.eventsAfter(0, 10)).toEqual([
          { seq: 1, name: 'candle', data: candle.data },
          { seq: 2, name: 'lab', data: '{"id":"b1"}' },
        ]);
      });

      it('logs several events in one write, in their order, a key once even within it', async () => {
        const s = await store();
        const candle = { name: 'candle' as const, key: 'k', data: 'c' };
        await s.events.appendEvents([{ name: 'lab', data: '1' }, candle, { name: 'lab', data: '2' }, candle]);
        expect((await s.events.eventsAfter(0, 10))?.map((e) => [e.seq, e.name, e.data])).toEqual([
          [1, 'lab', '1'],
          [2, 'candle', 'c'],
          [3, 'lab', '2'],
        ]);
      });

      it('numbers 40 events logged at once on two replicas with no gap, each readable only after those before it', async () => {
        const open = await database();
        const [a, b, reader] = [await open(), await open(), await open()];
        const read: DeskEvent[] = [];
        let isDone = false;
        const reading = (async () => {
          while (!isDone || read.length < 40) {
            // Only a read begun after every write committed may end the loop: one begun before may miss the last.
            const afterWrites = isDone;
            const events = (await reader.events.eventsAfter(read.at(-1)?.seq ?? 0, 100)) ?? [];
            read.push(...events);
            if (afterWrites && events.length === 0) break;
            // A SQLite read answers within the turn: the writers' group commit runs in the next one.
            await new Promise((resolve) => setImmediate(resolve));
          }
        })();
        await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).events.appendEvents([{ name: 'lab', data: String(i) }])));
        isDone = true;
        await reading;
        expect(read.map((e) => e.seq)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
        expect(read.map((e) => Number(e.data)).sort((x, y) => x - y)).toEqual(Array.from({ length: 40 }, (_, i) => i));
      });

      it('keeps the newest events, and says when those after a seq are no longer all kept', async () => {
        const s = await (await database())({ eventLogKeep: 3 });
        for (let i = 1; i <= 5; i++) await s.events.appendEvents([{ name: 'lab', data: String(i) }]);
        expect((await s.events.eventsAfter(2, 10))?.map((e) => e.seq)).toEqual([3, 4, 5]);
        expect(await s.events.eventsAfter(1, 10)).toBeUndefined();
        expect(await s.events.eventsAfter(5, 10)).toEqual([]);
        expect(await s.events.lastEventSeq()).toBe(5);
      });
    });

    it('keeps the leader’s view of the services it calls for every replica', async () => {
      const open = await database();
      const [a, b] = [await open(), await open()];
      expect(await b.downstream.downstreamStates()).toEqual({});
      const failing = {
        configured: true,
        state: 'failing' as const,
        last_success_at: at(1),
        last_error: { at: at(2), code: 'timeout', message: 'no answer' },
        consecutive_failures: 2,
      };
      await a.downstream.saveDownstream('execution', { ...failing, state: 'ok', last_error: null, consecutive_failures: 0 });
      await a.downstream.saveDownstream('execution', failing);
      expect(await b.downstream.downstreamStates()).toEqual({ execution: failing });
    });

    describe('console sessions', () => {
      const session = (n: number, expiresAt = at(59)) => ({ idHash: `hash-${n}`, csrfToken: `csrf-${n}`, expiresAt });

      it('finds a session opened on one replica from another until it expires, and ends it for both', async () => {
        const open = await database();
        const [a, b] = [await open(), await open()];
        await a.sessions.openSession(session(1, at(30)), at(0), 200);
        expect(await b.sessions.findSession('hash-1', at(29))).toEqual(session(1, at(30)));
        expect(await b.sessions.findSession('hash-1', at(30))).toBeUndefined();
        expect(await b.sessions.findSession('hash-2', at(0))).toBeUndefined();
        await b.sessions.endSession('hash-1');
        expect(await a.sessions.findSession('hash-1', at(0))).toBeUndefined();
      });

      it('keeps the newest `max` sessions, dropping the expired ones first', async () => {
        const s = await store();
        await s.sessions.openSession(session(1, at(10)), at(0), 3);
        for (const n of [2, 3, 4]) await s.sessions.openSession(session(n), at(0), 3);
        expect(await s.sessions.findSession('hash-1', at(0))).toBeUndefined();
        for (const n of [2, 3, 4]) expect(await s.sessions.findSession(`hash-${n}`, at(0))).toBeDefined();
        // At 12:00:20 session 1 would have expired anyway; 2 and 3 are the oldest live ones.
        await s.sessions.openSession(session(5), at(20), 3);
        expect(await s.sessions.findSession('hash-2', at(20))).toBeUndefined();
        for (const n of [3, 4, 5]) expect(await s.sessions.findSession(`hash-${n}`, at(20))).toBeDefined();
      });

      it('keeps no more than `max` sessions when 30 logins arrive at once on two replicas', async () => {
        const open = await database();
        const replicas = [await open(), await open()];
        await Promise.all(Array.from({ length: 30 }, (_, i) => replicas[i % 2]!.sessions.openSession(session(i), at(0), 5)));
        const live = await Promise.all(Array.from({ length: 30 }, (_, i) => replicas[0]!.sessions.findSession(`hash-${i}`, at(0))));
        expect(live.filter(Boolean)).toHaveLength(5);
      });

      it('gives every replica the first secret stored, whatever each proposes', async () => {
        const open = await database();
        const replicas = [await open(), await open()];
        const secrets = await Promise.all(Array.from({ length: 10 }, (_, i) => replicas[i % 2]!.sessions.consoleSecret(`secret-${i}`)));
        expect(new Set(secrets).size).toBe(1);
        expect(await replicas[1]!.sessions.consoleSecret('another')).toBe(secrets[0]);
      });
    });

    it('is healthy while its database answers', async () => {
      expect(await (await store()).health()).toMatchObject({ ok: true });
    });
  });
}
