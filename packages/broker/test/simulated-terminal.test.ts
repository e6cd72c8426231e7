import { describe, expect, it } from 'vitest';
import { BrokerError } from '../src/errors.js';
import { RETCODE } from '../src/mt5-retcodes.js';
import { pointsToPrice, quoteToPoints } from '../src/mt5-rules.js';
import { parseFaultSpec } from '../src/simulated/faults.js';
import type { SimulatedMarket } from '../src/simulated/market.js';
import { SimulatedTerminal } from '../src/simulated/terminal.js';
import type { TradeRequest } from '../src/terminal.js';
import type { Quote } from '../src/types.js';
import { WEDNESDAY_NOON, connectedTerminal } from './fixtures.js';

const HOUR = 3_600_000;
const MAGIC = 7;

/** An EURUSD price as the terminal prints it (trailing zeros dropped). */
function priceText(price: number): string {
  return pointsToPrice(quoteToPoints(price, 5), 5);
}

/** The ticks of the next two hours and the one with the lowest ask. */
function lowestAhead(market: SimulatedMarket, from: number): { ticks: Quote[]; lowest: Quote } {
  const ticks = market.ticksBetween('EURUSD', from + 1, from + 2 * HOUR + 1);
  return { ticks, lowest: ticks.reduce((best, t) => (t.ask < best.ask ? t : best)) };
}

/** A call in flight, and whether it has settled after the queued callbacks ran. */
async function inFlight<T>(call: Promise<T>): Promise<{ call: Promise<T>; settled: boolean }> {
  let settled = false;
  const watched = call.finally(() => {
    settled = true;
  });
  await new Promise((resolve) => setImmediate(resolve));
  return { call: watched, settled };
}

function request(fields: Partial<TradeRequest>): TradeRequest {
  return { action: 'deal', symbol: 'EURUSD', type: 'buy', volume: '0.1', magic: MAGIC, comment: 'test', ...fields };
}

describe('SimulatedTerminal pending orders', () => {
  it('fills a buy limit on the first tick whose ask reaches it', async () => {
    const { market, clock, terminal } = await connectedTerminal();
    // Wait for a moment after which the market dips at least 20 points within two hours.
    let future = lowestAhead(market, clock.now());
    while (market.lastTick('EURUSD')!.ask - future.lowest.ask < 0.0002) {
      clock.advance(HOUR);
      future = lowestAhead(market, clock.now());
    }
    const { lowest } = future;
    const price = priceText(lowest.ask);
    const result = await terminal.orderSend(request({ action: 'pending', type: 'buy_limit', price, comment: 'limit-fill' }));
    expect(result.retcode).toBe(RETCODE.PLACED);
    await clock.advanceAsync(2 * HOUR);
    const records = await terminal.findByComment('limit-fill', MAGIC);
    const deal = records.find((r) => r.kind === 'deal')!;
    expect(records.find((r) => r.kind === 'order')!.state).toBe('filled');
    expect(deal).toMatchObject({ price, type: 'buy', position: result.order });
    expect(deal.time).toBe(future.ticks.find((t) => t.ask <= lowest.ask)!.time);
    expect((await terminal.positions()).map((p) => p.ticket)).toEqual([result.order]);
  });

  it('fills a buy stop on the first tick whose ask reaches it', async () => {
    const { market, clock, terminal } = await connectedTerminal();
    const future = market.ticksBetween('EURUSD', WEDNESDAY_NOON + 1, WEDNESDAY_NOON + 2 * HOUR + 1);
    const highest = future.reduce((best, t) => (t.ask > best.ask ? t : best));
    const result = await terminal.orderSend(request({ action: 'pending', type: 'buy_stop', price: highest.ask.toFixed(5), comment: 'stop-fill' }));
    expect(result.retcode).toBe(RETCODE.PLACED);
    await clock.advanceAsync(2 * HOUR);
    const deal = (await terminal.findByComment('stop-fill', MAGIC)).find((r) => r.kind === 'deal')!;
    expect(deal.time).toBe(future.find((t) => t.ask >= highest.ask)!.time);
  });

  it('lets a DAY order expire at the end of the UTC day', async () => {
    const { market, clock, terminal } = await connectedTerminal();
    const price = (market.lastTick('EURUSD')!.ask - 0.05).toFixed(5);
    await terminal.orderSend(request({ action: 'pending', type: 'buy_limit', price, timeType: 'DAY', comment: 'day' }));
    await clock.advanceAsync(12 * HOUR - 1);
    expect((await terminal.findByComment('day', MAGIC))[0]!.state).toBe('placed');
    await clock.advanceAsync(1);
    expect((await terminal.findByComment('day', MAGIC))[0]!.state).toBe('expired');
  });
});

