import { setTimeout as sleep } from 'node:timers/promises';
import v8 from 'node:v8';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { watchLiveHeap } from '../src/heap-live.js';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

/** A full collection, then a turn for the observer to hear of it. */
async function fullGc(): Promise<void> {
  gc();
  await sleep(20);
}

describe('watchLiveHeap', () => {
  it('reads the heap a full collection leaves: up with what is retained, down when it is let go', async () => {
    const watch = watchLiveHeap();
    try {
      expect(watch.bytes()).toBe(0);
      await fullGc();
      const base = watch.bytes();
      expect(base).toBeGreaterThan(0);

      let retained: number[][] | undefined = Array.from({ length: 200 }, () => Array.from({ length: 10_000 }, (_, i) => i + 0.5));
      // Garbage made after the collection does not count until the next one.
      Array.from({ length: 100 }, () => new Float64Array(10_000).fill(1));
      await fullGc();
      const holding = watch.bytes();
      expect(holding - base).toBeGreaterThan(10 * 1024 * 1024);

      expect(retained.length).toBe(200);
      retained = undefined;
      await fullGc();
      expect(watch.bytes()).toBeLessThan(holding - 10 * 1024 * 1024);
    } finally {
      watch.stop();
    }
  });
});
