/** An entry of an IndexedHeap: its value, its sort key and tie-breaking sequence, and where it sits (−1 once out). */
export interface HeapEntry<T> {
  readonly value: T;
  readonly key: number;
  readonly seq: number;
  index: number;
}

/**
 * A binary min-heap on (key, seq) whose entries know their index, so that any entry can leave
 * in O(log n), not only the top: an order leaves the trigger book when it expires, a position's
 * take-profit level when its stop loss closes it.
 */
export class IndexedHeap<T> {
  private readonly entries: HeapEntry<T>[] = [];

  get size(): number {
    return this.entries.length;
  }

  peek(): HeapEntry<T> | undefined {
    return this.entries[0];
  }

  push(value: T, key: number, seq: number): HeapEntry<T> {
    const entry: HeapEntry<T> = { value, key, seq, index: this.entries.length };
    this.entries.push(entry);
    this.siftUp(entry.index);
    return entry;
  }

  pop(): HeapEntry<T> | undefined {
    const top = this.entries[0];
    if (top) this.remove(top);
    return top;
  }

  /** Takes `entry` out; an entry already out is left alone. */
  remove(entry: HeapEntry<T>): void {
    const i = entry.index;
    if (i < 0 || this.entries[i] !== entry) return;
    entry.index = -1;
    const last = this.entries.pop()!;
    if (last === entry) return;
    last.index = i;
    this.entries[i] = last;
    this.siftDown(i);
    this.siftUp(last.index);
  }

  private isBefore(a: HeapEntry<T>, b: HeapEntry<T>): boolean {
    return a.key < b.key || (a.key === b.key && a.seq < b.seq);
  }

  private siftUp(i: number): void {
    const entries = this.entries;
    const entry = entries[i]!;
    while (i > 0) {
      const parentIndex = (i - 1) >> 1;
      const parent = entries[parentIndex]!;
      if (!this.isBefore(entry, parent)) break;
      entries[i] = parent;
      parent.index = i;
      i = parentIndex;
    }
    entries[i] = entry;
    entry.index = i;
  }

  private siftDown(i: number): void {
    const entries = this.entries;
    const entry = entries[i]!;
    const n = entries.length;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= n) break;
      const right = left + 1;
      const child = right < n && this.isBefore(entries[right]!, entries[left]!) ? right : left;
      if (!this.isBefore(entries[child]!, entry)) break;
      entries[i] = entries[child]!;
      entries[i]!.index = i;
      i = child;
    }
    entries[i] = entry;
    entry.index = i;
  }
}
