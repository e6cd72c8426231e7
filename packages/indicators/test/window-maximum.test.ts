import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WindowMaximum } from '../src/window-maximum.js';

describe('WindowMaximum', () => {
  it('answers the largest of the last `size` values pushed', () => {
    const window = new WindowMaximum(3);
    const seen: number[] = [];
    for (const x of [5, 1, 4, 2, 0, 3, 3, 7, 1]) {
      window.push(x);
      seen.push(window.value);
    }
    expect(seen).toEqual([5, 5, 5, 4, 4, 3, 3, 7, 7]);
  });

  it('agrees with a rescan of the window for any sequence', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 20 }), fc.array(fc.double({ noNaN: true, noDefaultInfinity: true }), { maxLength: 200 }), (size, values) => {
        const window = new WindowMaximum(size);
        values.forEach((x, i) => {
          window.push(x);
          expect(window.value).toBe(Math.max(...values.slice(Math.max(0, i + 1 - size), i + 1)));
        });
      }),
    );
  });

  it('starts over after reset', () => {
    const window = new WindowMaximum(2);
    window.push(9);
    window.reset();
    window.push(1);
    expect(window.value).toBe(1);
  });
});
