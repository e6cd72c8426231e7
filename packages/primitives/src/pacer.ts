import { systemClock, type Clock, type TimerHandle } from './clock.js';

export interface PacerOptions {
  /** Tokens added per second. */
  ratePerSecond: number;
  /** Most tokens the bucket holds: the largest burst, and the largest single cost. Starts full. */
  capacity: number;
  clock?: Clock;
}

export interface AcquireOptions {
  /** Gives up waiting: the acquire rejects with the signal's reason and its cost is not spent. */
  signal?: AbortSignal;
  /** Epoch ms on the pacer's clock; an acquire that could not be granted by then rejects at once with a PacerDeadlineError. */
  deadlineMs?: number;
}

/** The wait for tokens would pass the caller's deadline; nothing was spent. */
export class PacerDeadlineError extends Error {
  constructor(readonly waitMs: number) {
    super(`the pacer would grant this only after ${waitMs} ms, past the deadline`);
    this.name = 'PacerDeadlineError';
  }
}

interface Waiter {
  cost: number;
  resolve: () => void;
  reject: (reason: Error) => void;
  signal: AbortSignal | undefined;
  onAbort: () => void;
}

/** The signal's reason when it is an Error (AbortController.abort() gives a DOMException, which is). */
function abortReason(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  return reason instanceof Error ? reason : new Error(`aborted: ${String(reason)}`);
}

/** Float slack when comparing refilled tokens against a cost. */
const EPSILON = 1e-9;

/**
 * A token bucket with a FIFO queue: `acquire(cost)` resolves once `cost` tokens are there and
 * everything queued before it has been granted, so callers are served in order and a burst is
 * spread at `ratePerSecond`. Over any interval of length T it grants at most
 * `capacity + ratePerSecond × T` tokens, which is how a caller keeps under a venue's "N per
 * period" limit (capacity + rate × period ≤ N). Time and timers come from the injected clock.
 */
export class Pacer {
  private readonly clock: Clock;
  private tokens: number;
  private updatedAt: number;
  private readonly queue: Waiter[] = [];
  private timer: TimerHandle | undefined;

  constructor(private readonly options: PacerOptions) {
    if (!(options.ratePerSecond > 0)) throw new RangeError(`ratePerSecond must be positive, got ${options.ratePerSecond}`);
    if (!(options.capacity > 0)) throw new RangeError(`capacity must be positive, got ${options.capacity}`);
    this.clock = options.clock ?? systemClock;
    this.tokens = options.capacity;
    this.updatedAt = this.clock.now();
  }

  /**
   * A pacer that keeps under "at most `limit` per `periodMs`" over every window of that length:
   * half the limit as a burst, the other half refilled over the period (capacity + rate × period
   * = limit).
   */
  static within(limit: number, periodMs: number, clock?: Clock): Pacer {
    return new Pacer({ capacity: limit / 2, ratePerSecond: (limit / 2) * (1000 / periodMs), clock });
  }

  /** Acquires still waiting for their tokens. */
  get queued(): number {
    return this.queue.length;
  }

  /** Resolves when `cost` tokens (default 1) have been taken for the caller. */
  acquire(cost = 1, options: AcquireOptions = {}): Promise<void> {
    if (!(cost > 0) || cost > this.options.capacity) {
      return Promise.reject(new RangeError(`cost must be in (0, ${this.options.capacity}], got ${cost}`));
    }
    const { signal, deadlineMs } = options;
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    this.refill();
    if (this.queue.length === 0 && this.tokens + EPSILON >= cost) {
      this.tokens -= cost;
      return Promise.resolve();
    }
    const waitMs = this.waitMs(cost);
    if (deadlineMs !== undefined && this.clock.now() + waitMs > deadlineMs) return Promise.reject(new PacerDeadlineError(waitMs));
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        cost,
        resolve,
        reject,
        signal,
        onAbort: () => {
          this.queue.splice(this.queue.indexOf(waiter), 1);
          reject(abortReason(signal));
          // The head may have left: the next one's wait is shorter.
          this.schedule();
        },
      };
      signal?.addEventListener('abort', waiter.onAbort, { once: true });
      this.queue.push(waiter);
      if (this.queue.length === 1) this.schedule();
    });
  }

  /** Milliseconds until `cost` more tokens could be granted after everything already queued. */
  waitMs(cost = 1): number {
    this.refill();
    const owed = this.queue.reduce((sum, w) => sum + w.cost, 0) + cost - this.tokens;
    return owed <= EPSILON ? 0 : Math.ceil((owed * 1000) / this.options.ratePerSecond);
  }

  private refill(): void {
    const now = this.clock.now();
    if (now <= this.updatedAt) return;
    this.tokens = Math.min(this.options.capacity, this.tokens + ((now - this.updatedAt) * this.options.ratePerSecond) / 1000);
    this.updatedAt = now;
  }

  private drain(): void {
    this.refill();
    for (let head = this.queue[0]; head && this.tokens + EPSILON >= head.cost; head = this.queue[0]) {
      this.queue.shift();
      this.tokens -= head.cost;
      head.signal?.removeEventListener('abort', head.onAbort);
      head.resolve();
    }
    this.schedule();
  }

  /** One timer, for the moment the head of the queue has its tokens. */
  private schedule(): void {
    if (this.timer) this.clock.clearTimer(this.timer);
    this.timer = undefined;
    const head = this.queue[0];
    if (!head) return;
    this.refill();
    const waitMs = Math.max(0, Math.ceil(((head.cost - this.tokens) * 1000) / this.options.ratePerSecond));
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      this.drain();
    }, waitMs);
  }
}
