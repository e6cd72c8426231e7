/**
 * The latest `capacity` items appended, oldest first: a long-running process keeps a window of
 * history instead of all of it. Appending is O(1) amortized.
 */
export class BoundedLog<T> implements Iterable<T> {
  private items: T[] = [];
  private head = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError('capacity must be a positive integer');
  }

  get size(): number {
    return this.items.length - this.head;
  }

  /** The oldest item kept. */
  get oldest(): T | undefined {
    return this.items[this.head];
  }

  push(item: T): void {
    this.items.push(item);
    if (this.items.length - this.head > this.capacity) this.head++;
    // Dropping the evicted prefix now and then keeps the array within twice the capacity.
    if (this.head >= this.capacity) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
  }

  *[Symbol.iterator](): Iterator<T> {
    for (let i = this.head; i < this.items.length; i++) yield this.items[i]!;
  }
}
