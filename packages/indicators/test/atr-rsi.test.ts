import { describe, expect, it } from 'vitest';
import { Atr, Rsi, syntheticCandles } from '../src/index.js';
import { closes, feed, hlc } from './helpers.js';

describe('ATR (Wilder), hand-computed', () => {
  // period 3
  // c1 H10 L8  C9     TR = H − L (no previous close)            = 2
  // c2 H12 L11 C11.5  TR = max(1, |12 − 9|, |11 − 9|)            = 3
  // c3 H11 L10 C10    TR = max(1, |11 − 11.5|, |10 − 11.5|)      = 1.5   ATR = (2 + 3 + 1.5) / 3 = 13/6
  // c4 H13 L10 C12    TR = max(3, |13 − 10|, |10 − 10|)          = 3     ATR = (13/6 × 2 + 3) / 3 = 22/9
  // c5 H12.5 L12 C12.2 TR = max(0.5, |12.5 − 12|, |12 − 12|)     = 0.5   ATR = (22/9 × 2 + 0.5) / 3 = 97/54
  const candles = hlc([
    [10, 8, 9],
    [12, 11, 11.5],
    [11, 10, 10],
    [13, 10, 12],
    [12.5, 12, 12.2],
  ]);

  it('seeds with the mean of the first n true ranges, then smooths by (prev × (n − 1) + TR) / n', () => {
    const atr = new Atr({ period: 3 });
    const out = feed(atr, candles);
    expect(out.slice(0, 2)).toEqual([null, null]);
    expect(out[2]).toBeCloseTo(13 / 6, 12);
    expect(out[3]).toBeCloseTo(22 / 9, 12);
    expect(out[4]).toBeCloseTo(97 / 54, 12);
    expect(atr.value).toBe(out[4]);
    expect(atr.trueRange).toBeCloseTo(0.5, 12);
    expect(atr.isReady).toBe(true);
    expect(atr.warmUp).toBe(3);
  });

  it('is not ready before warm-up and forgets everything on reset', () => {
    const atr = new Atr({ period: 3 });
    atr.update(candles[0]!);
    expect(atr.isReady).toBe(false);
    expect(atr.value).toBeNull();
    feed(atr, candles.slice(1));
    atr.reset();
    expect(atr.value).toBeNull();
    expect(feed(atr, candles)[4]).toBeCloseTo(97 / 54, 12);
  });

  it('defaults to period 14', () => {
    expect(new Atr().period).toBe(14);
    expect(new Atr().warmUp).toBe(14);
  });
});

describe('RSI (Wilder), hand-computed', () => {
  // period 3; closes 10, 11, 10.5, 12, 11, 11 → changes +1, −0.5, +1.5, −1, 0
  // 4th close: avgGain = (1 + 0 + 1.5) / 3 = 5/6, avgLoss = (0 + 0.5 + 0) / 3 = 1/6
  //            RSI = 100 × (5/6) / (5/6 + 1/6) = 250/3
  // 5th close (−1): avgGain = (5/6 × 2 + 0) / 3 = 5/9, avgLoss = (1/6 × 2 + 1) / 3 = 4/9 → RSI = 500/9
  // 6th close (0):  avgGain = 10/27, avgLoss = 8/27 → RSI = 500/9 again (a flat close keeps the ratio)
  it('seeds with simple means of the first n changes, then Wilder-smooths', () => {
    const rsi = new Rsi({ period: 3 });
    const out = feed(rsi, closes([10, 11, 10.5, 12, 11, 11]));
    expect(out.slice(0, 3)).toEqual([null, null, null]);
    expect(out[3]).toBeCloseTo(250 / 3, 12);
    expect(out[4]).toBeCloseTo(500 / 9, 12);
    expect(out[5]).toBeCloseTo(500 / 9, 12);
    expect(rsi.averages!.gain).toBeCloseTo(10 / 27, 14);
    expect(rsi.averages!.loss).toBeCloseTo(8 / 27, 14);
    expect(rsi.warmUp).toBe(4);
  });

  it('is 100 with no losses and 0 with no gains; 100 when flat from the start (TradingView rule)', () => {
    expect(feed(new Rsi({ period: 2 }), closes([1, 2, 3, 4])).at(-1)).toBe(100);
    expect(feed(new Rsi({ period: 2 }), closes([4, 3, 2, 1])).at(-1)).toBe(0);
    expect(feed(new Rsi({ period: 2 }), closes([5, 5, 5, 5])).at(-1)).toBe(100);
  });

  it('takes bare prices through updateClose', () => {
    const rsi = new Rsi({ period: 3 });
    const out = [10, 11, 10.5, 12].map((c) => rsi.updateClose(c));
    expect(out[3]).toBeCloseTo(250 / 3, 12);
  });
});

describe('ATR and RSI: advance and current', () => {
  const candles = syntheticCandles(80, { seed: 4 });

  it('give the values update gives, NaN before the first, and value and isReady follow', () => {
    const atr = new Atr({ period: 5 });
    const atrAdvanced = new Atr({ period: 5 });
    const rsi = new Rsi({ period: 7 });
    const rsiAdvanced = new Rsi({ period: 7 });
    for (const c of candles) {
      const a = atr.update(c);
      expect(atrAdvanced.advance(c)).toBe(a !== null);
      expect(atrAdvanced.value).toBe(a);
      expect(atrAdvanced.isReady).toBe(a !== null);
      if (a === null) expect(atrAdvanced.current).toBeNaN();
      else expect(atrAdvanced.current).toBe(a);
      const r = rsi.update(c);
      expect(rsiAdvanced.advanceClose(c.close)).toBe(r !== null);
      expect(rsiAdvanced.value).toBe(r);
      expect(rsiAdvanced.isReady).toBe(r !== null);
      if (r === null) expect(rsiAdvanced.current).toBeNaN();
      else expect(rsiAdvanced.current).toBe(r);
    }
    expect(atrAdvanced.isReady && rsiAdvanced.isReady).toBe(true);
  });
});
