import type { ManualClock } from '@fxdesk/primitives';
import { describe, expect, it } from 'vitest';
import { BrokerError } from '../src/errors.js';
import { RETCODE } from '../src/mt5-retcodes.js';
import type { SimulatedMarket } from '../src/simulated/market.js';
import { SimulatedTerminal } from '../src/simulated/terminal.js';
import type { ClosePositionRequest, TradeRequest } from '../src/terminal.js';
import type { Quote } from '../src/types.js';
import { WEDNESDAY_NOON, connectedTerminal, makeMarket } from './fixtures.js';
import { MemoryTerminalStore } from './memory-terminal-store.js';

const HOUR = 3_600_000;
const MAGIC = 9;
/** EURUSD's stops level and freeze level on the simulated terminal, in points (0.00001). */
const STOPS_LEVEL = 10;
const FREEZE_LEVEL = 5;
const POINT = 0.00001;

function request(fields: Partial<TradeRequest>): TradeRequest {
  return { action: 'deal', symbol: 'EURUSD', type: 'buy', volume: '1', magic: MAGIC, comment: 'open', ...fields };
}

function closeOf(position: string, volume: string, comment = 'close'): ClosePositionRequest {
  return { position, volume, magic: MAGIC, comment };
}

async function open(terminal: SimulatedTerminal, fields: Partial<TradeRequest> = {}) {
  const opened = await terminal.orderSend(request(fields));
  expect(opened.retcode).toBe(RETCODE.DONE);
  return { ticket: opened.position!, price: Number(opened.price) };
}

const price = (value: number) => value.toFixed(5);

/** The first tick of the next `hours` at which `gapOf` falls under the freeze level, when it is still above 0 there. */
function tickInsideFreeze(market: SimulatedMarket, from: number, gapOf: (tick: Quote) => number, hours = 6): Quote | undefined {
  const tick = market.ticksBetween('EURUSD', from + 1, from + hours * HOUR).find((t) => Math.round(gapOf(t) / POINT) < FREEZE_LEVEL);
  return tick && Math.round(gapOf(tick) / POINT) > 0 ? tick : undefined;
}

/** Lets the clock run to a moment where `place` puts a level that a later tick brings inside the freeze level without reaching it. */
async function untilInsideFreeze<T>(
  clock: ManualClock,
  market: SimulatedMarket,
  place: (now: Quote) => Promise<{ placed: T; gapOf: (tick: Quote) => number }>,
): Promise<{ placed: T; tick: Quote }> {
  for (let attempt = 0; attempt < 48; attempt++) {
    const { placed, gapOf } = await place(market.lastTick('EURUSD')!);
    const tick = tickInsideFreeze(market, clock.now(), gapOf);
    if (tick) {
      await clock.advanceAsync(tick.time - clock.now());
      return { placed, tick };
    }
    await clock.advanceAsync(HOUR);
  }
  throw new Error('no tick came inside the freeze level');
}

