/**
 * Sending times reserved ahead under "at most `limit` messages in any `windowMs`" rules, so that a
 * durable queue can park each message until its own time instead of holding a worker while it
 * waits. A key is one rule over one scope (a chat, a group, the whole bot); a message names every
 * key it counts against and gets the earliest time that all of them allow.
 *
 * The rules are sliding windows: a time t is admitted to a key when every window of `windowMs`
 * that contains t holds fewer than `limit` other reserved times. "1 per 1000 ms" is therefore a
 * spacing of at least a second; "30 per 1000 ms" allows a burst of 30, then waits for the window.
 */
export interface WindowRule {
  limit: number;
  windowMs: number;
}

/** One scope's reserved times, sorted. */
class Window {
  readonly times: number[] = [];

  constructor(readonly rule: WindowRule) {}

  /** The index of the first time at or after `t` (strictly after with `after`). */
  private index(t: number, after = false): number {
    let lo = 0;
    let hi = this.times.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const x = this.times[mid] as number;
      if (x < t || (after && x === t)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Whether `t` may be added: every window of windowMs holding t holds fewer than `limit` times already. */
  admits(t: number): boolean {
    const { limit, windowMs } = this.rule;
    // The fullest window holding t starts at t or at a reserved time in (t - windowMs, t].
    const from = this.index(t - windowMs, true);
    const last = this.index(t, true);
    for (let i = from; i <= last; i++) {
      const start = i < last ? (this.times[i] as number) : t;
      if (this.index(start + windowMs) - this.index(start) >= limit) return false;
    }
    return true;
  }

  /** The earliest time at or after `t` this window admits. */
  earliestFrom(t: number): number {
    if (this.admits(t)) return t;
    // Only the moment a reserved time leaves a window can open room: each such end after t, in order.
    for (let i = this.index(t - this.rule.windowMs, true); i < this.times.length; i++) {
      const candidate = (this.times[i] as number) + this.rule.windowMs;
      if (candidate > t && this.admits(candidate)) return candidate;
    }
    return Math.max(t, (this.times.at(-1) ?? t) + this.rule.windowMs);
  }

  add(t: number): void {
    this.times.splice(this.index(t, true), 0, t);
  }

  remove(t: number): void {
    const i = this.index(t);
    if (this.times[i] === t) this.times.splice(i, 1);
  }

  /** Forgets times no window at or after `now` can hold. */
  prune(now: number): void {
    const keep = this.index(now - this.rule.windowMs, true);
    if (keep > 0) this.times.splice(0, keep);
  }
}

/** A scope and the rule it keeps: `{ key: 'chat:42', rule: { limit: 1, windowMs: 1000 } }`. */
export interface PacingKey {
  key: string;
  rule: WindowRule;
}

/** A calendar as plain data (JSON), to keep it in a database between decisions. */
export interface CalendarSnapshot {
  windows: [key: string, rule: WindowRule, times: number[]][];
  held: [id: string, at: number, keys: PacingKey[]][];
}

/** The reserved times of every scope, and which reservation each message holds. */
export class PacingCalendar {
  private readonly windows = new Map<string, Window>();
  private readonly held = new Map<string, { at: number; keys: PacingKey[] }>();

  static restore(snapshot: CalendarSnapshot): PacingCalendar {
    const calendar = new PacingCalendar();
    for (const [key, rule, times] of snapshot.windows) {
      const window = calendar.window({ key, rule });
      for (const t of times) window.times.push(t);
    }
    for (const [id, at, keys] of snapshot.held) calendar.held.set(id, { at, keys });
    return calendar;
  }

  snapshot(): CalendarSnapshot {
    return {
      windows: [...this.windows].map(([key, w]) => [key, w.rule, w.times]),
      held: [...this.held].map(([id, mine]) => [id, mine.at, mine.keys]),
    };
  }

  private window(k: PacingKey): Window {
    let w = this.windows.get(k.key);
    if (!w) {
      w = new Window(k.rule);
      this.windows.set(k.key, w);
    }
    return w;
  }

  /** The earliest time at or after `from` that every key admits (nothing is reserved). */
  earliest(keys: PacingKey[], from: number): number {
    let t = from;
    for (let moved = true; moved;) {
      moved = false;
      for (const k of keys) {
        const next = this.window(k).earliestFrom(t);
        if (next > t) {
          t = next;
          moved = true;
        }
      }
    }
    return t;
  }

  /**
   * The time reserved for `id`'s next message: at or before `now` means go now (the time is taken),
   * a later one is kept for it until it comes back then. `from` is the earliest time allowed at all
   * (a hold); a reservation made for other keys or before `from` is made again.
   */
  reserve(id: string, keys: PacingKey[], now: number, from = now): number {
    const mine = this.held.get(id);
    if (mine) {
      const sameKeys = mine.keys.length === keys.length && mine.keys.every((k, i) => k.key === keys[i]?.key);
      if (sameKeys && mine.at >= from) {
        if (mine.at <= now) this.held.delete(id);
        return mine.at;
      }
      this.release(id);
    }
    const at = this.earliest(keys, Math.max(now, from));
    for (const k of keys) this.window(k).add(at);
    if (at > now) this.held.set(id, { at, keys });
    return at;
  }

  /** Gives back a time taken for a message that was not sent after all. */
  unreserve(keys: PacingKey[], at: number): void {
    for (const k of keys) this.window(k).remove(at);
  }

  /** Gives back a reservation not used (its message was held, or moved to other keys). */
  release(id: string): void {
    const mine = this.held.get(id);
    if (!mine) return;
    this.held.delete(id);
    for (const k of mine.keys) this.window(k).remove(mine.at);
  }

  /**
   * Gives back every reservation that counts against `key` (after a hold on it): each message
   * reserves again when it comes back, in the order its old times bring them, so the queue keeps
   * its order behind the hold.
   */
  releaseAll(key: string): void {
    for (const [id, mine] of this.held) if (mine.keys.some((k) => k.key === key)) this.release(id);
  }

  /** Forgets what is past every window, and reservations nobody came back for within `staleMs`. */
  prune(now: number, staleMs: number): void {
    for (const [id, mine] of this.held) if (mine.at < now - staleMs) this.release(id);
    for (const [key, w] of this.windows) {
      w.prune(now);
      if (w.times.length === 0) this.windows.delete(key);
    }
  }
}

/** A scope a provider held (a 429's retry_after, WhatsApp's 4^X wait): nothing goes before `until`; `strikes` holds in a row. */
export interface PacingHold {
  until: number;
  strikes: number;
}

/** What a pacer keeps between its decisions: its calendar, its holds by scope, when it last pruned. */
export interface PacingState {
  calendar: PacingCalendar;
  holds: Map<string, PacingHold>;
  prunedAt: number;
}

/** Where pacers keep their state, shared by every worker that sends for the same account. */
export interface PacingBook {
  /**
   * Runs `decide` on the state of the pacer `name`, alone: no other decision on that pacer, in
   * this process or another sharing the book, runs in between. What `decide` changes is kept.
   */
  decide<T>(name: string, decide: (state: PacingState) => T): Promise<T>;
}

function emptyState(): PacingState {
  return { calendar: new PacingCalendar(), holds: new Map(), prunedAt: Number.NEGATIVE_INFINITY };
}

/** A pacer's state as JSON text (PacingBook implementations that keep it in a database). */
export function serializePacing(state: PacingState): string {
  return JSON.stringify({ calendar: state.calendar.snapshot(), holds: [...state.holds], prunedAt: Number.isFinite(state.prunedAt) ? state.prunedAt : null });
}

/** The state serializePacing wrote; an empty one for no text. */
export function parsePacing(text: string | null | undefined): PacingState {
  if (!text) return emptyState();
  const data = JSON.parse(text) as { calendar: CalendarSnapshot; holds: [string, PacingHold][]; prunedAt: number | null };
  return { calendar: PacingCalendar.restore(data.calendar), holds: new Map(data.holds), prunedAt: data.prunedAt ?? Number.NEGATIVE_INFINITY };
}

/** The pacers' state in this process's memory: one process sends for the account (the SQLite default). */
export class MemoryPacingBook implements PacingBook {
  private readonly states = new Map<string, PacingState>();

  decide<T>(name: string, decide: (state: PacingState) => T): Promise<T> {
    let state = this.states.get(name);
    if (!state) {
      state = emptyState();
      this.states.set(name, state);
    }
    try {
      return Promise.resolve(decide(state));
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }
}
