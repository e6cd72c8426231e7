import { describe, expect, it } from 'vitest';
import { StochRsi, stochRsiSignal, syntheticCandles } from '../src/index.js';
import { closes, feed } from './helpers.js';

describe('Stochastic RSI, hand-computed (RSI 2, stoch 3, %K 2, %D 2)', () => {
  // closes 10, 12, 11, 14, 13, 13, 16, 15, 17 → changes +2, −1, +3, −1, 0, +3, −1, +2
  // RSI(2), Wilder avg = (prev + x) / 2 after the seed:
  //  close 3: avgG (2 + 0) / 2 = 1,       avgL (0 + 1) / 2 = 0.5        RSI1 = 100 × 1 / 1.5         = 200/3
  //  close 4: avgG (1 + 3) / 2 = 2,       avgL 0.25                     RSI2 = 100 × 2 / 2.25        = 800/9
  //  close 5: avgG 1,                     avgL (0.25 + 1) / 2 = 0.625   RSI3 = 100 × 1 / 1.625       = 800/13
  //  close 6: avgG 0.5,                   avgL 0.3125                   RSI4 = 100 × 0.5 / 0.8125    = 800/13
  //  close 7: avgG (0.5 + 3) / 2 = 1.75,  avgL 0.15625                  RSI5 = 100 × 1.75 / 1.90625  = 5600/61
  //  close 8: avgG 0.875,                 avgL (0.15625 + 1) / 2 = 0.578125   RSI6 = 5600/93
  //  close 9: avgG (0.875 + 2) / 2 = 1.4375, avgL 0.2890625            RSI7 = 100 × 1.4375 / 1.7265625 = 18400/221
  // raw = 100 × (RSI − min) / (max − min) over the last 3 RSI values:
  //  close 5: [RSI1, RSI2, RSI3], RSI3 is the min → 0
  //  close 6: [RSI2, RSI3, RSI4], RSI4 = min → 0
  //  close 7: [RSI3, RSI4, RSI5], RSI5 = max → 100
  //  close 8: [RSI4, RSI5, RSI6], RSI6 = min → 0
  //  close 9: [RSI5, RSI6, RSI7] → 100 × (RSI7 − RSI6) / (RSI5 − RSI6) ≈ 72.948
  // %K = mean of the last 2 raws: close 6: 0; close 7: 50; close 8: 50; close 9: raw9 / 2
  // %D = mean of the last 2 %K:   close 7: 25; close 8: 50; close 9: (50 + raw9 / 2) / 2
  // signals: close 7 first value, %K 50 → neutral; close 8: %K 50, %D 50, previous 50 / 25 →
  //          no strict cross → neutral; close 9: previous %K 50 ≥ %D 50, now %K < %D, %D > 20 →
  //          bearish_cross.
  const RSI5 = 5600 / 61;
  const RSI6 = 5600 / 93;
  const RSI7 = 18400 / 221;
  const raw9 = (100 * (RSI7 - RSI6)) / (RSI5 - RSI6);

  it('matches the worked example', () => {
    const s = new StochRsi({ rsiPeriod: 2, stochPeriod: 3, kSmoothing: 2, dSmoothing: 2 });
    expect(s.warmUp).toBe(7);
    const out = feed(s, closes([10, 12, 11, 14, 13, 13, 16, 15, 17]));
    expect(out.slice(0, 6).every((v) => v === null)).toBe(true);
    expect(out[6]!.k).toBeCloseTo(50, 12);
    expect(out[6]!.d).toBeCloseTo(25, 12);
    expect(out[6]!.stoch).toBeCloseTo(100, 12);
    expect(out[6]!.rsi).toBeCloseTo(RSI5, 12);
    expect(out[6]!.signal).toBe('neutral');
    expect(out[7]!.k).toBeCloseTo(50, 12);
    expect(out[7]!.d).toBeCloseTo(50, 12);
    expect(out[7]!.signal).toBe('neutral');
    expect(raw9).toBeCloseTo(72.9476, 4);
    expect(out[8]!.stoch).toBeCloseTo(raw9, 12);
    expect(out[8]!.k).toBeCloseTo(raw9 / 2, 12);
    expect(out[8]!.d).toBeCloseTo((50 + raw9 / 2) / 2, 12);
    expect(out[8]!.signal).toBe('bearish_cross');
    expect(s.value).toBe(out[8]);
  });

  it('zero-range guard: 50 when the RSI has been flat from the start', () => {
    // Constant closes: avgGain = avgLoss = 0, RSI 100 on every candle → max = min.
    const s = new StochRsi({ rsiPeriod: 2, stochPeriod: 3, kSmoothing: 2, dSmoothing: 2 });
    const out = feed(s, closes([5, 5, 5, 5, 5, 5, 5, 5]));
    expect(out.at(-1)).toMatchObject({ k: 50, d: 50, stoch: 50, signal: 'neutral' });
  });

  it('zero-range guard: carries the previous raw value through a flat market (rounding noise included)', () => {
    // After a move, flat closes decay avgGain and avgLoss by the same factor: the RSI stays put
    // up to rounding, which must not be read as a full-scale swing.
    const s = new StochRsi({ rsiPeriod: 2, stochPeriod: 3, kSmoothing: 2, dSmoothing: 2 });
    const out = feed(s, closes([10, 12, 11, 14, 13, 13, 16, 15, 17, 17.3, 17.3, 17.3, 17.3, 17.3, 17.3, 17.3]));
    const flat = out.slice(-4);
    for (const v of flat) {
      const rsiValues = out.slice(-4).map((x) => x!.rsi);
      expect(Math.max(...rsiValues) - Math.min(...rsiValues)).toBeLessThan(1e-9);
      expect(v!.stoch).toBe(flat[0]!.stoch);
      expect(v!.k).toBeCloseTo(flat[0]!.stoch, 12);
    }
  });

  it('zero-range guard with the default periods, where a flat market leaves real rounding noise', () => {
    const s = new StochRsi();
    const candles = syntheticCandles(60, { seed: 3 });
    feed(s, candles);
    const flat = { ...candles.at(-1)!, close: candles.at(-1)!.close };
    const out = Array.from({ length: 40 }, () => s.update(flat)!);
    const tail = out.slice(14); // the look-back now holds flat-market RSI values only
    const rsis = tail.map((v) => v.rsi);
    expect(new Set(rsis).size).toBeGreaterThan(1); // the RSI is not bit-for-bit constant…
    expect(Math.max(...rsis) - Math.min(...rsis)).toBeLessThan(1e-9); // …but within the epsilon
    const carried = out[13]!.stoch;
    for (const v of tail) expect(v.stoch).toBe(carried); // so the raw value is carried, not noise
  });

  it('defaults: RSI 14, stoch 14, %K 3, %D 3, 20/80, warm-up 32 candles', () => {
    const s = new StochRsi();
    expect([s.rsiPeriod, s.stochPeriod, s.kSmoothing, s.dSmoothing, s.oversold, s.overbought, s.warmUp]).toEqual([14, 14, 3, 3, 20, 80, 32]);
    const values = Array.from({ length: 32 }, (_, i) => 100 + Math.sin(i) * 3 + i * 0.1);
    const out = feed(s, closes(values));
    expect(out.slice(0, 31).every((v) => v === null)).toBe(true);
    expect(out[31]).not.toBeNull();
    expect(out[31]!.k).toBeGreaterThanOrEqual(0);
    expect(out[31]!.k).toBeLessThanOrEqual(100);
  });
});