describe('SimulatedTerminal closes', () => {
  it('closes a buy at the bid and books its profit to the balance', async () => {
    const { market, clock, terminal } = await connectedTerminal();
    const { ticket, price: openPrice } = await open(terminal);
    await clock.advanceAsync(HOUR / 2);
    const { bid } = market.lastTick('EURUSD')!;
    const result = await terminal.closePosition(closeOf(ticket, '1'));
    expect(result).toMatchObject({ retcode: RETCODE.DONE, position: ticket, volume: '1', price: String(Number(price(bid))) });
    expect(terminal.accountState().balance).toBeCloseTo(100_000 + (bid - openPrice) * 100_000, 6);
    expect(await terminal.positions()).toEqual([]);
  });

  it('closes a sell at the ask', async () => {
    const { market, clock, terminal } = await connectedTerminal();
    const { ticket } = await open(terminal, { type: 'sell' });
    await clock.advanceAsync(HOUR / 2);
    const { ask } = market.lastTick('EURUSD')!;
    expect((await terminal.closePosition(closeOf(ticket, '1'))).price).toBe(String(Number(price(ask))));
  });

  it('records the close as an order and a deal of the other side, under the close request’s comment and magic', async () => {
    const { terminal } = await connectedTerminal();
    const { ticket } = await open(terminal);
    const result = await terminal.closePosition({ ...closeOf(ticket, '0.4', 'manual-exit'), magic: 77 });
    const records = await terminal.findByComment('manual-exit', 77);
    expect(records.map((r) => [r.kind, r.ticket, r.type, r.volume, r.position, r.state])).toEqual([
      ['deal', result.deal, 'sell', '0.4', ticket, 'filled'],
      ['order', result.order, 'sell', '0.4', ticket, 'filled'],
    ]);
  });

  it('books only the closed part of a partial close and keeps the rest with its stop, which later closes it', async () => {
    const { market, clock, terminal } = await connectedTerminal();
    const future = market.ticksBetween('EURUSD', WEDNESDAY_NOON + 1, WEDNESDAY_NOON + 3 * HOUR + 1);
    const sl = future.reduce((best, t) => (t.bid < best.bid ? t : best)).bid;
    const { ticket, price: openPrice } = await open(terminal, { sl: price(sl) });
    const { bid } = market.lastTick('EURUSD')!;
    expect((await terminal.closePosition(closeOf(ticket, '0.4'))).retcode).toBe(RETCODE.DONE);
    const partial = (bid - openPrice) * 40_000;
    expect(terminal.accountState().balance).toBeCloseTo(100_000 + partial, 6);
    expect(await terminal.positions()).toMatchObject([{ ticket, volume: '0.6', sl: String(sl) }]);

    await clock.advanceAsync(3 * HOUR);
    expect(await terminal.positions()).toEqual([]);
    expect(terminal.accountState().balance).toBeCloseTo(100_000 + partial + (sl - openPrice) * 60_000, 6);
  });

  it('values the account with what a partial close left open', async () => {
    const { terminal } = await connectedTerminal();
    const { ticket } = await open(terminal);
    await open(terminal, { symbol: 'USDJPY', type: 'sell', volume: '0.3' });
    await terminal.closePosition(closeOf(ticket, '0.25'));
    const state = terminal.accountState();
    const positions = await terminal.positions();
    expect(state.equity).toBeCloseTo(state.balance + positions.reduce((sum, p) => sum + p.profit, 0), 6);
  });

  it('refuses a close while the symbol is disabled with 10017, and makes one on a close-only symbol', async () => {
    const { terminal } = await connectedTerminal();
    const { ticket } = await open(terminal);
    terminal.setTradeMode('EURUSD', 'disabled');
    expect((await terminal.closePosition(closeOf(ticket, '1'))).retcode).toBe(RETCODE.TRADE_DISABLED);
    terminal.setTradeMode('EURUSD', 'close_only');
    expect((await terminal.closePosition(closeOf(ticket, '1'))).retcode).toBe(RETCODE.DONE);
  });
});

describe('SimulatedTerminal stops and cancels', () => {
  it('closes a position at a stop loss set after it opened', async () => {
    const { market, clock, terminal } = await connectedTerminal();
    const future = market.ticksBetween('EURUSD', WEDNESDAY_NOON + 1, WEDNESDAY_NOON + 3 * HOUR + 1);
    const lowest = future.reduce((best, t) => (t.bid < best.bid ? t : best));
    const { ticket } = await open(terminal);
    expect((await terminal.modifyPosition({ position: ticket, sl: price(lowest.bid), tp: null })).retcode).toBe(RETCODE.DONE);
    await clock.advanceAsync(3 * HOUR);
    const [closing] = await terminal.findByComment('[sl', MAGIC);
    expect(closing).toMatchObject({ position: ticket, time: future.find((t) => t.bid <= lowest.bid)!.time });
  });

  it('no longer closes a position at a stop loss that was moved away', async () => {
    const { market, clock, terminal } = await connectedTerminal();
    const future = market.ticksBetween('EURUSD', WEDNESDAY_NOON + 1, WEDNESDAY_NOON + 3 * HOUR + 1);
    const lowest = future.reduce((best, t) => (t.bid < best.bid ? t : best));
    const { ticket } = await open(terminal, { sl: price(lowest.bid) });
    await terminal.modifyPosition({ position: ticket, sl: price(lowest.bid - 0.01), tp: null });
    await clock.advanceAsync(3 * HOUR);
    expect((await terminal.positions()).map((p) => p.ticket)).toEqual([ticket]);
  });

  it('refuses to move the stops of a position whose stop loss is inside the freeze level with 10029', async () => {
    const { market, clock, terminal } = await connectedTerminal();
    const { placed: ticket, tick } = await untilInsideFreeze(clock, market, async (now) => {
      const sl = now.bid - STOPS_LEVEL * POINT;
      const { ticket: opened } = await open(terminal, { sl: price(sl) });
      return { placed: opened, gapOf: (t) => t.bid - sl };
    });
    expect((await terminal.modifyPosition({ position: ticket, sl: price(tick.bid - 0.002), tp: null })).retcode).toBe(RETCODE.FROZEN);
  });

  it('refuses to cancel a resting order inside the freeze level with 10029', async () => {
    const { market, clock, terminal } = await connectedTerminal();
    const { placed: order } = await untilInsideFreeze(clock, market, async (now) => {
      const limit = now.ask - STOPS_LEVEL * POINT;
      const placed = await terminal.orderSend(request({ action: 'pending', type: 'buy_limit', price: price(limit), volume: '0.1' }));
      expect(placed.retcode).toBe(RETCODE.PLACED);
      return { placed: placed.order!, gapOf: (t) => t.ask - limit };
    });
    expect((await terminal.cancelOrder({ order })).retcode).toBe(RETCODE.FROZEN);
  });

  it('refuses a cancel while the market is closed with 10018', async () => {
    const { market, clock, terminal } = await connectedTerminal();
    const placed = await terminal.orderSend(request({ action: 'pending', type: 'buy_limit', price: price(market.lastTick('EURUSD')!.ask - 0.05) }));
    await clock.advanceAsync(3 * 24 * HOUR);
    expect((await terminal.cancelOrder({ order: placed.order! })).retcode).toBe(RETCODE.MARKET_CLOSED);
  });

  it('counts the calls it receives', async () => {
    const { terminal } = await connectedTerminal();
    const { ticket } = await open(terminal);
    await terminal.positions();
    await terminal.orders({ symbol: 'EURUSD' });
    await terminal.modifyPosition({ position: ticket, sl: null, tp: null });
    await terminal.closePosition(closeOf(ticket, '1'));
    await terminal.cancelOrder({ order: ticket });
    expect(terminal.stats).toMatchObject({ positionsCalls: 1, ordersCalls: 1, modifyPositionCalls: 1, closePositionCalls: 1, cancelOrderCalls: 1 });
  });
});

