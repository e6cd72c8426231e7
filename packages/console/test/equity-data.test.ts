import { describe, expect, it } from 'vitest';
import { toTime } from '../src/chart/chart-data.js';
import { EQUITY_PRICE_FORMAT, equityLines, equitySummary } from '../src/chart/equity-data.js';
import { equityPoint } from './fixtures.js';

const day = (d: number) => `2026-01-0${d}T00:00:00.000Z`;

describe('the equity chart', () => {
  it('writes its axes and labels with thousands grouped and two decimals', () => {
    expect(EQUITY_PRICE_FORMAT.formatter(100_250)).toBe('100,250.00');
    expect(EQUITY_PRICE_FORMAT.formatter(-1.5)).toBe('-1.50');
  });

  it('draws one point per time, oldest first, keeping the lower of two at the same time', () => {
    const { equity } = equityLines([equityPoint(day(3), 100_200), equityPoint(day(1), 100_000), equityPoint(day(3), 100_150), equityPoint(day(2), 99_900)]);
    expect(equity).toEqual([
      { time: toTime(day(1)), value: 100_000 },
      { time: toTime(day(2)), value: 99_900 },
      { time: toTime(day(3)), value: 100_150 },
    ]);
  });

  it('hangs the drawdown below zero, in percent of the high before it', () => {
    const { drawdown } = equityLines([equityPoint(day(1), 100_000), equityPoint(day(2), 98_000, 2)]);
    expect(drawdown.map((p) => p.value)).toEqual([0, -2]);
  });

  it('sums the curve up in words: its ends and its deepest drawdown', () => {
    expect(equitySummary([equityPoint(day(1), 100_000), equityPoint(day(2), 97_000, 3), equityPoint(day(3), 101_000)])).toEqual({
      points: 3,
      first: 100_000,
      last: 101_000,
      deepestPercent: 3,
    });
    expect(equitySummary([])).toEqual({ points: 0, first: null, last: null, deepestPercent: 0 });
  });
});
