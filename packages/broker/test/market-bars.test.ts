import { TIMEFRAME_SECONDS, type Timeframe } from '@fxdesk/schemas';
import { describe, expect, it } from 'vitest';
import type { Bar, Quote } from '../src/types.js';
import { WEDNESDAY_NOON, makeMarket } from './fixtures.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const FRIDAY_CLOSE = Date.UTC(2026, 0, 9, 22, 0, 0);
const SUNDAY_OPEN = Date.UTC(2026, 0, 11, 22, 0, 0);

/** The bar the ticks make: OHLC of the bids, tick count, smallest spread in points. */
function barOfTicks(ticks: Quote[], digits: number): Omit<Bar, 'time' | 'closed'> {
  return {
    open: ticks[0]!.bid,
    high: ticks.reduce((high, t) => Math.max(high, t.bid), Number.NEGATIVE_INFINITY),
    low: ticks.reduce((low, t) => Math.min(low, t.bid), Number.POSITIVE_INFINITY),
    close: ticks.at(-1)!.bid,
    tickVolume: ticks.length,
    spread: ticks.reduce((min, t) => Math.min(min, Math.round((t.ask - t.bid) * 10 ** digits)), Number.POSITIVE_INFINITY),
  };
}

/** The bar that smaller bars aggregate to. */
function barOfBars(bars: Bar[]): Omit<Bar, 'time' | 'closed'> {
  return {
    open: bars[0]!.open,
    high: Math.max(...bars.map((b) => b.high)),
    low: Math.min(...bars.map((b) => b.low)),
    close: bars.at(-1)!.close,
    tickVolume: bars.reduce((sum, b) => sum + b.tickVolume, 0),
    spread: Math.min(...bars.map((b) => b.spread!)),
  };
}

function withoutTimeAndFlag({ time: _time, closed: _closed, ...rest }: Bar): Omit<Bar, 'time' | 'closed'> {
  return rest;
}

describe('bars', () => {
  it('make each M1 bar from the ticks of its minute', () => {
    const { market } = makeMarket();
    const bars = market.bars('EURUSD', 'M1', 30, WEDNESDAY_NOON);
    for (const bar of bars.filter((b) => b.closed)) {
      const ticks = market.ticksBetween('EURUSD', bar.time * 1000, bar.time * 1000 + MINUTE);
      expect(withoutTimeAndFlag(bar)).toEqual(barOfTicks(ticks, 5));
    }
  });

  it.each(['M5', 'M15', 'M30', 'H1', 'H4', 'D1'] as Timeframe[])('aggregate %s bars from the M1 bars they span', (timeframe) => {
    const { market } = makeMarket();
    const sizeMs = TIMEFRAME_SECONDS[timeframe] * 1000;
    const at = WEDNESDAY_NOON + 7 * MINUTE;
    const [bar] = market
      .bars('USDJPY', timeframe, 2, at)
      .filter((b) => b.closed)
      .slice(-1);
    const start = bar!.time * 1000;
    const minutes = market
      .bars('USDJPY', 'M1', Math.ceil((at - start) / MINUTE) + 1, at)
      .filter((m) => m.time * 1000 >= start && m.time * 1000 < start + sizeMs);
    expect(minutes[0]!.time * 1000 - start).toBeLessThan(5 * MINUTE);
    expect(withoutTimeAndFlag(bar!)).toEqual(barOfBars(minutes));
  });

  it.each([
    ['EURUSD', 1000],
    ['XAUUSD', 250],
    ['GBPJPY', 500],
    ['EURNZD', 3000],
  ] as const)('equal a plain aggregation of every tick in the period (%s, %i ms ticks)', (symbol, tickIntervalMs) => {
    const { market } = makeMarket({ tickIntervalMs });
    const digits = market.spec(symbol)!.digits;
    for (const [timeframe, count] of [
      ['D1', 3],
      ['H4', 4],
      ['H1', 6],
      ['M15', 8],
      ['M5', 8],
    ] as [Timeframe, number][]) {
      for (const bar of market.bars(symbol, timeframe, count).filter((b) => b.closed)) {
        const ticks = market.ticksBetween(symbol, bar.time * 1000, (bar.time + TIMEFRAME_SECONDS[timeframe]) * 1000);
        expect(withoutTimeAndFlag(bar), `${timeframe} ${bar.time}`).toEqual(barOfTicks(ticks, digits));
      }
    }
  });

  it('flag the bar still forming and build it from the ticks so far', () => {
    const { market } = makeMarket();
    const at = WEDNESDAY_NOON + 17 * MINUTE + 31_500;
    const bars = market.bars('XAUUSD', 'H1', 5, at);
    const forming = bars.at(-1)!;
    expect(forming.closed).toBe(false);
    expect(forming.time * 1000).toBe(WEDNESDAY_NOON);
    expect(bars.slice(0, -1).every((b) => b.closed)).toBe(true);
    expect(withoutTimeAndFlag(forming)).toEqual(barOfTicks(market.ticksBetween('XAUUSD', WEDNESDAY_NOON, at + 1), 2));
  });

  it('answer the most recent bars, oldest first, opening on the timeframe grid', () => {
    const { market } = makeMarket();
    for (const timeframe of ['M5', 'H1', 'D1'] as Timeframe[]) {
      const bars = market.bars('EURUSD', timeframe, 40);
      expect(bars).toHaveLength(40);
      const size = TIMEFRAME_SECONDS[timeframe];
      for (const [i, bar] of bars.entries()) {
        expect(bar.time % size).toBe(0);
        if (i > 0) expect(bar.time).toBeGreaterThan(bars[i - 1]!.time);
      }
      expect(bars.at(-1)!.time).toBe(Math.floor(WEDNESDAY_NOON / 1000 / size) * size);
    }
  });

  it('have no bar over the weekend', () => {
    const { market } = makeMarket();
    const h1 = market.bars('EURUSD', 'H1', 60, SUNDAY_OPEN + 5 * HOUR);
    const hours = h1.map((b) => b.time * 1000);
    expect(hours.some((t) => t >= FRIDAY_CLOSE && t < SUNDAY_OPEN)).toBe(false);
    expect(hours).toContain(FRIDAY_CLOSE - HOUR);
    expect(hours).toContain(SUNDAY_OPEN);
    const d1 = market.bars('EURUSD', 'D1', 10, SUNDAY_OPEN + 5 * HOUR);
    expect(d1.map((b) => new Date(b.time * 1000).getUTCDay())).not.toContain(6);
  });

  it('end with Friday’s last bar, closed, when asked during the weekend', () => {
    const { market } = makeMarket();
    const last = market.bars('EURUSD', 'M1', 3, FRIDAY_CLOSE + 20 * HOUR).at(-1)!;
    expect(last.closed).toBe(true);
    expect(last.time * 1000).toBe(FRIDAY_CLOSE - MINUTE);
  });

  it('are the same cold, warm, and from a market with a tiny cache', () => {
    const warm = makeMarket().market;
    const first = warm.bars('GBPUSD', 'H4', 30);
    expect(warm.bars('GBPUSD', 'H4', 30)).toEqual(first);
    expect(makeMarket({ barCacheSize: 2 }).market.bars('GBPUSD', 'H4', 30)).toEqual(first);
  });

  it('close a forming bar into the bar later answered as closed', () => {
    const { market } = makeMarket();
    const end = WEDNESDAY_NOON + 15 * MINUTE;
    const forming = market.bars('EURGBP', 'M15', 1, end - 1)[0]!;
    const closed = market.bars('EURGBP', 'M15', 2, end)[0]!;
    expect(closed.closed).toBe(true);
    expect({ ...forming, closed: true }).toEqual(closed);
  });

  it('answer an empty list for a count of zero and refuse a negative one', () => {
    const { market } = makeMarket();
    expect(market.bars('EURUSD', 'M1', 0)).toEqual([]);
    expect(() => market.bars('EURUSD', 'M1', -1)).toThrow(RangeError);
  });
});

