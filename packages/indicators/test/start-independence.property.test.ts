/**
 * Property tests that an indicator's value forgets where the run began (the strategy lab's "a
 * decision at candle t is the same whether the run started 300 or 3,000 candles earlier"):
 * - the volume profile is a function of the last `window` candles alone: fed different prefixes
 *   and then the same candles, two profiles give identical values and rows (to the last bit) from
 *   the window's first full candle of the common part, and equal a profile fed the window only.
 *   Series with lattice prices (edges on row boundaries, ties), off-lattice prices, flat candles,
 *   zero, fractional and wildly different volumes (the quantum changes), jumps (the grid changes);
 * - Stochastic RSI: two instances whose states differ only in where their rings stand (flat
 *   prefixes of different lengths leave the RSI's averages exactly 0 in both) give identical
 *   values on whatever follows: %K and %D do not depend on the start modulo their periods;
 * - fair value gaps with a maxAge: fed different prefixes and then the same candles, two give the
 *   same value (every field but the gaps' `id`, which counts from the start) and the same open
 *   zones once maxAge + 2 candles are shared. Without one they may not (a third test shows it).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  FairValueGaps,
  StochRsi,
  VolumeProfile,
  type Candle,
  type FairValueGap,
  type FvgValue,
  type StochRsiOptions,
  type VolumeProfileOptions,
} from '../src/index.js';

const candleArb: fc.Arbitrary<Omit<Candle, 'time'>> = fc
  .record({
    base: fc.integer({ min: 0, max: 40 }),
    span: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 12 })),
    jump: fc.oneof({ weight: 9, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: -200, max: 200 }) }),
    offset: fc.oneof(fc.constant(0), fc.double({ min: 0, max: 1, noNaN: true })),
    unit: fc.constantFrom(0.25, 1, 0.0001),
    volume: fc.oneof(
      fc.constant(0),
      fc.integer({ min: 1, max: 50 }),
      fc.double({ min: 0.01, max: 5, noNaN: true }),
      fc.double({ min: 1e3, max: 1e9, noNaN: true }),
    ),
  })
  .map(({ base, span, jump, offset, unit, volume }) => {
    const low = 100 + (base + jump + offset) * unit;
    const high = low + span * unit;
    return { open: low, high, low, close: high, volume };
  });

const profileOptionsArb: fc.Arbitrary<VolumeProfileOptions> = fc.oneof(
  fc.record({
    window: fc.integer({ min: 1, max: 12 }),
    rowCount: fc.integer({ min: 1, max: 30 }),
    rowCountTolerance: fc.constantFrom(0, 0.1, 0.25, 1),
    valueAreaPercent: fc.constantFrom(50, 70, 100),
  }),
  fc.record({
    window: fc.integer({ min: 1, max: 12 }),
    rowSize: fc.constantFrom(0.25, 0.5, 1, 3),
    valueAreaPercent: fc.constantFrom(50, 70, 100),
  }),
);

const timed = (specs: Array<Omit<Candle, 'time'>>): Candle[] => specs.map((s, i) => ({ time: i * 300, ...s }));

describe('start independence', () => {
  it('volume profile: different prefixes, then the same candles: identical from the first full window on', () => {
    fc.assert(
      fc.property(
        profileOptionsArb,
        fc.array(candleArb, { maxLength: 40 }),
        fc.array(candleArb, { maxLength: 40 }),
        fc.array(candleArb, { minLength: 12, maxLength: 40 }),
        (options, prefixA, prefixB, common) => {
          const a = new VolumeProfile(options);
          const b = new VolumeProfile(options);
          for (const c of timed(prefixA)) a.update(c);
          for (const c of timed(prefixB)) b.update(c);
          timed(common).forEach((c, i) => {
            const va = a.update(c);
            const vb = b.update(c);
            if (i + 1 < a.window) return;
            expect(vb).toEqual(va);
            expect(b.profile()).toEqual(a.profile());
          });
        },
      ),
      { numRuns: 400, seed: 20261125 },
    );
  });

  it('volume profile: on every candle, the value of a profile fed only the window', () => {
    fc.assert(
      fc.property(profileOptionsArb, fc.array(candleArb, { minLength: 1, maxLength: 60 }), (options, specs) => {
        const rolling = new VolumeProfile(options);
        const candles = timed(specs);
        candles.forEach((c, i) => {
          const value = rolling.update(c);
          if (i + 1 < rolling.window) return;
          const fresh = new VolumeProfile(options);
          let expected = null;
          for (const x of candles.slice(i + 1 - rolling.window, i + 1)) expected = fresh.update(x);
          expect(value).toEqual(expected);
          expect(rolling.profile()).toEqual(fresh.profile());
        });
      }),
      { numRuns: 300, seed: 20261126 },
    );
  });

  it('Stochastic RSI: rings at different positions (flat prefixes of different lengths) give identical values', () => {
    const optionsArb: fc.Arbitrary<StochRsiOptions> = fc.record({
      rsiPeriod: fc.integer({ min: 1, max: 14 }),
      stochPeriod: fc.integer({ min: 1, max: 14 }),
      kSmoothing: fc.integer({ min: 1, max: 5 }),
      dSmoothing: fc.integer({ min: 1, max: 5 }),
    });
    const stepArb = fc.oneof({ weight: 1, arbitrary: fc.constant(0) }, { weight: 6, arbitrary: fc.double({ min: -0.01, max: 0.01, noNaN: true }) });
    fc.assert(
      fc.property(
        optionsArb,
        fc.double({ min: 0.5, max: 200, noNaN: true }),
        fc.integer({ min: 0, max: 20 }),
        fc.integer({ min: 0, max: 20 }),
        fc.array(stepArb, { minLength: 1, maxLength: 150 }),
        (options, price, extraA, extraB, steps) => {
          const a = new StochRsi(options);
          const b = new StochRsi(options);
          for (let i = 0; i < a.warmUp + extraA; i++) a.updateClose(price);
          for (let i = 0; i < b.warmUp + extraB; i++) b.updateClose(price);
          expect(a.value).toEqual(b.value);
          let close = price;
          for (const step of steps) {
            close *= 1 + step;
            const va = a.updateClose(close);
            expect(va).not.toBeNull();
            expect(b.updateClose(close)).toEqual(va);
          }
        },
      ),
      { numRuns: 500, seed: 20261127 },
    );
  });

  it('fair value gaps with maxAge: different prefixes, then the same candles: identical once maxAge + 2 are shared', () => {
    // Lattice prices (edges coincide) with jumps, so gaps pile up against the cap and some stay
    // out of reach of mitigation; the time is the common part's index so both runs stamp alike.
    const specArb = fc
      .record({ low: fc.integer({ min: 0, max: 12 }), span: fc.integer({ min: 0, max: 4 }), jump: fc.constantFrom(0, 0, 0, 20, -20) })
      .map(({ low, span, jump }) => ({ low: low + jump, high: low + jump + span }));
    const bar = (s: { low: number; high: number }, time: number): Candle => ({ time, open: s.low, high: s.high, low: s.low, close: s.high, volume: 1 });
    const gapOf = (g: FairValueGap | null) => g && { type: g.type, zone: g.zone, size: g.size, time: g.time, confirmedAt: g.confirmedAt };
    const shown = (v: FvgValue | null) => v && { ...v, gap: gapOf(v.gap), created: gapOf(v.created) };
    fc.assert(
      fc.property(
        fc.record({
          maxAge: fc.integer({ min: 1, max: 15 }),
          maxOpenZones: fc.integer({ min: 1, max: 8 }),
          minSize: fc.constantFrom(0, 1),
          mitigation: fc.constantFrom('wick' as const, 'close' as const),
        }),
        fc.array(specArb, { maxLength: 40 }),
        fc.array(specArb, { maxLength: 40 }),
        fc.array(specArb, { minLength: 1, maxLength: 60 }),
        (options, prefixA, prefixB, common) => {
          const a = new FairValueGaps(options);
          const b = new FairValueGaps(options);
          prefixA.forEach((s, i) => a.update(bar(s, i - 1000)));
          prefixB.forEach((s, i) => b.update(bar(s, i - 1000)));
          common.forEach((s, i) => {
            const c = bar(s, i);
            const va = a.update(c);
            const vb = b.update(c);
            if (i + 1 < options.maxAge + 2) return;
            expect(shown(vb)).toEqual(shown(va));
            expect(b.openZones.map(gapOf)).toEqual(a.openZones.map(gapOf));
          });
        },
      ),
      { numRuns: 500, seed: 20261128 },
    );
  });

  it('fair value gaps without maxAge remember a gap from before the shared candles', () => {
    // A bullish gap far below price in one prefix only: it stays the latest open gap there.
    const bar = (low: number, time: number): Candle => ({ time, open: low, high: low + 1, low, close: low + 1, volume: 1 });
    const a = new FairValueGaps();
    const b = new FairValueGaps();
    const bounded = new FairValueGaps({ maxAge: 5 });
    for (const [i, low] of [0, 0, 5].entries()) {
      a.update(bar(low, i - 10));
      bounded.update(bar(low, i - 10));
    }
    for (let i = 0; i < 10; i++) {
      const c = bar(10, i);
      a.update(c);
      b.update(c);
      bounded.update(c);
    }
    expect(a.value!.type).toBe('bullish');
    expect(b.value!.type).toBe('none');
    expect(bounded.value!.type).toBe('none');
  });
});
