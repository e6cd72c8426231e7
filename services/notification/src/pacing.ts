import type { Database } from '@fxdesk/core';

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

/** The index in sorted `times` of the first time at or after `t` (strictly after with `after`). */
function indexIn(times: number[], t: number, after = false): number {
  let lo = 0;
  let hi = times.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const x = times[mid] as number;
    if (x < t || (after && x === t)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Whether `t` may join sorted `times`: every window of windowMs holding t holds fewer than `limit` of them. */
function admitsIn(times: number[], { limit, windowMs }: WindowRule, t: number): boolean {
  // The fullest window holding t starts at t or at a time in (t - windowMs, t].
  const from = indexIn(times, t - windowMs, true);
  const last = indexIn(times, t, true);
  for (let i = from; i <= last; i++) {
    const start = i < last ? (times[i] as number) : t;
    if (indexIn(times, start + windowMs) - indexIn(times, start) >= limit) return false;
  }
  return true;
}

/** The earliest time at or after `t` that sorted `times` admit. */
function earliestIn(times: number[], rule: WindowRule, t: number): number {
  if (admitsIn(times, rule, t)) return t;
  // Only the moment a time leaves a window can open room: each such end after t, in order.
  for (let i = indexIn(times, t - rule.windowMs, true); i < times.length; i++) {
    const candidate = (times[i] as number) + rule.windowMs;
    if (candidate > t && admitsIn(times, rule, candidate)) return candidate;
  }
  return Math.max(t, (times.at(-1) ?? t) + rule.windowMs);
}

function insertSorted(times: number[], t: number): void {
  times.splice(indexIn(times, t, true), 0, t);
}

function removeSorted(times: number[], t: number): void {
  const i = indexIn(times, t);
  if (times[i] === t) times.splice(i, 1);
}

/**
 * One scope's times, sorted: the times messages went (or were let go), and the times booked for
 * messages still waiting, which `booked` lists again.
 */
class Window {
  readonly times: number[] = [];
  readonly booked: number[] = [];

  constructor(readonly rule: WindowRule) {}

  /** The times messages went: `times` without the bookings. */
  private sent(): number[] {
    const sent: number[] = [];
    let j = 0;
    for (const t of this.times) {
      if (this.booked[j] === t) j++;
      else sent.push(t);
    }
    return sent;
  }

  /** The earliest time at or after `t` this window admits, counting the bookings or only the messages that went. */
  earliestFrom(t: number, countBooked: boolean): number {
    return earliestIn(countBooked ? this.times : this.sent(), this.rule, t);
  }

  add(t: number, booked: boolean): void {
    insertSorted(this.times, t);
    if (booked) insertSorted(this.booked, t);
  }

  remove(t: number, booked: boolean): void {
    removeSorted(this.times, t);
    if (booked) removeSorted(this.booked, t);
  }

  /** Forgets times no window at or after `now` can hold. */
  prune(now: number): void {
    for (const times of [this.times, this.booked]) {
      const keep = indexIn(times, now - this.rule.windowMs, true);
      if (keep > 0) times.splice(0, keep);
    }
  }
}

/** A scope and the rule it keeps: `{ key: 'chat:42', rule: { limit: 1, windowMs: 1000 } }`. */
export interface PacingKey {
  key: string;
  rule: WindowRule;
}

/** A calendar as plain data (JSON), to keep it in a database between decisions. */
export interface CalendarSnapshot {
  windows: [key: string, rule: WindowRule, times: number[], booked: number[]][];
  held: [id: string, at: number, keys: PacingKey[]][];
}

/** The reserved times of every scope, and which reservation each message holds. */
export class PacingCalendar {
  private readonly windows = new Map<string, Window>();
  private readonly held = new Map<string, { at: number; keys: PacingKey[] }>();

  static restore(snapshot: CalendarSnapshot): PacingCalendar {
    const calendar = new PacingCalendar();
    for (const [key, rule, times, booked] of snapshot.windows) {
      const window = calendar.window({ key, rule });
      for (const t of times) window.times.push(t);
      for (const t of booked) window.booked.push(t);
    }
    for (const [id, at, keys] of snapshot.held) calendar.held.set(id, { at, keys });
    return calendar;
  }

  snapshot(): CalendarSnapshot {
    return {
      windows: [...this.windows].map(([key, w]) => [key, w.rule, w.times, w.booked]),
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

  /**
   * The earliest time at or after `from` that every key admits (nothing is reserved), counting the
   * times booked for waiting messages, or with `countBooked` false only the messages that went.
   */
  earliest(keys: PacingKey[], from: number, countBooked = true): number {
    let t = from;
    for (let moved = true; moved;) {
      moved = false;
      for (const k of keys) {
        const next = this.window(k).earliestFrom(t, countBooked);
        if (next > t) {
          t = next;
          moved = true;
        }
      }
    }
    return t;
  }

  /**
   * The time of `id`'s next message: at or before `now` means go now (the time is taken), a later
   * one is booked for it until it comes back then. `from` is the earliest time allowed at all (a
   * hold); a booking made for other keys, or before a hold that has not ended, is made again.
   *
   * A message whose booked time has come goes as soon as the messages that actually went allow:
   * at once when it comes back on time, and when it comes back late (a busy worker, a slow claim)
   * also at once unless the one booked before it went late too and less than a window ago, then
   * that much later. Booked times only place it in the queue: checked against them, a late message
   * would fall behind every message booked after it, and checked against none, two late sends
   * could land closer than a rule allows.
   */
  reserve(id: string, keys: PacingKey[], now: number, from = now): number {
    const mine = this.held.get(id);
    if (mine) {
      const sameKeys = mine.keys.length === keys.length && mine.keys.every((k, i) => k.key === keys[i]?.key);
      if (sameKeys && (mine.at >= from || from <= now)) {
        if (mine.at > now) return mine.at;
        this.release(id);
        return this.take(id, keys, now, this.earliest(keys, now, false));
      }
      this.release(id);
    }
    return this.take(id, keys, now, this.earliest(keys, Math.max(now, from)));
  }

  /** Counts `at` against every key: taken when it is now or past, else booked for `id`. */
  private take(id: string, keys: PacingKey[], now: number, at: number): number {
    const booked = at > now;
    for (const k of keys) this.window(k).add(at, booked);
    if (booked) this.held.set(id, { at, keys });
    return at;
  }

  /** Gives back a time taken for a message that was not sent after all. */
  unreserve(keys: PacingKey[], at: number): void {
    for (const k of keys) this.window(k).remove(at, false);
  }

  /** Gives back a booking not used (its message was held, or moved to other keys). */
  release(id: string): void {
    const mine = this.held.get(id);
    if (!mine) return;
    this.held.delete(id);
    for (const k of mine.keys) this.window(k).remove(mine.at, true);
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

/** A message's turn, and the time the pacer decided it at: a turn after `now` is a wait. */
export interface Turn {
  at: number;
  now: number;
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

/**
 * The pacers' state in the store's database, one row per pacer (`notification_pacing`): a decision
 * locks its row (`FOR UPDATE` where replicas share the database), reads the calendar, decides and
 * writes it back in one transaction, so every replica sending for the account takes its turns on
 * one calendar.
 */
export class DatabasePacingBook implements PacingBook {
  constructor(private readonly db: Database) {}

  decide<T>(name: string, decide: (state: PacingState) => T): Promise<T> {
    return this.db.transaction(async (tx) => {
      const select = `SELECT state FROM notification_pacing WHERE name = @name ${tx.dialect.forUpdate}`;
      let row = await tx.one<{ state: string | null }>(select, { name });
      if (row === undefined) {
        await tx.run('INSERT INTO notification_pacing (name, state) VALUES (@name, NULL) ON CONFLICT (name) DO NOTHING', { name });
        row = await tx.one<{ state: string | null }>(select, { name });
      }
      const before = row?.state ?? null;
      const state = parsePacing(before);
      const result = decide(state);
      const after = serializePacing(state);
      if (after !== before) await tx.run('UPDATE notification_pacing SET state = @state WHERE name = @name', { name, state: after });
      return result;
    });
  }
}
