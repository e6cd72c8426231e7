import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RETCODE } from '../src/mt5-retcodes.js';
import type { SimulatedMarket } from '../src/simulated/market.js';
import { SimulatedTerminal } from '../src/simulated/terminal.js';
import type { TradeRequest } from '../src/terminal.js';
import type { Quote } from '../src/types.js';
import { makeMarket } from './fixtures.js';

const HOUR = 3_600_000;
const MAGIC = 11;

async function connectedTerminal(options: { historyLimit?: number } = {}) {
  const { market, clock } = makeMarket();
  const terminal = new SimulatedTerminal({ market, reconnectAfterMs: 0, balance: 1_000_000, ...options });
  await terminal.connect();
  return { market, clock, terminal };
}

function request(fields: Partial<TradeRequest>): TradeRequest {
  return { action: 'deal', symbol: 'EURUSD', type: 'buy', volume: '0.1', magic: MAGIC, comment: 'books', ...fields };
}

const points = (price: number) => Math.round(price * 1e5);
const price = (pts: number) => (pts / 1e5).toFixed(5);

/**
 * Two levels one tick reaches together, the lower one only by that tick: going down, the tick
 * is a new low at least two points under every earlier one, and under `cap` (points).
 */
function twoLevelsOneTick(ticks: Quote[], side: 'bid' | 'ask', cap: number): { tick: Quote; lower: number; higher: number } | undefined {
  let lowest = Number.POSITIVE_INFINITY;
  for (const tick of ticks) {
    const level = points(tick[side]);
    const higher = Math.min(lowest - 1, cap);
    if (level <= higher - 1) return { tick, lower: level, higher };
    lowest = Math.min(lowest, level);
  }
  return undefined;
}

/** Advances the clock by hours until the next two hours hold such a tick. */
function findTwoLevels(market: SimulatedMarket, advance: (ms: number) => void, side: 'bid' | 'ask', stopsLevel: number) {
  for (;;) {
    const now = market.clock.now();
    const ticks = market.ticksBetween('EURUSD', now + 1, now + 2 * HOUR + 1);
    const found = twoLevelsOneTick(ticks, side, points(market.lastTick('EURUSD')![side]) - stopsLevel);
    if (found) return found;
    advance(HOUR);
  }
}

