import { describe, expect, it } from 'vitest';
import { decodePrice, decodeTrendbar } from '../../src/ctrader/prices.js';

describe('cTrader price decoding', () => {
  it('reads a wire integer as 1/100000 of a price unit', () => {
    expect(decodePrice(108_159, 5)).toBe(1.08159);
    expect(decodePrice(53_423_782, 5)).toBe(534.23782);
  });

  it('rounds to the symbol digits', () => {
    expect(decodePrice(15_712_300, 3)).toBe(157.123);
    expect(decodePrice(265_012_345, 2)).toBe(2650.12);
  });

  it('builds a bar from the low and the deltas, opening at utcTimestampInMinutes', () => {
    const minute = Date.UTC(2026, 0, 7, 11, 58) / 60_000;
    const bar = decodeTrendbar(
      { volume: 42, low: 108_100, deltaOpen: 20, deltaClose: 35, deltaHigh: 60, utcTimestampInMinutes: minute },
      5,
      60,
      Date.UTC(2026, 0, 7, 12),
    );
    expect(bar).toEqual({ time: minute * 60, open: 1.0812, high: 1.0816, low: 1.081, close: 1.08135, tickVolume: 42, spread: null, closed: true });
  });

  it('marks a bar whose period has not ended as forming', () => {
    const minute = Date.UTC(2026, 0, 7, 12) / 60_000;
    const bar = decodeTrendbar(
      { volume: 1, low: 108_100, deltaOpen: 0, deltaClose: 0, deltaHigh: 0, utcTimestampInMinutes: minute },
      5,
      60,
      Date.UTC(2026, 0, 7, 12, 0, 59),
    );
    expect(bar.closed).toBe(false);
  });
});
