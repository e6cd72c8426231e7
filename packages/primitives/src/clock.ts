/**
 * Every "now" and every timer of a service comes from an injected Clock, so tests drive time
 * (freshness checks, candle closes, staleness, retries, heartbeats) without sleeping.
 */
export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
  setTimeout(fn: () => void, ms: number): TimerHandle;
  setInterval(fn: () => void, ms: number): TimerHandle;
  clearTimer(handle: TimerHandle): void;
}

export interface TimerHandle {
  /** Lets the process exit while the timer is pending (no-op on the manual clock). */
  unref(): TimerHandle;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  setInterval: (fn, ms) => setInterval(fn, ms),
  clearTimer: (handle) => clearTimeout(handle as unknown as NodeJS.Timeout),
};

interface ManualTimer extends TimerHandle {
  id: number;
  due: number;
  every: number | undefined;
  fn: () => void;
}

/**
 * A clock that moves only when told. `advance(ms)` runs every timer that falls due on the way,
 * in due order, with `now()` set to each timer's due time while it runs.
 */
export class ManualClock implements Clock {
  private current: number;
  private timers: ManualTimer[] = [];
  private nextId = 1;

  constructor(start: number | string | Date = Date.UTC(2026, 0, 5, 12, 0, 0)) {
    this.current = typeof start === 'number' ? start : new Date(start).getTime();
  }

  now(): number {
    return this.current;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    return this.add(fn, ms, undefined);
  }

  setInterval(fn: () => void, ms: number): TimerHandle {
    return this.add(fn, ms, Math.max(1, ms));
  }

  clearTimer(handle: TimerHandle): void {
    this.timers = this.timers.filter((t) => t !== handle);
  }

  /** Sets the time without running timers (they run on the next advance). */
  set(time: number | string | Date): void {
    this.current = typeof time === 'number' ? time : new Date(time).getTime();
  }

  /** Moves time forward, running due timers. */
  advance(ms: number): void {
    const target = this.current + ms;
    for (;;) {
      const next = this.timers.reduce<ManualTimer | undefined>(
        (best, t) => (t.due <= target && (!best || t.due < best.due || (t.due === best.due && t.id < best.id)) ? t : best),
        undefined,
      );
      if (!next) break;
      this.current = Math.max(this.current, next.due);
      if (next.every === undefined) this.clearTimer(next);
      else next.due += next.every;
      next.fn();
    }
    this.current = target;
  }

  /** Like advance, then lets promise callbacks queued by the timers run. */
  async advanceAsync(ms: number): Promise<void> {
    this.advance(ms);
    await new Promise((resolve) => setImmediate(resolve));
  }

  pendingTimers(): number {
    return this.timers.length;
  }

  private add(fn: () => void, ms: number, every: number | undefined): TimerHandle {
    const timer: ManualTimer = {
      id: this.nextId++,
      due: this.current + Math.max(0, ms),
      every,
      fn,
      unref: () => timer,
    };
    this.timers.push(timer);
    return timer;
  }
}
