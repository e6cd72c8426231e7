/**
 * Property test of FairValueGaps against a naive model that keeps its open gaps in one list in
 * creation order and checks every one of them on every candle. Prices on a small lattice, so
 * edges coincide (touching wicks, a low exactly at a zone's edge) and gaps pile up against the cap;
 * with and without a maxAge (the model drops a gap maxAge candles after the one confirming it).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FairValueGaps, type Candle, type FvgOptions } from '../src/index.js';

interface ModelGap {
  id: number;
  type: 'bullish' | 'bearish';
  zone: [number, number];
  /** Index of the candle that confirmed it. */
  at: number;
}

function model(candles: Candle[], options: Required<FvgOptions>) {
  let open: ModelGap[] = [];
  let nextId = 1;
  return candles.map((c, i) => {
    const down = options.mitigation === 'wick' ? c.low : c.close;
    const up = options.mitigation === 'wick' ? c.high : c.close;
    open = open.filter((z) => i - z.at < options.maxAge);
    const before = open.length;
    open = open.filter((z) => (z.type === 'bullish' ? down > z.zone[0] : up < z.zone[1]));
    const mitigated = before - open.length;
    let created: ModelGap | null = null;
    if (i >= 2) {
      const c1 = candles[i - 2]!;
      if (c.low > c1.high && c.low - c1.high >= options.minSize) created = { id: nextId++, type: 'bullish', zone: [c1.high, c.low], at: i };
      else if (c.high < c1.low && c1.low - c.high >= options.minSize) created = { id: nextId++, type: 'bearish', zone: [c.high, c1.low], at: i };
      if (created) {
        if (open.length >= options.maxOpenZones) open.shift();
        open.push(created);
      }
    }
    if (i < 2) return null;
    const latest = open.at(-1) ?? null;
    return {
      type: latest?.type ?? 'none',
      zone: latest?.zone ?? null,
      id: latest?.id ?? null,
      created: created?.id ?? null,
      mitigated,
      ids: open.map((z) => z.id),
    };
  });
}

const candleArb = fc
  .record({ low: fc.integer({ min: 0, max: 12 }), span: fc.integer({ min: 0, max: 4 }), closeAt: fc.integer({ min: 0, max: 4 }) })
  .map(({ low, span, closeAt }) => ({ low, high: low + span, close: low + Math.min(closeAt, span) }));

describe('fair value gaps property: same as a naive model', () => {
  it('on lattice series, for both mitigation modes, minSize, a small cap and maxAge', () => {
    fc.assert(
      fc.property(
        fc.record({
          minSize: fc.constantFrom(0, 1, 2),
          maxOpenZones: fc.integer({ min: 1, max: 6 }),
          mitigation: fc.constantFrom('wick' as const, 'close' as const),
          maxAge: fc.oneof(fc.constant(Number.POSITIVE_INFINITY), fc.integer({ min: 1, max: 12 })),
        }),
        fc.array(candleArb, { minLength: 1, maxLength: 120 }),
        (options, specs) => {
          const candles: Candle[] = specs.map((s, i) => ({ time: i * 60, open: s.close, high: s.high, low: s.low, close: s.close, volume: 1 }));
          const expected = model(candles, options);
          const f = new FairValueGaps(options);
          candles.forEach((c, i) => {
            const v = f.update(c);
            const e = expected[i]!;
            if (e === null) {
              expect(v).toBeNull();
              return;
            }
            expect({
              type: v!.type,
              zone: v!.zone,
              id: v!.gap?.id ?? null,
              created: v!.created?.id ?? null,
              mitigated: v!.mitigated,
              ids: f.openZones.map((z) => z.id),
            }).toEqual(e);
            expect(v!.openCount).toBe(e.ids.length);
          });
        },
      ),
      { numRuns: 500, seed: 7 },
    );
  });
});
