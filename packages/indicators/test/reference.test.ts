/**
 * Agreement with independent published libraries over 10,000 generated candles, to 1e-9.
 *
 * Reference: trading-signals 8.3.0 (ATR, RSI, SuperTrend, StochasticRSI, all streaming). Its
 * package declares `engines.node >= 22`; this suite is the proof that the parts used here run on
 * the project's Node 20 (npm only warns, EBADENGINE).
 * Second reference for ATR: technicalindicators 3.1.0. Its RSI (and so its StochasticRSI) rounds
 * to 2 decimals (`toFixed(2)`), so it cannot be compared at 1e-9 and is not; it has no Supertrend.
 *
 * Where a library's definition differs, the comparison is aligned on the input side or by
 * driving the library's own building blocks, never by loosening the tolerance:
 * - technicalindicators' ATR drops the first candle (no previous close) and seeds with TR 2..n+1;
 *   ours (TradingView's) counts the first candle's high − low as TR 1. Feeding it a copy of the
 *   first candle in front makes its TR sequence ours exactly: TR(c1 | previous close c1.close) is
 *   c1.high − c1.low because the close lies within [low, high].
 * - trading-signals' StochasticRSI smooths %D only `if (k)`, so a %K of exactly 0 (hundreds of
 *   times in each series here) is skipped by its %D; and it answers 100 on a zero range without
 *   smoothing. We compare its raw stochastic RSI (× 100: it works in 0..1) directly, and %K / %D
 *   against its own SMA class fed the raw series, which is what its StochasticRSI means to do.
 * - trading-signals' SuperTrend starts up on its first candle if the close is above the basic
 *   upper band; TradingView (and we) start down. The test asserts that this never happens in the
 *   series (it cannot when the candle's range is under 6 ATR), so the comparison needs no
 *   adjustment; its values otherwise follow the same rules.
 */
import { describe, expect, it } from 'vitest';
import { ATR, RSI, SMA, StochasticRSI, SuperTrend, WSMA } from 'trading-signals';
import { ATR as TiATR } from 'technicalindicators';
import { Atr, Rsi, StochRsi, Supertrend, syntheticCandles, type Candle } from '../src/index.js';

const TOL = 1e-9;
const SERIES: Array<[string, Candle[]]> = [
  ['seed 7, EUR/USD-like', syntheticCandles(10_000, { seed: 7 })],
  ['seed 42, USD/JPY-like, rougher', syntheticCandles(10_000, { seed: 42, start: 150, volatility: 0.002 })],
];

/** Collects differences beyond TOL, both absolute and relative to the reference value. */
class Diff {
  readonly problems: string[] = [];
  compared = 0;
  maxAbs = 0;
  check(what: string, i: number, ours: number, ref: number): void {
    const abs = Math.abs(ours - ref);
    this.compared++;
    if (abs > this.maxAbs) this.maxAbs = abs;
    if (!(abs <= TOL && abs <= TOL * Math.max(1, Math.abs(ref)))) this.problems.push(`${what} @${i}: ${ours} vs ${ref}`);
  }
}