describe('SimulatedTerminal positions', () => {
  it('closes a buy at the first bid at or below its stop loss, and books the loss', async () => {
    const { market, clock, terminal } = await connectedTerminal();
    const future = market.ticksBetween('EURUSD', WEDNESDAY_NOON + 1, WEDNESDAY_NOON + 3 * HOUR + 1);
    const lowest = future.reduce((best, t) => (t.bid < best.bid ? t : best));
    const sl = priceText(lowest.bid);
    const opened = await terminal.orderSend(request({ volume: '1', sl, comment: 'with-sl' }));
    expect(opened.retcode).toBe(RETCODE.DONE);
    await clock.advanceAsync(3 * HOUR);
    expect(await terminal.positions()).toEqual([]);
    const [closing] = await terminal.findByComment('[sl', MAGIC);
    expect(closing).toMatchObject({ kind: 'deal', type: 'sell', price: sl, position: opened.position, comment: `[sl ${sl}]` });
    expect(terminal.accountState().balance).toBeCloseTo(100_000 + (Number(sl) - Number(opened.price)) * 100_000, 6);
  });

  it('closes a sell at the first ask at or below its take profit', async () => {
    const { market, clock, terminal } = await connectedTerminal();
    const future = market.ticksBetween('EURUSD', WEDNESDAY_NOON + 1, WEDNESDAY_NOON + 3 * HOUR + 1);
    const lowest = future.reduce((best, t) => (t.ask < best.ask ? t : best));
    const opened = await terminal.orderSend(request({ type: 'sell', tp: lowest.ask.toFixed(5), comment: 'with-tp' }));
    expect(opened.retcode).toBe(RETCODE.DONE);
    await clock.advanceAsync(3 * HOUR);
    const [closing] = await terminal.findByComment('[tp', MAGIC);
    expect(closing!.time).toBe(future.find((t) => t.ask <= lowest.ask)!.time);
    expect(terminal.accountState().balance).toBeGreaterThan(100_000);
  });

  it('marks open positions to the market in equity and margin', async () => {
    const { terminal } = await connectedTerminal();
    await terminal.orderSend(request({ volume: '1' }));
    const state = terminal.accountState();
    expect(state.equity).toBeLessThan(state.balance);
    expect(state.margin).toBeGreaterThan(1000);
    expect(state.marginFree).toBeCloseTo(state.equity - state.margin, 6);
  });
});

