import { ManualClock, type Clock, type TimerHandle } from '@fxdesk/primitives';
import { describe, expect, it } from 'vitest';
import { SimulatedMarket } from '../src/simulated/market.js';
import type { Quote } from '../src/types.js';
import { WEDNESDAY_NOON, makeMarket } from './fixtures.js';

const MINUTE = 60_000;
const FRIDAY_CLOSE = Date.UTC(2026, 0, 9, 22, 0, 0);
const SUNDAY_OPEN = Date.UTC(2026, 0, 11, 22, 0, 0);

/** A manual clock whose timers fire `lateMs` after they were due, as a busy event loop does. */
class LateClock implements Clock {
  constructor(
    readonly inner: ManualClock,
    private readonly lateMs: number,
  ) {}
  now(): number {
    return this.inner.now();
  }
  setTimeout(fn: () => void, ms: number): TimerHandle {
    return this.inner.setTimeout(fn, ms + this.lateMs);
  }
  setInterval(fn: () => void, ms: number): TimerHandle {
    return this.inner.setInterval(fn, ms);
  }
  clearTimer(handle: TimerHandle): void {
    this.inner.clearTimer(handle);
  }
}

/** Every tick of every symbol with from < time ≤ to, in slot order, then table order. */
function expectedTicks(market: SimulatedMarket, from: number, to: number): Quote[] {
  const order = new Map(market.symbols().map((s, i) => [s.symbol, i]));
  return market
    .symbols()
    .flatMap((s) => market.ticksBetween(s.symbol, from + 1, to + 1))
    .sort((a, b) => a.time - b.time || order.get(a.symbol)! - order.get(b.symbol)!);
}

function record(market: SimulatedMarket): Quote[] {
  const ticks: Quote[] = [];
  market.onTick((tick) => ticks.push(tick));
  return ticks;
}

describe('live ticking', () => {
  it('emits every slot after start, in order, as the clock advances', () => {
    const { market, clock } = makeMarket();
    const ticks = record(market);
    market.start();
    clock.advance(2 * MINUTE);
    expect(ticks.length).toBeGreaterThan(100);
    expect(ticks).toEqual(expectedTicks(market, WEDNESDAY_NOON, WEDNESDAY_NOON + 2 * MINUTE));
  });

  it('catches up on slots a late timer skipped, losing and repeating none', () => {
    const clock = new ManualClock(WEDNESDAY_NOON);
    const market = new SimulatedMarket({ seed: 'test-seed', tickIntervalMs: 250, marketHours: true, clock: new LateClock(clock, 3_700) });
    const ticks = record(market);
    market.start();
    clock.advance(MINUTE);
    const expected = expectedTicks(market, WEDNESDAY_NOON, clock.now());
    // The last late timer may still be pending: every emitted tick is expected, in order, none twice.
    expect(ticks).toEqual(expected.slice(0, ticks.length));
    expect(ticks.length).toBeGreaterThan(expected.length * 0.9);
    clock.advance(10_000);
    expect(ticks.slice(0, expected.length)).toEqual(expected);
  });

  it('catches up the same way when the clock jumps ahead in one step', () => {
    const { market, clock } = makeMarket();
    const ticks = record(market);
    market.start();
    clock.set(WEDNESDAY_NOON + 90_000);
    clock.advance(0);
    expect(ticks).toEqual(expectedTicks(market, WEDNESDAY_NOON, WEDNESDAY_NOON + 90_000));
  });

  it('stops emitting after stop(), and resumes from the current slot on start()', () => {
    const { market, clock } = makeMarket();
    const ticks = record(market);
    market.start();
    clock.advance(10_000);
    market.stop();
    const count = ticks.length;
    clock.advance(20_000);
    expect(ticks.length).toBe(count);
    market.start();
    clock.advance(10_000);
    expect(ticks.slice(count)).toEqual(expectedTicks(market, WEDNESDAY_NOON + 30_000, WEDNESDAY_NOON + 40_000));
  });

  it('is silent over the weekend and resumes at the Sunday open', () => {
    const { market, clock } = makeMarket({ at: FRIDAY_CLOSE - MINUTE });
    const ticks = record(market);
    market.start();
    clock.advance(SUNDAY_OPEN + MINUTE - clock.now());
    expect(ticks.some((t) => t.time >= FRIDAY_CLOSE && t.time < SUNDAY_OPEN)).toBe(false);
    expect(ticks).toEqual(expectedTicks(market, FRIDAY_CLOSE - MINUTE, SUNDAY_OPEN + MINUTE));
    expect(ticks.at(-1)!.time).toBeGreaterThanOrEqual(SUNDAY_OPEN);
  });

  it('keeps ticking when a listener throws, reporting the error', () => {
    const errors: unknown[] = [];
    const { market, clock } = makeMarket({ onListenerError: (err) => errors.push(err) });
    market.onTick(() => {
      throw new Error('listener bug');
    });
    const ticks = record(market);
    market.start();
    clock.advance(5_000);
    expect(ticks.length).toBeGreaterThan(0);
    expect(errors.length).toBe(ticks.length);
  });

  it('stops delivering to a listener that unsubscribed', () => {
    const { market, clock } = makeMarket();
    const ticks: Quote[] = [];
    const unsubscribe = market.onTick((tick) => ticks.push(tick));
    market.start();
    clock.advance(5_000);
    unsubscribe();
    const count = ticks.length;
    clock.advance(5_000);
    expect(ticks.length).toBe(count);
  });

  it('is idempotent: starting twice does not double the ticks', () => {
    const { market, clock } = makeMarket();
    const ticks = record(market);
    market.start();
    market.start();
    clock.advance(5_000);
    expect(ticks).toEqual(expectedTicks(market, WEDNESDAY_NOON, WEDNESDAY_NOON + 5_000));
    expect(market.isRunning).toBe(true);
  });
});
