/**
 * The contract every SimulatedTerminalStore passes: a simulated terminal built again on a store
 * reopened after the last one closed shows the account its predecessor showed at that instant.
 * The in-memory store of the broker tests and the execution service's SQLite file both run it.
 */
import type { ManualClock } from '@fxdesk/primitives';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RETCODE } from '../../src/mt5-retcodes.js';
import type { SimulatedMarket } from '../../src/simulated/market.js';
import { SimulatedTerminal } from '../../src/simulated/terminal.js';
import type { SimulatedTerminalStore } from '../../src/simulated/terminal-store.js';
import type { TradeRequest } from '../../src/terminal.js';
import { makeMarket } from '../fixtures.js';

export interface SimulatedTerminalStoreHarness {
  /** Opens the storage: after `close()`, a second open reads what the first one saved. */
  open(): SimulatedTerminalStore;
  /** Closes what `open()` returned last, as a process that stops would. */
  close(): void;
  teardown(): void;
}

const HOUR = 3_600_000;
const MAGIC = 31;

function request(fields: Partial<TradeRequest>): TradeRequest {
  return { action: 'deal', symbol: 'EURUSD', type: 'buy', volume: '0.1', magic: MAGIC, comment: 'store', ...fields };
}

/** Later than any deal of a test. */
const FAR_FUTURE = Date.UTC(2100, 0, 1);

/** Everything the terminal shows of its account, its deals with their profit and reason included. */
async function accountOf(terminal: SimulatedTerminal) {
  return {
    state: terminal.accountState(),
    positions: await terminal.positions(),
    records: await terminal.findByComment('', MAGIC),
    deals: await terminal.deals({ from: 0, to: FAR_FUTURE }),
  };
}

/** A sell whose take profit the next three hours reach, and a buy limit they fill. */
async function tradeIntoTheNextHours(terminal: SimulatedTerminal, market: SimulatedMarket, now: number): Promise<void> {
  const future = market.ticksBetween('EURUSD', now + 1, now + 3 * HOUR + 1);
  const lowestAsk = future.reduce((best, t) => (t.ask < best.ask ? t : best)).ask.toFixed(5);
  expect((await terminal.orderSend(request({ type: 'sell', volume: '1', tp: lowestAsk, comment: 'take-profit' }))).retcode).toBe(RETCODE.DONE);
  const limit = await terminal.orderSend(request({ action: 'pending', type: 'buy_limit', price: lowestAsk, comment: 'limit' }));
  expect(limit.retcode).toBe(RETCODE.PLACED);
}