describe('SimulatedTerminal rules', () => {
  it('answers 10017 when trading the symbol is disabled', async () => {
    const { terminal } = await connectedTerminal();
    terminal.setTradeMode('EURUSD', 'disabled');
    expect((await terminal.orderSend(request({}))).retcode).toBe(RETCODE.TRADE_DISABLED);
    expect((await terminal.symbolInfo('EURUSD'))!.tradeMode).toBe('disabled');
  });

  it('refuses a sell on a long-only symbol with 10042', async () => {
    const { terminal } = await connectedTerminal();
    terminal.setTradeMode('EURUSD', 'long_only');
    expect((await terminal.orderSend(request({ type: 'sell' }))).retcode).toBe(RETCODE.LONG_ONLY);
  });

  it('refuses a pending type sent as a deal with 10013', async () => {
    const { terminal } = await connectedTerminal();
    expect((await terminal.orderSend(request({ type: 'buy_limit' }))).retcode).toBe(RETCODE.INVALID);
  });

  it('requotes with 10004 when the price moved beyond the deviation', async () => {
    const { market, terminal } = await connectedTerminal();
    const stale = (market.lastTick('EURUSD')!.ask - 0.0005).toFixed(5);
    const result = await terminal.orderSend(request({ price: stale, deviation: 10 }));
    expect(result.retcode).toBe(RETCODE.REQUOTE);
    expect(result.ask).toBe(market.lastTick('EURUSD')!.ask);
    expect((await terminal.orderSend(request({ price: stale, deviation: 60 }))).retcode).toBe(RETCODE.DONE);
  });

  it('checks volumes with exact decimals', async () => {
    const { terminal } = await connectedTerminal();
    expect((await terminal.orderCheck(request({ volume: '0.29' }))).retcode).toBe(0);
    expect((await terminal.orderCheck(request({ volume: '0.290' }))).retcode).toBe(0);
    expect((await terminal.orderCheck(request({ volume: '0.291' }))).retcode).toBe(RETCODE.INVALID_VOLUME);
    expect((await terminal.orderCheck(request({ volume: '-1' }))).retcode).toBe(RETCODE.INVALID_VOLUME);
    expect((await terminal.orderCheck(request({ volume: 'lots' }))).retcode).toBe(RETCODE.INVALID_VOLUME);
  });

  it('refuses a price with more decimals than the symbol has with 10015', async () => {
    const { terminal } = await connectedTerminal();
    expect((await terminal.orderSend(request({ action: 'pending', type: 'buy_limit', price: '1.000001' }))).retcode).toBe(RETCODE.INVALID_PRICE);
  });

  it('fills a partial deal for what liquidity allows and reports the rest unfilled', async () => {
    const { terminal } = await connectedTerminal();
    const result = await terminal.orderSend(request({ volume: '25.5', filling: 'IOC', comment: 'big' }));
    expect(result).toMatchObject({ retcode: RETCODE.DONE_PARTIAL, volume: '20' });
    const records = await terminal.findByComment('big', MAGIC);
    expect(records.find((r) => r.kind === 'order')).toMatchObject({ volume: '25.5', state: 'partially_filled' });
    expect(records.find((r) => r.kind === 'deal')).toMatchObject({ volume: '20' });
  });

  it('truncates comments to 31 characters, as MT5 does', async () => {
    const { terminal } = await connectedTerminal();
    await terminal.orderSend(request({ comment: 'x'.repeat(40) }));
    const [record] = await terminal.findByComment('xxx', MAGIC);
    expect(record!.comment).toHaveLength(31);
  });

  it('issues increasing tickets, beyond those of a terminal created earlier', async () => {
    const { market, clock, terminal } = await connectedTerminal();
    const first = await terminal.orderSend(request({}));
    clock.advance(1_000);
    const restarted = new SimulatedTerminal({ market });
    await restarted.connect();
    const second = await restarted.orderSend(request({}));
    expect(BigInt(second.order!)).toBeGreaterThan(BigInt(first.deal!));
  });

  it('answers rates from the market bars', async () => {
    const { market, terminal } = await connectedTerminal();
    expect(await terminal.rates('EURUSD', 'M5', 20)).toEqual(market.bars('EURUSD', 'M5', 20));
    await expect(terminal.rates('NOPE', 'M5', 20)).rejects.toMatchObject({ kind: 'not_found' });
  });
});

