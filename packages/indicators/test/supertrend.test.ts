import { describe, expect, it } from 'vitest';
import { Supertrend, type SupertrendValue } from '../src/index.js';
import { feed, hlc } from './helpers.js';

describe('Supertrend, hand-computed (ATR 2, multiplier 1)', () => {
  // Candles [H, L, C]; ATR(2) seeded with the mean of the first two TRs; bands hl2 ± 1 × ATR.
  //
  // c1 10  8  9     TR 2                                  (no ATR yet)
  // c2 10  8  9     TR max(2, 1, 1) = 2       ATR 2       hl2 9     basic 11 / 7
  //    first value: final bands = basic bands, direction −1 (TradingView starts down): line 11
  // c3 10  8  8.5   TR 2                      ATR 2       hl2 9     basic 11 / 7
  //    upper: 11 < 11? no; prev close 9 > 11? no → keep 11.  lower: 7 > 7? no; 9 < 7? no → keep 7
  //    down trend: close 8.5 > 11? no → −1, line 11
  // c4  9  7  7.5   TR max(2, 0.5, 1.5) = 2   ATR 2       hl2 8     basic 10 / 6
  //    upper: 10 < 11 → 10 (ratchets down).  lower: 6 > 7? no; 8.5 < 7? no → keep 7
  //    close 7.5 > 10? no → −1, line 10
  // c5 12  9 11.5   TR max(3, 4.5, 1.5) = 4.5 ATR (2 + 4.5) / 2 = 3.25   hl2 10.5   basic 13.75 / 7.25
  //    upper: 13.75 < 10? no; prev close 7.5 > 10? no → keep 10.  lower: 7.25 > 7 → 7.25
  //    close 11.5 > upper 10 → flips to +1, line = lower 7.25
  // c6 12 11 11.8   TR max(1, 0.5, 0.5) = 1   ATR (3.25 + 1) / 2 = 2.125  hl2 11.5   basic 13.625 / 9.375
  //    upper: 13.625 < 10? no; prev close 11.5 > 10 → reset to 13.625.  lower: 9.375 > 7.25 → 9.375
  //    up trend: close 11.8 < 9.375? no → +1, line 9.375
  // c7 11  9  9.2   TR max(2, 0.8, 2.8) = 2.8 ATR (2.125 + 2.8) / 2 = 2.4625  hl2 10  basic 12.4625 / 7.5375
  //    upper: 12.4625 < 13.625 → 12.4625.  lower: 7.5375 > 9.375? no; 11.8 < 9.375? no → keep 9.375
  //    close 9.2 < lower 9.375 → flips to −1, line = upper 12.4625
  const candles = hlc([
    [10, 8, 9],
    [10, 8, 9],
    [10, 8, 8.5],
    [9, 7, 7.5],
    [12, 9, 11.5],
    [12, 11, 11.8],
    [11, 9, 9.2],
  ]);
  const expected: Array<Omit<SupertrendValue, 'atr'> | null> = [
    null,
    { direction: -1, value: 11, trend: 'bearish', flipped: false, upperBand: 11, lowerBand: 7 },
    { direction: -1, value: 11, trend: 'bearish', flipped: false, upperBand: 11, lowerBand: 7 },
    { direction: -1, value: 10, trend: 'bearish', flipped: false, upperBand: 10, lowerBand: 7 },
    { direction: 1, value: 7.25, trend: 'bullish', flipped: true, upperBand: 10, lowerBand: 7.25 },
    { direction: 1, value: 9.375, trend: 'bullish', flipped: false, upperBand: 13.625, lowerBand: 9.375 },
    { direction: -1, value: 12.4625, trend: 'bearish', flipped: true, upperBand: 12.4625, lowerBand: 9.375 },
  ];
  const atrs = [null, 2, 2, 2, 3.25, 2.125, 2.4625];

  it('follows the band ratchet and flip rules candle by candle', () => {
    const st = new Supertrend({ atrPeriod: 2, multiplier: 1 });
    const out = feed(st, candles);
    out.forEach((v, i) => {
      const e = expected[i];
      if (e === null || e === undefined) {
        expect(v, `candle ${i + 1}`).toBeNull();
        return;
      }
      expect(v, `candle ${i + 1}`).not.toBeNull();
      expect(v!.direction, `candle ${i + 1} direction`).toBe(e.direction);
      expect(v!.trend).toBe(e.trend);
      expect(v!.flipped, `candle ${i + 1} flipped`).toBe(e.flipped);
      expect(v!.value).toBeCloseTo(e.value, 12);
      expect(v!.upperBand).toBeCloseTo(e.upperBand, 12);
      expect(v!.lowerBand).toBeCloseTo(e.lowerBand, 12);
      expect(v!.atr).toBeCloseTo(atrs[i]!, 12);
    });
    expect(st.value).toBe(out[6]);
  });

  it('defaults to ATR 10 and multiplier 3, warm-up 10 candles', () => {
    const st = new Supertrend();
    expect([st.atrPeriod, st.multiplier, st.warmUp]).toEqual([10, 3, 10]);
    const out = feed(st, hlc(Array.from({ length: 10 }, () => [10, 8, 9] as [number, number, number])));
    expect(out.slice(0, 9).every((v) => v === null)).toBe(true);
    expect(out[9]).toMatchObject({ direction: -1, value: 15, upperBand: 15, lowerBand: 3 });
  });

  it('reset starts over', () => {
    const st = new Supertrend({ atrPeriod: 2, multiplier: 1 });
    feed(st, candles);
    st.reset();
    expect(st.isReady).toBe(false);
    expect(feed(st, candles)[4]).toMatchObject({ direction: 1, flipped: true });
  });
});