describe('barsBetween', () => {
  it.each(['M1', 'M5', 'M15', 'H1', 'H4'] as Timeframe[])('answers the same %s bars as bars() over the same closed periods', (timeframe) => {
    const { market } = makeMarket();
    const closed = market.bars('EURUSD', timeframe, 60, WEDNESDAY_NOON).filter((b) => b.closed);
    const from = closed[0]!.time * 1000;
    const to = closed.at(-1)!.time * 1000 + TIMEFRAME_SECONDS[timeframe] * 1000;
    expect(makeMarket().market.barsBetween('EURUSD', timeframe, from, to)).toEqual(closed);
  });

  it('takes the bars opening at or after from and before to, from the first whole period on', () => {
    const { market } = makeMarket();
    const from = WEDNESDAY_NOON - 60 * MINUTE;
    const times = market.barsBetween('EURUSD', 'M5', from - 1, from + 30 * MINUTE).map((b) => b.time * 1000);
    expect(times[0]).toBe(from);
    expect(times.at(-1)).toBe(from + 25 * MINUTE);
    expect(market.barsBetween('EURUSD', 'M5', from + 1, from + 30 * MINUTE)[0]!.time * 1000).toBe(from + 5 * MINUTE);
    expect(market.barsBetween('EURUSD', 'M5', from, from)).toEqual([]);
  });

  it('keeps the oldest `limit` bars', () => {
    const { market } = makeMarket();
    const all = market.barsBetween('GBPUSD', 'M15', WEDNESDAY_NOON - 10 * HOUR, WEDNESDAY_NOON);
    expect(market.barsBetween('GBPUSD', 'M15', WEDNESDAY_NOON - 10 * HOUR, WEDNESDAY_NOON, 7)).toEqual(all.slice(0, 7));
    expect(() => market.barsBetween('GBPUSD', 'M15', 0, 1, -1)).toThrow(RangeError);
  });

  it('answers the same bars whatever the clock, the cache and the order of the questions', () => {
    const range = [FRIDAY_CLOSE - 6 * HOUR, SUNDAY_OPEN + 6 * HOUR] as const;
    const early = makeMarket({ at: Date.UTC(2020, 0, 1) }).market;
    const late = makeMarket({ at: Date.UTC(2031, 5, 1), barCacheSize: 2 }).market;
    late.barsBetween('USDJPY', 'M30', range[0] + HOUR, range[1]);
    expect(late.barsBetween('USDJPY', 'M30', ...range)).toEqual(early.barsBetween('USDJPY', 'M30', ...range));
  });

  it('has no bar over the weekend and goes on at the Sunday open', () => {
    const { market } = makeMarket();
    const times = market.barsBetween('EURUSD', 'H1', FRIDAY_CLOSE - 2 * HOUR, SUNDAY_OPEN + 2 * HOUR).map((b) => b.time * 1000);
    expect(times).toEqual([FRIDAY_CLOSE - 2 * HOUR, FRIDAY_CLOSE - HOUR, SUNDAY_OPEN, SUNDAY_OPEN + HOUR]);
  });

  it('leaves the cache of recent bars as it was', () => {
    const { market } = makeMarket({ barCacheSize: 4 });
    const recent = market.bars('EURUSD', 'M5', 2);
    market.barsBetween('EURUSD', 'M5', WEDNESDAY_NOON - 20 * HOUR, WEDNESDAY_NOON - 10 * HOUR);
    expect(market.bars('EURUSD', 'M5', 2)[0]).toBe(recent[0]);
  });
});