describe('SimulatedTerminal trigger books', () => {
  it('activates the orders one tick triggers in the order they were placed, whatever their prices', async () => {
    const { market, clock, terminal } = await connectedTerminal();
    const { stopsLevel } = (await terminal.symbolInfo('EURUSD'))!;
    const { tick, lower, higher } = findTwoLevels(market, (ms) => clock.advance(ms), 'ask', stopsLevel);
    const first = await terminal.orderSend(request({ action: 'pending', type: 'buy_limit', price: price(lower), comment: 'placed-first' }));
    const second = await terminal.orderSend(request({ action: 'pending', type: 'buy_limit', price: price(higher), comment: 'placed-second' }));
    expect([first.retcode, second.retcode]).toEqual([RETCODE.PLACED, RETCODE.PLACED]);
    await clock.advanceAsync(2 * HOUR);
    const [dealFirst] = (await terminal.findByComment('placed-first', MAGIC)).filter((r) => r.kind === 'deal');
    const [dealSecond] = (await terminal.findByComment('placed-second', MAGIC)).filter((r) => r.kind === 'deal');
    expect([dealFirst!.time, dealSecond!.time]).toEqual([tick.time, tick.time]);
    expect(BigInt(dealFirst!.ticket)).toBeLessThan(BigInt(dealSecond!.ticket));
  });

  it('closes the positions one tick stops out in the order they were opened, whatever their levels', async () => {
    const { market, clock, terminal } = await connectedTerminal();
    const { stopsLevel } = (await terminal.symbolInfo('EURUSD'))!;
    const { tick, lower, higher } = findTwoLevels(market, (ms) => clock.advance(ms), 'bid', stopsLevel);
    const first = await terminal.orderSend(request({ sl: price(lower), comment: 'opened-first' }));
    const second = await terminal.orderSend(request({ sl: price(higher), comment: 'opened-second' }));
    await clock.advanceAsync(2 * HOUR);
    const closes = await terminal.findByComment('[sl', MAGIC);
    const closeOf = (position: string | null) => closes.find((r) => r.position === position)!;
    expect([closeOf(first.position).time, closeOf(second.position).time]).toEqual([tick.time, tick.time]);
    expect(BigInt(closeOf(first.position).ticket)).toBeLessThan(BigInt(closeOf(second.position).ticket));
    expect(await terminal.positions()).toEqual([]);
  });

  it('never fills an order after it expired, even when the market reaches its price later', async () => {
    const { market, clock, terminal } = await connectedTerminal();
    const { stopsLevel } = (await terminal.symbolInfo('EURUSD'))!;
    const { tick, higher } = findTwoLevels(market, (ms) => clock.advance(ms), 'ask', stopsLevel);
    const expiration = Math.floor((tick.time - 1_000) / 1000);
    expect(expiration * 1000).toBeGreaterThan(clock.now());
    await terminal.orderSend(request({ action: 'pending', type: 'buy_limit', price: price(higher), timeType: 'SPECIFIED', expiration, comment: 'expires' }));
    await clock.advanceAsync(2 * HOUR);
    const records = await terminal.findByComment('expires', MAGIC);
    expect(records.map((r) => `${r.kind} ${r.state}`)).toEqual(['order expired']);
  });

  it('values the account as the sum of its positions, however many and on whatever symbols', async () => {
    const deal = fc.record({
      symbol: fc.constantFrom('EURUSD', 'USDJPY', 'EURGBP', 'GBPJPY', 'XAUUSD'),
      type: fc.constantFrom('buy' as const, 'sell' as const),
      hundredths: fc.integer({ min: 1, max: 500 }),
      waitMs: fc.integer({ min: 0, max: 20 * 60_000 }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(deal, { minLength: 1, maxLength: 30 }), async (deals) => {
        const { market, clock, terminal } = await connectedTerminal();
        for (const d of deals) {
          const sent = await terminal.orderSend(request({ symbol: d.symbol, type: d.type, volume: (d.hundredths / 100).toFixed(2) }));
          expect(sent.retcode).toBe(RETCODE.DONE);
          clock.advance(d.waitMs);
        }
        const state = terminal.accountState();
        const positions = await terminal.positions();
        const profit = positions.reduce((sum, p) => sum + p.profit, 0);
        const margin = positions.reduce((sum, p) => {
          const spec = market.spec(p.symbol)!;
          return sum + ((Number(p.volume) * spec.contractSize) / 100) * market.rate(spec.base, 'USD')!;
        }, 0);
        expect(state.equity).toBeCloseTo(state.balance + profit, 6);
        expect(state.margin).toBeCloseTo(margin, 6);
        const check = await terminal.orderCheck(request({ volume: '0.01' }));
        expect(check.equity).toBeCloseTo(state.equity, 6);
      }),
      { numRuns: 25 },
    );
  });
});

describe('SimulatedTerminal history', () => {
  it('keeps the latest records up to its history limit for findByComment', async () => {
    const { terminal } = await connectedTerminal({ historyLimit: 4 });
    for (let i = 1; i <= 5; i++) await terminal.orderSend(request({ comment: `deal-${i}` }));
    const found = await terminal.findByComment('deal-', MAGIC);
    expect(found.map((r) => `${r.comment} ${r.kind}`)).toEqual(['deal-5 deal', 'deal-5 order', 'deal-4 deal', 'deal-4 order']);
  });

  it('still finds an order resting beyond the history limit', async () => {
    const { market, terminal } = await connectedTerminal({ historyLimit: 2 });
    const far = (market.lastTick('EURUSD')!.ask - 0.05).toFixed(5);
    await terminal.orderSend(request({ action: 'pending', type: 'buy_limit', price: far, comment: 'resting' }));
    for (let i = 0; i < 3; i++) await terminal.orderSend(request({ comment: 'filler' }));
    expect(await terminal.findByComment('resting', MAGIC)).toMatchObject([{ kind: 'order', state: 'placed' }]);
  });

  it('refuses a history limit below one', () => {
    const { market } = makeMarket();
    expect(() => new SimulatedTerminal({ market, historyLimit: 0 })).toThrow(RangeError);
  });
});
