import { describe, expect, it } from 'vitest';
import { WilderAverage } from '../src/wilder.js';

describe('WilderAverage', () => {
  it('answers null until period values have come, then their simple mean', () => {
    const average = new WilderAverage(3);
    expect(average.update(1)).toBeNull();
    expect(average.update(2)).toBeNull();
    expect(average.update(6)).toBe(3);
  });

  it('then smooths each value in as (previous × (n − 1) + x) / n', () => {
    const average = new WilderAverage(3);
    for (const x of [1, 2, 6]) average.update(x);
    expect(average.update(9)).toBe((3 * 2 + 9) / 3);
    expect(average.value).toBe(5);
  });

  it('push says when there is an average, and current holds it (NaN before)', () => {
    const pushed = new WilderAverage(3);
    const updated = new WilderAverage(3);
    expect(pushed.current).toBeNaN();
    for (const x of [1, 2, 6, 9, 0.5, 4]) {
      const v = updated.update(x);
      expect(pushed.push(x)).toBe(v !== null);
      if (v === null) expect(pushed.current).toBeNaN();
      else expect(pushed.current).toBe(v);
      expect(pushed.value).toBe(v);
    }
  });

  it('starts over after reset', () => {
    const average = new WilderAverage(2);
    for (const x of [4, 8, 10]) average.update(x);
    average.reset();
    expect(average.value).toBeNull();
    expect(average.update(1)).toBeNull();
    expect(average.update(3)).toBe(2);
  });
});