export function simulatedTerminalStoreContract(name: string, setup: () => SimulatedTerminalStoreHarness): void {
  describe(`SimulatedTerminalStore contract: ${name}`, () => {
    let h: SimulatedTerminalStoreHarness;
    let market: SimulatedMarket;
    let clock: ManualClock;

    beforeEach(() => {
      h = setup();
      ({ market, clock } = makeMarket());
    });

    afterEach(() => {
      h.close();
      h.teardown();
    });

    async function terminalOn(store: SimulatedTerminalStore, historyLimit?: number): Promise<SimulatedTerminal> {
      const terminal = new SimulatedTerminal({ market, store, balance: 100_000, reconnectAfterMs: 0, historyLimit });
      await terminal.connect();
      return terminal;
    }

    /** Closes the storage and builds a terminal on it again, as a restart does. */
    function restart(historyLimit?: number): Promise<SimulatedTerminal> {
      h.close();
      return terminalOn(h.open(), historyLimit);
    }

    it('starts a terminal on storage that holds nothing with the starting balance', async () => {
      const terminal = await terminalOn(h.open());
      expect(terminal.accountState().balance).toBe(100_000);
      expect(await terminal.positions()).toEqual([]);
    });

    it('shows a restarted terminal the balance, positions, resting orders and history of the one before it', async () => {
      const first = await terminalOn(h.open());
      await tradeIntoTheNextHours(first, market, clock.now());
      const far = (market.lastTick('EURUSD')!.ask - 0.05).toFixed(5);
      await first.orderSend(request({ action: 'pending', type: 'buy_limit', price: far, comment: 'resting' }));
      await clock.advanceAsync(3 * HOUR);
      await first.orderSend(request({ volume: '0.5', sl: far, comment: 'open' }));
      const before = await accountOf(first);
      expect(before.state.balance).not.toBe(100_000);
      expect(before.positions.map((p) => p.comment)).toEqual(['limit', 'open']);
      expect(before.records.find((r) => r.comment === 'resting')).toMatchObject({ state: 'placed' });

      expect(await accountOf(await restart())).toEqual(before);
    });

    it('applies the ticks since the last save as the terminal before the restart did', async () => {
      const first = await terminalOn(h.open());
      await tradeIntoTheNextHours(first, market, clock.now());
      await clock.advanceAsync(3 * HOUR);
      // Reading the account applies the ticks in memory; nothing saves them.
      const ranOn = await accountOf(first);
      h.close();
      expect(ranOn.records.some((r) => r.comment.startsWith('[tp '))).toBe(true);
      expect(ranOn.records.find((r) => r.comment === 'limit' && r.kind === 'order')).toMatchObject({ state: 'filled' });
      expect(ranOn.deals.find((d) => d.reason === 'tp')).toMatchObject({ entry: 'out', side: 'buy' });

      expect(await accountOf(await terminalOn(h.open()))).toEqual(ranOn);
    });

    it('holds no order that left the book and no position that closed before the last save', async () => {
      const first = await terminalOn(h.open());
      await tradeIntoTheNextHours(first, market, clock.now());
      await clock.advanceAsync(3 * HOUR);
      await first.orderSend(request({ comment: 'after' }));
      h.close();

      const saved = h.open().load()!;
      expect(saved.resting).toEqual([]);
      expect(saved.positions.map((p) => p.comment)).toEqual(['limit', 'after']);
    });

    it('continues the tickets of a restarted terminal where the one before it stopped', async () => {
      const first = await terminalOn(h.open());
      await first.orderSend(request({}));
      const last = await first.orderSend(request({}));
      clock.advance(60_000);
      const next = await (await restart()).orderSend(request({}));
      expect(BigInt(next.order!)).toBe(BigInt(last.deal!) + 1n);
    });

    it('finds the latest records up to the history limit, and the orders still resting, before and after a restart', async () => {
      const first = await terminalOn(h.open(), 2);
      const far = (market.lastTick('EURUSD')!.ask - 0.05).toFixed(5);
      await first.orderSend(request({ action: 'pending', type: 'buy_limit', price: far, comment: 'resting' }));
      for (let i = 1; i <= 3; i++) await first.orderSend(request({ comment: `filler-${i}` }));
      const latest = ['filler-3 deal', 'filler-3 order', 'resting order'];
      expect((await first.findByComment('', MAGIC)).map((r) => `${r.comment} ${r.kind}`)).toEqual(latest);

      const deals = async (terminal: SimulatedTerminal) => (await terminal.deals({ from: 0, to: FAR_FUTURE })).map((d) => d.comment);
      expect(await deals(first)).toEqual(['filler-3']);

      const restarted = await restart(2);
      expect((await restarted.findByComment('', MAGIC)).map((r) => `${r.comment} ${r.kind}`)).toEqual(latest);
      expect(await deals(restarted)).toEqual(['filler-3']);
      expect((await restarted.findByComment('filler-2', MAGIC)).map((r) => `${r.comment} ${r.kind}`)).toEqual([]);
    });

    it('finds records made since the last save, as they are now', async () => {
      const first = await terminalOn(h.open());
      await tradeIntoTheNextHours(first, market, clock.now());
      // Three hours of ticks fill the limit and take the profit; nothing saves them until the next order_send.
      await clock.advanceAsync(3 * HOUR);
      const found = (await first.findByComment('', MAGIC)).map((r) => `${r.comment} ${r.kind} ${r.state}`);
      expect(found).toContain('limit order filled');
      expect(found.some((r) => r.startsWith('[tp '))).toBe(true);
    });

    it('drops records beyond the history limit from storage, at its own pace', async () => {
      const first = await terminalOn(h.open(), 3);
      // 1 200 deals, 2 400 records: more than a store lets pass before it trims.
      for (let i = 0; i < 1_200; i++) await first.orderSend(request({ volume: '0.01', comment: `n-${i}` }));
      h.close();
      const reopened = h.open();
      const everything = reopened.findRecords('', MAGIC, 1_000_000);
      expect(everything.length).toBeGreaterThanOrEqual(3);
      expect(everything.length).toBeLessThan(2_400);
      expect(
        reopened
          .findRecords('', MAGIC, 3)
          .map((r) => r.comment)
          .sort(),
      ).toEqual(['n-1198', 'n-1199', 'n-1199']);
      // 1 200 order_sends, each durable before it answers: seconds on a store that syncs to disk.
    }, 60_000);

    it('expires a resting order of a restarted terminal at its expiration', async () => {
      const first = await terminalOn(h.open());
      const far = (market.lastTick('EURUSD')!.ask - 0.05).toFixed(5);
      const expiration = (clock.now() + 2 * HOUR) / 1000;
      await first.orderSend(request({ action: 'pending', type: 'buy_limit', price: far, timeType: 'SPECIFIED', expiration, comment: 'expiring' }));

      const restarted = await restart();
      await clock.advanceAsync(2 * HOUR - 1);
      expect(await restarted.findByComment('expiring', MAGIC)).toMatchObject([{ state: 'placed' }]);
      await clock.advanceAsync(1);
      expect(await restarted.findByComment('expiring', MAGIC)).toMatchObject([{ state: 'expired' }]);
    });
  });
}
