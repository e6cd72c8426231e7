import { describe, expect, it } from 'vitest';
import { LruCache } from '../src/simulated/lru-cache.js';

describe('LruCache', () => {
  it('never holds more than its capacity', () => {
    const cache = new LruCache<number, number>(10);
    for (let i = 0; i < 1000; i++) cache.set(i, i);
    expect(cache.size).toBeLessThanOrEqual(10);
    expect(cache.get(999)).toBe(999);
    expect(cache.get(0)).toBeUndefined();
  });

  it('keeps an entry that is read while newer ones arrive', () => {
    const cache = new LruCache<string, number>(4);
    cache.set('kept', 1);
    for (let i = 0; i < 20; i++) {
      cache.set(`other-${i}`, i);
      expect(cache.get('kept')).toBe(1);
    }
  });
});