describe.each(SERIES)('agreement with trading-signals, 10,000 candles (%s)', (_name, candles) => {
  it('ATR(14) and ATR(10): same warm-up, values within 1e-9', () => {
    for (const period of [14, 10]) {
      const ours = new Atr({ period });
      const ref = new ATR(period);
      const d = new Diff();
      candles.forEach((c, i) => {
        const a = ours.update(c);
        const b = ref.update(c, false);
        expect(a === null, `ready at ${i}`).toBe(b === null);
        if (a !== null && b !== null) d.check(`ATR(${period})`, i, a, b);
        // ATR is small (~1e-3 of price here): hold it to 1e-9 relative as well.
        if (a !== null && b !== null && Math.abs(a - b) > 1e-9 * Math.abs(b)) d.problems.push(`ATR rel @${i}`);
      });
      expect(d.problems).toEqual([]);
      expect(d.compared).toBe(candles.length - period + 1);
    }
  });

  it('RSI(14): same warm-up, values within 1e-9', () => {
    const ours = new Rsi();
    const ref = new RSI(14);
    const d = new Diff();
    candles.forEach((c, i) => {
      const a = ours.update(c);
      const b = ref.update(c.close, false);
      expect(a === null, `ready at ${i}`).toBe(b === null);
      if (a !== null && b !== null) d.check('RSI', i, a, b);
    });
    expect(d.problems).toEqual([]);
    expect(d.compared).toBe(candles.length - 14);
  });

  it('Supertrend(10, 3): line within 1e-9, same direction and flips on every candle', () => {
    const ours = new Supertrend();
    const ref = new SuperTrend({ interval: 10, multiplier: 3 });
    const d = new Diff();
    let prevRefTrend: string | null = null;
    let flips = 0;
    let first = true;
    candles.forEach((c, i) => {
      const a = ours.update(c);
      const b = ref.update(c, false);
      expect(a === null, `ready at ${i}`).toBe(b === null || b === undefined);
      if (a === null || !b) return;
      if (first) {
        // The one definitional difference (see above) cannot arise here:
        expect(c.close).toBeLessThanOrEqual(a.upperBand);
        first = false;
      }
      d.check('Supertrend', i, a.value, b.supertrend);
      const refTrend = b.trend === 'BULLISH' ? 'bullish' : 'bearish';
      if (a.trend !== refTrend) d.problems.push(`trend @${i}`);
      if (a.direction !== (refTrend === 'bullish' ? 1 : -1)) d.problems.push(`direction @${i}`);
      if (a.flipped !== (prevRefTrend !== null && prevRefTrend !== refTrend)) d.problems.push(`flip @${i}`);
      if (a.flipped) flips++;
      prevRefTrend = refTrend;
    });
    expect(d.problems).toEqual([]);
    expect(d.compared).toBe(candles.length - 9);
    expect(flips).toBeGreaterThan(50); // both directions were exercised many times
  });

  it('Stochastic RSI(14, 14, 3, 3): raw, %K and %D within 1e-9', () => {
    const ours = new StochRsi();
    const ref = new StochasticRSI(14, WSMA, { k: new SMA(3), d: new SMA(3) });
    const kRef = new SMA(3);
    const dRef = new SMA(3);
    const d = new Diff();
    let zeroK = 0;
    candles.forEach((c, i) => {
      const a = ours.update(c);
      const raw = ref.update(c.close, false); // 0..1, null while warming up
      let k: number | null = null;
      let dd: number | null = null;
      if (raw !== null) {
        k = kRef.update(raw * 100, false);
        if (k !== null) dd = dRef.update(k, false);
      }
      expect(a === null, `ready at ${i}`).toBe(dd === null);
      if (a === null || dd === null || k === null || raw === null) return;
      d.check('stoch', i, a.stoch, raw * 100);
      d.check('%K', i, a.k, k);
      d.check('%D', i, a.d, dd);
      if (a.k === 0) zeroK++;
    });
    expect(d.problems).toEqual([]);
    expect(d.compared).toBe(3 * (candles.length - 31));
    expect(zeroK).toBeGreaterThan(0); // the case its own %D mishandles did occur, and we agree on it
  });
});

describe('agreement with technicalindicators, 10,000 candles', () => {
  it.each(SERIES)('ATR(14) within 1e-9, seed aligned by a copy of the first candle (%s)', (_name, candles) => {
    const ours = new Atr();
    const ref = new TiATR({ period: 14, high: [], low: [], close: [] });
    ref.nextValue({ high: candles[0]!.high, low: candles[0]!.low, close: candles[0]!.close });
    const d = new Diff();
    candles.forEach((c, i) => {
      const a = ours.update(c);
      const b = ref.nextValue({ high: c.high, low: c.low, close: c.close });
      expect(a === null, `ready at ${i}`).toBe(b === undefined);
      if (a !== null && b !== undefined) d.check('ATR', i, a, b);
    });
    expect(d.problems).toEqual([]);
    expect(d.compared).toBe(candles.length - 13);
  });
});
