/**
 * Property test of the rolling volume profile on adversarial series: prices on a coarse lattice
 * (so candles start and end on row boundaries and rows tie), flat candles, zero and fractional
 * volumes, jumps that force grid rebuilds and storage re-layouts. On every candle:
 * - each row's volume equals a from-scratch recomputation over the window (rows no candle covers
 *   exactly 0);
 * - POC, VAH and VAL equal a plain, non-incremental implementation of the same rules applied to
 *   the profile's rows (so the cached POC and the tie rules are checked exactly).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { VolumeProfile, type Candle, type VolumeProfileOptions, type VolumeProfileRow } from '../src/index.js';

const candleArb = fc
  .record({
    base: fc.integer({ min: 0, max: 40 }),
    span: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 12 })),
    jump: fc.oneof({ weight: 9, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: -200, max: 200 }) }),
    volume: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 50 }), fc.double({ min: 0.01, max: 5, noNaN: true })),
    fine: fc.boolean(),
  })
  .map(({ base, span, jump, volume, fine }) => {
    const unit = fine ? 0.25 : 1; // quarter-steps fall inside rows, whole steps on their edges
    const low = 100 + (base + jump) * unit;
    return { low, high: low + span * unit, volume };
  });

const optionsArb: fc.Arbitrary<VolumeProfileOptions> = fc.oneof(
  fc.record({
    window: fc.integer({ min: 1, max: 12 }),
    rowCount: fc.integer({ min: 1, max: 30 }),
    valueAreaPercent: fc.constantFrom(50, 68, 70, 100),
  }),
  fc.record({
    window: fc.integer({ min: 1, max: 12 }),
    rowSize: fc.constantFrom(0.5, 1, 2, 3),
    valueAreaPercent: fc.constantFrom(50, 70, 100),
  }),
);

function fromScratch(window: Candle[], rows: VolumeProfileRow[]): number[] {
  const vol = rows.map(() => 0);
  const step = rows[0]!.high - rows[0]!.low;
  for (const c of window) {
    if (c.high === c.low) {
      const i = rows.findIndex((r) => c.low >= r.low - 1e-9 * step && c.low < r.high - 1e-9 * step);
      vol[i] = vol[i]! + c.volume;
      continue;
    }
    rows.forEach((r, i) => {
      const overlap = Math.min(c.high, r.high) - Math.max(c.low, r.low);
      if (overlap > 1e-9 * step) vol[i] = vol[i]! + (c.volume * overlap) / (c.high - c.low);
    });
  }
  return vol;
}

function plainPocAndValueArea(rows: VolumeProfileRow[], percent: number, total: number) {
  const vol = rows.map((r) => r.volume);
  const max = Math.max(...vol);
  const centre = (rows.length - 1) / 2;
  const ties = vol.map((_, i) => i).filter((i) => vol[i] === max);
  ties.sort((x, y) => Math.abs(x - centre) - Math.abs(y - centre) || x - y);
  const poc = ties[0]!;
  let [up, dn, va] = [poc, poc, vol[poc]!];
  while (va < (total * percent) / 100 && (up < rows.length - 1 || dn > 0)) {
    const above = vol.slice(up + 1, up + 3);
    const below = vol.slice(Math.max(0, dn - 2), dn);
    const a = above.reduce((s, v) => s + v, 0);
    const b = below.reduce((s, v) => s + v, 0);
    if (above.length > 0 && (below.length === 0 || a >= b)) {
      up += above.length;
      va += a;
    } else {
      dn -= below.length;
      va += b;
    }
  }
  return { poc: (rows[poc]!.low + rows[poc]!.high) / 2, vah: rows[up]!.high, val: rows[dn]!.low };
}

describe('volume profile property: incremental = from scratch', () => {
  it('holds on random lattice series with ties, flat candles, zero volumes and jumps', () => {
    fc.assert(
      fc.property(optionsArb, fc.array(candleArb, { minLength: 1, maxLength: 80 }), (options, specs) => {
        const vp = new VolumeProfile(options);
        const candles: Candle[] = specs.map((s, i) => ({ time: i, open: s.low, high: s.high, low: s.low, close: s.high, volume: s.volume }));
        candles.forEach((c, i) => {
          const v = vp.update(c);
          const window = candles.slice(Math.max(0, i + 1 - vp.window), i + 1);
          const total = window.reduce((s, x) => s + x.volume, 0);
          if (window.length < vp.window || window.every((x) => x.volume === 0)) {
            expect(v).toBeNull();
            return;
          }
          expect(v).not.toBeNull();
          const rows = vp.profile();
          const expected = fromScratch(window, rows);
          rows.forEach((r, j) => {
            const e = expected[j]!;
            if (e === 0) expect(r.volume).toBe(0);
            else expect(Math.abs(r.volume - e)).toBeLessThanOrEqual(1e-9 * total);
          });
          const plain = plainPocAndValueArea(rows, vp.valueAreaPercent, v!.totalVolume);
          expect(v!.poc).toBeCloseTo(plain.poc, 9);
          expect(v!.vah).toBeCloseTo(plain.vah, 9);
          expect(v!.val).toBeCloseTo(plain.val, 9);
          expect(v!.totalVolume).toBeCloseTo(total, 9);
        });
      }),
      { numRuns: 400, seed: 20261121 },
    );
  });
});
