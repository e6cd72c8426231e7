import { describe, expect, it } from 'vitest';
import { DEFAULT_SPREAD_POINTS, areStopsValid, entryPrice, exitWithin, markPrice, pricingOf, volumeLots, type FillCandle } from '../src/fills.js';

// 5 digits, the default spread (10 points = 0.00010, half 0.00005), 2 points of slippage (0.00002).
const pricing = pricingOf(5, { spread_points: null, slippage_points: 2, commission_per_lot: 0, volume: { lots: 1 } });
const bar = (open: number, high: number, low: number, close: number, spread: number | null = null): FillCandle => ({
  time: 0,
  open,
  high,
  low,
  close,
  spread,
});

describe('the fill model', () => {
  it('defaults the spread to 10 points', () => {
    expect(DEFAULT_SPREAD_POINTS).toBe(10);
    expect(pricing.fallbackSpread).toBeCloseTo(0.0001, 12);
  });

  it('enters a SHORT at the bid less the slippage: 1.10000 − 0.00005 − 0.00002 = 1.09993', () => {
    expect(entryPrice(-1, bar(1.1, 1.1, 1.1, 1.1), pricing)).toBeCloseTo(1.09993, 10);
  });

  it('takes stops and targets on a SHORT’s own side, the ask', () => {
    const stop = 1.101;
    const target = 1.098;
    // Ask high 1.10125 ≥ stop and ask low 1.09755 ≤ target: the stop, at 1.10100 + 0.00002.
    expect(exitWithin(-1, stop, target, bar(1.1, 1.1012, 1.0975, 1.1), pricing)).toEqual({ reason: 'stop', price: expect.closeTo(1.10102, 10) });
    // Opens at ask 1.10205, beyond the stop: 1.10205 + 0.00002.
    expect(exitWithin(-1, stop, target, bar(1.102, 1.1025, 1.1015, 1.102), pricing)).toEqual({ reason: 'stop', price: expect.closeTo(1.10207, 10) });
    // Opens at ask 1.09705, beyond the target: the limit fills there.
    expect(exitWithin(-1, stop, target, bar(1.097, 1.0975, 1.0965, 1.097), pricing)).toEqual({ reason: 'target', price: expect.closeTo(1.09705, 10) });
    // Ask low 1.09785 ≤ target, ask high 1.10055 below the stop: the target.
    expect(exitWithin(-1, stop, target, bar(1.1, 1.1005, 1.0978, 1.0985), pricing)).toEqual({ reason: 'target', price: target });
    expect(exitWithin(-1, stop, target, bar(1.1, 1.1005, 1.099, 1.1), pricing)).toBeNull();
  });

  it('uses the candle’s own spread when it has one', () => {
    // LONG target 1.10100: with the default spread the bid high is 1.10110 − 0.00005 = 1.10105 (reached);
    // with the candle's 0.00030 it is 1.10110 − 0.00015 = 1.10095 (not reached).
    expect(exitWithin(1, 1.09, 1.101, bar(1.1, 1.1011, 1.0995, 1.1), pricing)?.reason).toBe('target');
    expect(exitWithin(1, 1.09, 1.101, bar(1.1, 1.1011, 1.0995, 1.1, 0.0003), pricing)).toBeNull();
  });

  it('takes a level the price reaches to its last decimal, though the doubles of a mid ± half a spread come out a hair short', () => {
    // Bid high 1.10981 and 11 points of spread as a mid candle: its ask high, 1.10981 + 0.000055 + 0.000055, computes 1.1099199999999998.
    const spread = 11 / 1e5;
    const candle = bar(1.1096 + spread / 2, 1.10981 + spread / 2, 1.1095 + spread / 2, 1.1097 + spread / 2, spread);
    expect(exitWithin(-1, 1.10992, 1.1, candle, pricing)).toEqual({ reason: 'stop', price: expect.closeTo(1.10994, 10) });
  });

  it('marks a position where it would close, and refuses stops a broker would refuse', () => {
    expect(markPrice(-1, bar(1.1, 1.1, 1.1, 1.1), pricing)).toBeCloseTo(1.10005, 10);
    expect(markPrice(1, bar(1.1, 1.1, 1.1, 1.1), pricing)).toBeCloseTo(1.09995, 10);
    // LONG at an open bid of 1.09995: the stop must be below it and the target above.
    expect(areStopsValid(1, 1.099, 1.101, bar(1.1, 1.1, 1.1, 1.1), pricing)).toBe(true);
    expect(areStopsValid(1, 1.09996, 1.101, bar(1.1, 1.1, 1.1, 1.1), pricing)).toBe(false);
    expect(areStopsValid(1, 1.099, 1.09994, bar(1.1, 1.1, 1.1, 1.1), pricing)).toBe(false);
    expect(areStopsValid(-1, 1.101, 1.099, bar(1.1, 1.1, 1.1, 1.1), pricing)).toBe(true);
    expect(areStopsValid(-1, 1.10004, 1.099, bar(1.1, 1.1, 1.1, 1.1), pricing)).toBe(false);
  });

  it('rounds volumes down to the 0.01 step', () => {
    expect(volumeLots({ lots: 0.299 }, 0, 0)).toBe(0.29);
    expect(volumeLots({ lots: 0.29 }, 0, 0)).toBe(0.29);
    // 2 % of 10 000 = 200 over 300 a lot: 0.6667 → 0.66.
    expect(volumeLots({ risk_percent: 2 }, 10_000, 300)).toBe(0.66);
    expect(volumeLots({ risk_percent: 2 }, 100, 300)).toBe(0);
    expect(volumeLots({ risk_percent: 2 }, 10_000, 0)).toBe(0);
  });
});
