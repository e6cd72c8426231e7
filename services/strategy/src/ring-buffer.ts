/** The newest `capacity` items, oldest first; a push past capacity drops the oldest in O(1). */
export class RingBuffer<T> {
  private readonly items: T[] = [];
  private start = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError('capacity must be a positive integer');
  }

  get size(): number {
    return this.items.length;
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
    const out: T[] = new Array(n);
    const first = this.items.length - n;
    for (let i = 0; i < n; i++) out[i] = this.items[(this.start + first + i) % this.items.length] as T;
    return out;
  }
}
