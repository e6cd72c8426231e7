import type { Timeframe } from '@fxdesk/schemas';
import { describe, expect, it } from 'vitest';
import { SimulatedFeed } from '../src/simulated/feed.js';
import { SimulatedTerminal } from '../src/simulated/terminal.js';
import { runAll, WorkSlicer, type Steps } from '../src/simulated/work-slicer.js';
import { WEDNESDAY_NOON, makeMarket } from './fixtures.js';

const DAY = 86_400_000;

/** A slicer whose clock counts its own readings: a slice is about `sliceMs` steps, whatever the machine. */
function countingSlicer(sliceMs = 10): WorkSlicer {
  let readings = 0;
  return new WorkSlicer({ sliceMs, now: () => readings++ });
}

/** `promise`'s value and how many turns the event loop took until it settled. */
async function turnsUntil<T>(promise: Promise<T>): Promise<{ value: T; turns: number }> {
  let turns = 0;
  let isSettled = false;
  const turn = () => {
    if (isSettled) return;
    turns++;
    setImmediate(turn);
  };
  setImmediate(turn);
  const value = await promise;
  isSettled = true;
  return { value, turns };
}

/** Steps that note the turn of the loop each runs in (read from `turn()`), returning `result`. */
function* noting(turnOf: () => number, seen: number[], count: number, result: string): Steps<string> {
  for (let i = 0; i < count; i++) {
    seen.push(turnOf());
    yield;
  }
  return result;
}

describe('the work slicer', () => {
  it('answers what running the steps at once answers', async () => {
    const slicer = countingSlicer();
    expect(await slicer.run(noting(() => 0, [], 25, 'done'))).toBe(runAll(noting(() => 0, [], 25, 'done')));
  });

  it('runs no more than one slice and one step of all its jobs in one turn of the loop', async () => {
    const slicer = countingSlicer(10);
    let turn = 0;
    let isCounting = true;
    const count = () => {
      turn++;
      if (isCounting) setImmediate(count);
    };
    setImmediate(count);
    const seen: number[] = [];
    const results = await Promise.all([0, 1, 2].map((job) => slicer.run(noting(() => turn, seen, 40, `job ${job}`))));
    isCounting = false;
    expect(results).toEqual(['job 0', 'job 1', 'job 2']);
    const stepsPerTurn = new Map<number, number>();
    for (const t of seen) stepsPerTurn.set(t, (stepsPerTurn.get(t) ?? 0) + 1);
    expect(seen).toHaveLength(120);
    expect(Math.max(...stepsPerTurn.values())).toBeLessThanOrEqual(11);
  });

  it('gives each job its turn: a long job does not hold back a short one queued after it', async () => {
    const slicer = countingSlicer(10);
    const order: string[] = [];
    const long = slicer.run(noting(() => 0, [], 1000, 'long')).then((r) => order.push(r));
    const short = slicer.run(noting(() => 0, [], 5, 'short')).then((r) => order.push(r));
    await Promise.all([long, short]);
    expect(order).toEqual(['short', 'long']);
  });

  it('rejects a job whose step throws and goes on with the others', async () => {
    const slicer = countingSlicer();
    function* failing(): Steps<string> {
      yield;
      throw new RangeError('no such bar');
    }
    const [failed, other] = await Promise.allSettled([slicer.run(failing()), slicer.run(noting(() => 0, [], 30, 'other'))]);
    expect(failed).toMatchObject({ status: 'rejected', reason: new RangeError('no such bar') });
    expect(other).toEqual({ status: 'fulfilled', value: 'other' });
  });
});

