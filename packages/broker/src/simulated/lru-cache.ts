/**
 * A bounded cache that keeps recently used entries: two generations of at most capacity/2
 * entries each; a hit in the old generation moves the entry to the new one, and when the new
 * generation fills up, the old one is dropped whole. O(1) per call, with none of the cost V8's
 * Map pays when entries are deleted one by one from its front.
 */
export class LruCache<K, V> {
  private recent = new Map<K, V>();
  private older = new Map<K, V>();
  private readonly generationSize: number;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 2) throw new RangeError('capacity must be an integer of at least 2');
    this.generationSize = Math.floor(capacity / 2);
  }

  get size(): number {
    return this.recent.size + this.older.size;
  }

  get(key: K): V | undefined {
    const value = this.recent.get(key);
    if (value !== undefined) return value;
    const old = this.older.get(key);
    if (old !== undefined) {
      this.older.delete(key);
      this.store(key, old);
    }
    return old;
  }

  set(key: K, value: V): void {
    this.older.delete(key);
    this.store(key, value);
  }

  clear(): void {
    this.recent.clear();
    this.older.clear();
  }

  private store(key: K, value: V): void {
    if (!this.recent.has(key) && this.recent.size >= this.generationSize) {
      this.older = this.recent;
      this.recent = new Map();
    }
    this.recent.set(key, value);
  }
}