describe('SimulatedTerminal on a store, after entry', () => {
  it('shows a restarted terminal the book that closes, a partial close, a modification and a cancel left', async () => {
    const { market, clock } = makeMarket();
    const store = new MemoryTerminalStore();
    const first = new SimulatedTerminal({ market, store });
    await first.connect();
    const far = price(market.lastTick('EURUSD')!.ask - 0.05);
    const closed = await open(first, { comment: 'closed' });
    const partial = await open(first, { comment: 'partial' });
    const moved = await open(first, { comment: 'moved' });
    const kept = await first.orderSend(request({ action: 'pending', type: 'buy_limit', price: far, comment: 'kept' }));
    const cancelled = await first.orderSend(request({ action: 'pending', type: 'buy_limit', price: far, comment: 'cancelled' }));
    await clock.advanceAsync(HOUR / 4);
    await first.closePosition(closeOf(closed.ticket, '1'));
    await first.closePosition(closeOf(partial.ticket, '0.3'));
    await first.modifyPosition({ position: moved.ticket, sl: far, tp: null });
    await first.cancelOrder({ order: cancelled.order! });
    const book = async (terminal: SimulatedTerminal) => ({
      account: terminal.accountState(),
      positions: await terminal.positions(),
      orders: await terminal.orders(),
      records: await terminal.findByComment('', MAGIC),
    });
    const before = await book(first);
    expect(before.positions.map((p) => `${p.comment} ${p.volume} ${p.sl}`)).toEqual(['partial 0.7 null', `moved 1 ${String(Number(far))}`]);
    expect(before.orders.map((o) => o.ticket)).toEqual([kept.order]);

    const restarted = new SimulatedTerminal({ market, store });
    await restarted.connect();
    expect(await book(restarted)).toEqual(before);
  });

  it('fails a close it could not save as ambiguous, and saves it with the next call that trades', async () => {
    const { market } = makeMarket();
    const store = new MemoryTerminalStore();
    const terminal = new SimulatedTerminal({ market, store });
    await terminal.connect();
    const { ticket } = await open(terminal);
    store.failures = 1;
    const failed = await terminal.closePosition(closeOf(ticket, '1')).catch((err: unknown) => err);
    expect(failed).toBeInstanceOf(BrokerError);
    expect((failed as BrokerError).isAmbiguous).toBe(true);
    await open(terminal, { comment: 'next' });

    const restarted = new SimulatedTerminal({ market, store });
    await restarted.connect();
    expect((await restarted.positions()).map((p) => p.comment)).toEqual(['next']);
  });
});
