import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IndexedHeap, type HeapEntry } from '../src/simulated/indexed-heap.js';

describe('IndexedHeap', () => {
  it('pops entries by key, then by sequence, after any mix of pushes, pops and removals', () => {
    const step = fc.oneof(
      fc.record({ op: fc.constant('push' as const), key: fc.integer({ min: -5, max: 5 }) }),
      fc.record({ op: fc.constant('pop' as const) }),
      fc.record({ op: fc.constant('remove' as const), pick: fc.nat() }),
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 200 }), (steps) => {
        const heap = new IndexedHeap<number>();
        let live: HeapEntry<number>[] = [];
        let seq = 0;
        const byOrder = (a: HeapEntry<number>, b: HeapEntry<number>) => a.key - b.key || a.seq - b.seq;
        for (const s of steps) {
          if (s.op === 'push') {
            live.push(heap.push(seq, s.key, seq));
            seq++;
          } else if (s.op === 'pop') {
            const expected = [...live].sort(byOrder)[0];
            expect(heap.pop()).toBe(expected);
            live = live.filter((e) => e !== expected);
          } else if (live.length > 0) {
            const gone = live[s.pick % live.length]!;
            heap.remove(gone);
            live = live.filter((e) => e !== gone);
          }
          expect(heap.size).toBe(live.length);
        }
        expect([...Array(live.length)].map(() => heap.pop())).toEqual([...live].sort(byOrder));
      }),
    );
  });

  it('leaves an entry that is already out alone', () => {
    const heap = new IndexedHeap<string>();
    const a = heap.push('a', 1, 1);
    heap.push('b', 2, 2);
    heap.remove(a);
    heap.remove(a);
    expect(heap.size).toBe(1);
    expect(heap.peek()?.value).toBe('b');
  });
});