describe('Stochastic RSI signal rule', () => {
  const cases: Array<[string, { k: number; d: number } | null, number, number, string]> = [
    ['no previous value: zones only', null, 10, 30, 'oversold'],
    ['no previous value, middle', null, 50, 40, 'neutral'],
    ['no previous value, high', null, 90, 95, 'overbought'],
    ['%K crosses above %D in the oversold zone', { k: 10, d: 15 }, 18, 16, 'bullish_cross'],
    ['%K crosses above %D mid-range', { k: 40, d: 45 }, 50, 46, 'bullish_cross'],
    ['touching then rising above counts as a cross (prev %K = %D)', { k: 45, d: 45 }, 50, 47, 'bullish_cross'],
    ['a cross up with %D at 80 or above is reported as overbought', { k: 82, d: 85 }, 90, 86, 'overbought'],
    ['%K crosses below %D in the overbought zone', { k: 90, d: 85 }, 84, 86, 'bearish_cross'],
    ['a cross down with %D at 20 or below is reported as oversold', { k: 18, d: 15 }, 12, 14, 'oversold'],
    ['equal now is not a cross', { k: 40, d: 45 }, 46, 46, 'neutral'],
    ['%K = 20 is oversold (inclusive)', { k: 25, d: 30 }, 20, 24, 'oversold'],
    ['a cross down above the overbought line is a bearish cross', { k: 85, d: 84 }, 80, 82, 'bearish_cross'],
    ['%K = 80 without a cross is overbought (inclusive)', { k: 85, d: 88 }, 80, 83, 'overbought'],
    ['%K above %D and staying above is no cross', { k: 50, d: 45 }, 55, 48, 'neutral'],
    // A flat close: %K and %D the same value but for the doubles' last bit (issue 26's EUR_GBP at 2026-01-15T13:10).
    ['%K = %D within rounding is no cross up', { k: 1.3452420363, d: 1.3452420363 }, 1.3452420363000002, 1.3452420363, 'oversold'],
    ['%K = %D within rounding is no cross down', { k: 50, d: 50 }, 49.99999999999999, 50, 'neutral'],
    ['from equal within rounding, a real rise above is a cross', { k: 45, d: 45.00000000000001 }, 50, 47, 'bullish_cross'],
  ];
  it.each(cases)('%s', (_name, prev, k, d, expected) => {
    expect(stochRsiSignal(prev, k, d)).toBe(expected);
  });

  it('thresholds are configurable', () => {
    expect(stochRsiSignal(null, 25, 30, 30, 70)).toBe('oversold');
    expect(stochRsiSignal(null, 72, 70, 30, 70)).toBe('overbought');
    const s = new StochRsi({ oversold: 10, overbought: 90 });
    expect([s.oversold, s.overbought]).toEqual([10, 90]);
  });
});