describe('SimulatedTerminal faults and counters', () => {
  it('holds a hung order_send until released, then executes it', async () => {
    const { terminal } = await connectedTerminal();
    terminal.injectFault({ method: 'orderSend', kind: 'hang', times: 1 });
    const { call, settled } = await inFlight(terminal.orderSend(request({ comment: 'hung' })));
    expect(settled).toBe(false);
    expect(await terminal.findByComment('hung', MAGIC)).toEqual([]);
    expect(terminal.releaseHung()).toBe(1);
    expect((await call).retcode).toBe(RETCODE.DONE);
  });

  it('executes a stalled order_send at once and holds its answer until released', async () => {
    const { terminal } = await connectedTerminal();
    terminal.injectFault({ method: 'orderSend', kind: 'stall', times: 1 });
    const { call, settled } = await inFlight(terminal.orderSend(request({ comment: 'stalled' })));
    expect(settled).toBe(false);
    expect(await terminal.findByComment('stalled', MAGIC)).toMatchObject([{ kind: 'deal' }, { kind: 'order', state: 'filled' }]);
    expect(terminal.releaseHung()).toBe(1);
    expect((await call).retcode).toBe(RETCODE.DONE);
  });

  it('fails hung calls with disconnected when closed', async () => {
    const { terminal } = await connectedTerminal();
    terminal.injectFault({ method: 'orderCheck', kind: 'hang' });
    const pending = terminal.orderCheck(request({}));
    await terminal.close();
    await expect(pending).rejects.toMatchObject({ kind: 'disconnected' });
  });

  it('reconnects by itself after an injected disconnect when asked to', async () => {
    const { clock, terminal } = await connectedTerminal({ reconnectAfterMs: 5_000 });
    const changes: boolean[] = [];
    terminal.onConnectionChange((c) => changes.push(c));
    terminal.injectFault({ method: 'tick', kind: 'disconnect', times: 1 });
    await expect(terminal.tick('EURUSD')).rejects.toBeInstanceOf(BrokerError);
    clock.advance(5_000);
    expect(changes).toEqual([false, true]);
    expect(await terminal.tick('EURUSD')).not.toBeNull();
  });

  it('arms the faults given at construction, as SIM_TERMINAL_FAULTS does', async () => {
    const { terminal } = await connectedTerminal({ faults: parseFaultSpec('symbolInfo:timeout:1,orderSend:ambiguous:1') });
    await expect(terminal.symbolInfo('EURUSD')).rejects.toMatchObject({ kind: 'timeout' });
    expect(await terminal.symbolInfo('EURUSD')).not.toBeNull();
    await expect(terminal.orderSend(request({ comment: 'lost' }))).rejects.toMatchObject({ kind: 'timeout' });
    expect((await terminal.findByComment('lost', MAGIC)).length).toBe(2);
  });

  it('clears armed faults', async () => {
    const { terminal } = await connectedTerminal();
    terminal.injectFault({ method: 'orderSend', kind: 'timeout' });
    terminal.clearFaults();
    expect((await terminal.orderSend(request({}))).retcode).toBe(RETCODE.DONE);
  });

  it('counts calls, faulted ones included', async () => {
    const { terminal } = await connectedTerminal();
    terminal.injectFault({ method: 'orderSend', kind: 'timeout', times: 1 });
    await terminal.orderSend(request({})).catch(() => undefined);
    await terminal.orderSend(request({}));
    await terminal.orderCheck(request({}));
    expect(terminal.stats).toMatchObject({ orderSendCalls: 2, orderCheckCalls: 1, faultsTriggered: 1, ordersProcessed: 1 });
  });

  it('refuses every call while disconnected', async () => {
    const { terminal } = await connectedTerminal();
    terminal.setConnected(false);
    for (const call of [terminal.tick('EURUSD'), terminal.symbolInfo('EURUSD'), terminal.rates('EURUSD', 'M1', 1), terminal.findByComment('', 1)]) {
      await expect(call).rejects.toMatchObject({ kind: 'disconnected' });
    }
  });
});
