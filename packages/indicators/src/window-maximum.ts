/**
 * The largest of the last `size` values pushed, kept by a monotonic queue in a ring: O(1)
 * amortized work per value, no rescan of the window. A window minimum is the maximum of the
 * negated values.
 */
export class WindowMaximum {
  private readonly seqs: Float64Array;
  private readonly vals: Float64Array;
  private head = 0;
  private len = 0;
  private pushed = 0;

  constructor(private readonly size: number) {
    this.seqs = new Float64Array(size);
    this.vals = new Float64Array(size);
  }

  push(value: number): void {
    const t = this.pushed++;
    const cap = this.size;
    const q = this.seqs;
    const qv = this.vals;
    let head = this.head;
    let len = this.len;
    // The front left the window when `size` values came after it.
    if (len > 0 && q[head]! <= t - cap) {
      head = head + 1 === cap ? 0 : head + 1;
      len--;
    }
    // Values at the back no larger than this one can never be the maximum again.
    while (len > 0) {
      let back = head + len - 1;
      if (back >= cap) back -= cap;
      if (qv[back]! > value) break;
      len--;
    }
    let slot = head + len;
    if (slot >= cap) slot -= cap;
    q[slot] = t;
    qv[slot] = value;
    this.head = head;
    this.len = len + 1;
  }

  /** The maximum of the window (of the values pushed so far while fewer than `size`); 0 before any. */
  get value(): number {
    return this.vals[this.head]!;
  }

  reset(): void {
    this.head = this.len = this.pushed = 0;
  }
}
