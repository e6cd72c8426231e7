import type { Clock, TimerHandle } from '@fxdesk/primitives';

/**
 * Spaces requests so that at most `limit` start in any `windowMs` (a sliding window on the
 * injected clock). Callers wait in arrival order.
 */
export class RatePacer {
  private readonly clock: Clock;
  private readonly limit: number;
  private readonly windowMs: number;
  private readonly granted: number[] = [];
  private queue: { resolve: () => void; reject: (err: unknown) => void }[] = [];
  private timer: TimerHandle | undefined;

  constructor(clock: Clock, limit: number, windowMs = 1000) {
    this.clock = clock;
    this.limit = limit;
    this.windowMs = windowMs;
  }

  /** Resolves when one more request may start. */
  acquire(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ resolve, reject });
      this.drain();
    });
  }

  /** Fails every waiting caller with `err` (the link they were waiting to use is gone). */
  cancel(err: unknown): void {
    if (this.timer) this.clock.clearTimer(this.timer);
    this.timer = undefined;
    for (const waiter of this.queue.splice(0)) waiter.reject(err);
  }

  private drain(): void {
    while (this.queue.length > 0) {
      const now = this.clock.now();
      while (this.granted.length > 0 && (this.granted[0] as number) <= now - this.windowMs) this.granted.shift();
      if (this.granted.length >= this.limit) {
        this.wake((this.granted[0] as number) + this.windowMs - now);
        return;
      }
      this.granted.push(now);
      this.queue.shift()?.resolve();
    }
  }

  private wake(delayMs: number): void {
    if (this.timer) return;
    this.timer = this.clock
      .setTimeout(() => {
        this.timer = undefined;
        this.drain();
      }, delayMs)
      .unref();
  }
}