describe('sliced history', () => {
  const cases: Array<{ timeframe: Timeframe; count: number; marketHours: boolean; tickIntervalMs: number }> = [
    { timeframe: 'M1', count: 300, marketHours: true, tickIntervalMs: 1000 },
    { timeframe: 'M5', count: 500, marketHours: true, tickIntervalMs: 250 },
    { timeframe: 'H1', count: 200, marketHours: false, tickIntervalMs: 1000 },
    { timeframe: 'H4', count: 120, marketHours: true, tickIntervalMs: 500 },
    { timeframe: 'D1', count: 60, marketHours: true, tickIntervalMs: 1000 },
    { timeframe: 'D1', count: 40, marketHours: false, tickIntervalMs: 3000 },
  ];

  for (const { timeframe, count, marketHours, tickIntervalMs } of cases) {
    it(`answers the bars of one build: ${count} ${timeframe}, ${tickIntervalMs} ms ticks, market hours ${marketHours ? 'on' : 'off'}`, async () => {
      const atMs = WEDNESDAY_NOON + 37 * 60_000 + 12_345;
      const sliced = makeMarket({ marketHours, tickIntervalMs, slicer: countingSlicer() }).market;
      const atOnce = makeMarket({ marketHours, tickIntervalMs }).market;
      expect(await sliced.barsSliced('GBPJPY', timeframe, count, atMs)).toEqual(atOnce.bars('GBPJPY', timeframe, count, atMs));
      const fromMs = atMs - count * 0.7 * (timeframe === 'D1' ? DAY : timeframe === 'H4' ? 4 * 3_600_000 : 3_600_000);
      const fresh = makeMarket({ marketHours, tickIntervalMs, slicer: countingSlicer() }).market;
      expect(await fresh.barsBetweenSliced('GBPJPY', timeframe, fromMs, atMs - DAY, count)).toEqual(
        atOnce.barsBetween('GBPJPY', timeframe, fromMs, atMs - DAY, count),
      );
    }, 60_000);
  }

  it('answers the same bars when several builds on one market run at once, with live ticking between their slices', async () => {
    const { market, clock } = makeMarket({ slicer: countingSlicer(3) });
    const reference = makeMarket().market;
    const atMs = clock.now();
    market.start();
    const builds = Promise.all([
      market.barsSliced('EURUSD', 'D1', 30, atMs),
      market.barsSliced('EURUSD', 'H4', 100, atMs),
      market.barsBetweenSliced('EURUSD', 'M5', atMs - 2 * DAY, atMs - DAY),
      market.barsSliced('USDJPY', 'H1', 150, atMs),
    ]);
    // The clock moves on meanwhile: the market emits ticks (and loads their minutes) between slices.
    const ticking = (async () => {
      for (let i = 0; i < 20; i++) {
        clock.advance(1000);
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    const [d1, h4, m5, h1] = await builds;
    await ticking;
    market.stop();
    expect(d1).toEqual(reference.bars('EURUSD', 'D1', 30, atMs));
    expect(h4).toEqual(reference.bars('EURUSD', 'H4', 100, atMs));
    expect(m5).toEqual(reference.barsBetween('EURUSD', 'M5', atMs - 2 * DAY, atMs - DAY));
    expect(h1).toEqual(reference.bars('USDJPY', 'H1', 150, atMs));
  }, 60_000);

  it('refuses a bad count or range as the build at once does', async () => {
    const { market } = makeMarket({ slicer: countingSlicer() });
    await expect(market.barsSliced('EURUSD', 'M1', -1)).rejects.toThrow(RangeError);
    await expect(market.barsSliced('NOPE', 'M1', 10)).rejects.toThrow(RangeError);
    await expect(market.barsBetweenSliced('EURUSD', 'M1', Number.NaN, WEDNESDAY_NOON)).rejects.toThrow(RangeError);
  });
});

describe('the simulated feed and terminal building a long history', () => {
  it("let the event loop turn while the feed builds a thousand D1 trendbars, and answer the market's bars", async () => {
    const { market, clock } = makeMarket({ marketHours: false, tickIntervalMs: 5000, slicer: countingSlicer() });
    const feed = new SimulatedFeed({ market });
    await feed.connect();
    const { value, turns } = await turnsUntil(feed.trendbars('EURUSD', 'D1', 1000));
    market.stop();
    expect(value).toEqual(makeMarket({ marketHours: false, tickIntervalMs: 5000 }).market.bars('EURUSD', 'D1', 1000, clock.now()));
    // A slice is ten steps (bars) here: a build at once would settle within a turn or two.
    expect(turns).toBeGreaterThan(50);
  }, 120_000);

  it('let the event loop turn while the feed builds D1 trendbars by range', async () => {
    const { market, clock } = makeMarket({ marketHours: false, tickIntervalMs: 5000, slicer: countingSlicer() });
    const feed = new SimulatedFeed({ market });
    await feed.connect();
    const fromMs = clock.now() - 800 * DAY;
    const { value, turns } = await turnsUntil(feed.trendbarsBetween('EURUSD', 'D1', fromMs, clock.now(), 1000));
    market.stop();
    // Cut where today's bar, still forming, starts.
    const reference = makeMarket({ marketHours: false, tickIntervalMs: 5000 }).market;
    expect(value).toEqual(reference.barsBetween('EURUSD', 'D1', fromMs, Math.floor(clock.now() / DAY) * DAY));
    expect(turns).toBeGreaterThan(40);
  }, 120_000);

  it('let the event loop turn while the terminal builds a thousand D1 rates', async () => {
    const { market, clock } = makeMarket({ marketHours: false, tickIntervalMs: 5000, slicer: countingSlicer() });
    const terminal = new SimulatedTerminal({ market });
    await terminal.connect();
    const { value, turns } = await turnsUntil(terminal.rates('EURUSD', 'D1', 1000));
    expect(value).toEqual(makeMarket({ marketHours: false, tickIntervalMs: 5000 }).market.bars('EURUSD', 'D1', 1000, clock.now()));
    expect(turns).toBeGreaterThan(50);
  }, 120_000);
});
