/**
 * The newest `capacity` items pushed, oldest first: a long-running process keeps a window of
 * history instead of all of it. A push past capacity drops the oldest in O(1).
 */
export class RingBuffer<T> implements Iterable<T> {
  private readonly items: T[] = [];
  private start = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError('capacity must be a positive integer');
  }

  get size(): number {
    return this.items.length;
  }

  /** The oldest item kept. */
  get oldest(): T | undefined {
    return this.items[this.start];
  }

  push(item: T): void {
    if (this.items.length < this.capacity) {
      this.items.push(item);
      return;
    }
    this.items[this.start] = item;
    this.start = (this.start + 1) % this.capacity;
  }

  /** The newest `count` items (all when omitted), oldest first. */
  last(count: number = this.items.length): T[] {
    const n = Math.min(count, this.items.length);
    const out = new Array<T>(n);
    const first = this.items.length - n;
    for (let i = 0; i < n; i++) out[i] = this.at(first + i);
    return out;
  }

  *[Symbol.iterator](): Iterator<T> {
    for (let i = 0; i < this.items.length; i++) yield this.at(i);
  }

  /** The `index`-th item kept, oldest first. */
  private at(index: number): T {
    return this.items[(this.start + index) % this.items.length] as T;
  }
}
