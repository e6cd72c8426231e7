import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DAY_MS, MINUTE_MS } from '../src/simulated/market-hours.js';
import { SATURDAY_NOON, WEDNESDAY_NOON, makeMarket } from './fixtures.js';

const SYMBOLS = ['EURUSD', 'XAUUSD', 'AUDNZD'];

describe('SimulatedMarket.lastTick, asked again and again', () => {
  it('answers what a fresh market answers, for any sequence of instants', () => {
    const move = fc.oneof(
      fc.integer({ min: 0, max: 3_000 }),
      fc.integer({ min: -3_000, max: 0 }),
      fc.integer({ min: -2 * DAY_MS, max: 3 * DAY_MS }),
      fc.constant(0),
    );
    fc.assert(
      fc.property(
        fc.array(fc.tuple(move, fc.nat(SYMBOLS.length - 1)), { minLength: 1, maxLength: 40 }),
        fc.constantFrom(250, 1000, 7_000),
        (steps, tickIntervalMs) => {
          const { market } = makeMarket({ tickIntervalMs });
          let at = WEDNESDAY_NOON;
          for (const [delta, s] of steps) {
            at += delta;
            const symbol = SYMBOLS[s]!;
            expect(market.lastTick(symbol, at)).toEqual(makeMarket({ tickIntervalMs }).market.lastTick(symbol, at));
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('answers Friday’s last tick all weekend long, the same as a fresh market', () => {
    const { market } = makeMarket();
    const fresh = makeMarket().market.lastTick('EURUSD', SATURDAY_NOON);
    for (let at = SATURDAY_NOON - DAY_MS; at <= SATURDAY_NOON + DAY_MS; at += 7 * MINUTE_MS) market.lastTick('EURUSD', at);
    expect(market.lastTick('EURUSD', SATURDAY_NOON)).toEqual(fresh);
  });

  it('hands out a copy: changing an answer does not change the next one', () => {
    const { market } = makeMarket();
    const first = market.lastTick('EURUSD')!;
    const bid = first.bid;
    first.bid = 0;
    expect(market.lastTick('EURUSD')!.bid).toBe(bid);
  });
});
