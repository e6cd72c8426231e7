import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Exposure } from '../src/simulated/exposure.js';

describe('Exposure', () => {
  it('values open positions as the sum of their own moves, however they came and went', () => {
    const position = fc.record({
      side: fc.constantFrom('buy' as const, 'sell' as const),
      hundredths: fc.integer({ min: 1, max: 10_000 }),
      open: fc.integer({ min: 100_000, max: 300_000 }),
      closes: fc.boolean(),
    });
    fc.assert(
      fc.property(
        fc.array(position, { maxLength: 50 }),
        fc.integer({ min: 100_000, max: 300_000 }),
        fc.integer({ min: 0, max: 50 }),
        (positions, bid, spread) => {
          const exposure = new Exposure();
          for (const p of positions) exposure.add(p.side, p.hundredths, p.open);
          for (const p of positions) if (p.closes) exposure.remove(p.side, p.hundredths, p.open);
          const open = positions.filter((p) => !p.closes);
          const ask = bid + spread;
          const naive = open.reduce((sum, p) => sum + (p.side === 'buy' ? bid - p.open : p.open - ask) * p.hundredths, 0);
          expect(exposure.floatingPoints(bid, ask)).toBe(naive);
          expect(exposure.hundredths).toBe(open.reduce((sum, p) => sum + p.hundredths, 0));
        },
      ),
    );
  });
});
