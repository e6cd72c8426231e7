import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as pause } from 'node:timers/promises';
import { z } from 'zod';
import { BrokerError } from '../errors.js';

/**
 * A lock its holder has not touched for this long was left by a process that died or hung: the
 * holder touches it every TOUCH_MS while it renews, however long its request may take.
 */
const STALE_MS = 30_000;
const TOUCH_MS = 5_000;
/** How long a renewal waits for another process's lock: past the stale age, so a dead holder's lock is broken rather than waited out. */
const WAIT_MS = 45_000;
const POLL_MS = 20;

const LockSchema = z.object({ pid: z.number().int(), host: z.string(), atMs: z.number(), id: z.string() });
type LockRecord = z.output<typeof LockSchema>;
/** A lock as a waiter sees it: its record, and when its holder last touched it (the file's modification time). */
type HeldLock = LockRecord & { touchedMs: number };

/**
 * Runs `fn` while holding `<file>.lock`, made by an exclusive create (`wx`) holding this process's
 * pid, host name, the time it was taken and an id of its own, and touched every 5 s while `fn`
 * runs. Times are the wall clock's (and the file system's), not an injected clock: other
 * processes read them, and share no other. Another process's lock is polled every 20 ms for at
 * least WAIT_MS (45 s); it is broken when its holder is gone (same host, no such pid) or has not
 * touched it for STALE_MS (30 s). Containers have pids of their own, so a lock from another host
 * is judged by its age only. Released only while it is still ours: a lock broken as stale
 * meanwhile belongs to its new holder.
 */
export async function withFileLock<T>(file: string, fn: () => Promise<T>): Promise<T> {
  const lockFile = `${file}.lock`;
  const mine: LockRecord = { pid: process.pid, host: os.hostname(), atMs: Date.now(), id: randomUUID() };
  for (let waitedMs = 0; ; waitedMs += POLL_MS) {
    const outcome = tryCreate(lockFile, mine);
    if (outcome === 'created') break;
    // A folder that cannot hold the lock cannot hold the pair either: renew as a lone process
    // would, and the failed save says so in tokenStatus().
    if (outcome === 'impossible') return fn();
    const held = readLock(lockFile);
    if (held === undefined) continue;
    if (isStale(held)) {
      breakLock(lockFile, held);
      continue;
    }
    if (waitedMs >= WAIT_MS) {
      throw new BrokerError(
        'unavailable',
        `${lockFile} is held by pid ${held.pid} on ${held.host} since ${new Date(held.atMs).toISOString()}; renewal retried at the next session`,
      );
    }
    await pause(POLL_MS);
    mine.atMs = Date.now();
  }
  const isMine = () => readLock(lockFile)?.id === mine.id;
  const touching = setInterval(() => {
    try {
      const now = new Date();
      if (isMine()) fs.utimesSync(lockFile, now, now);
    } catch {
      // Broken and moved aside meanwhile: there is nothing of ours left to keep fresh.
    }
  }, TOUCH_MS);
  touching.unref();
  try {
    return await fn();
  } finally {
    clearInterval(touching);
    if (isMine()) fs.rmSync(lockFile, { force: true });
  }
}

function tryCreate(lockFile: string, record: LockRecord): 'created' | 'held' | 'impossible' {
  try {
    fs.mkdirSync(path.dirname(lockFile), { recursive: true });
  } catch {
    return 'impossible';
  }
  let fd: number;
  try {
    fd = fs.openSync(lockFile, 'wx', 0o600);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EEXIST' ? 'held' : 'impossible';
  }
  try {
    fs.writeFileSync(fd, JSON.stringify(record));
  } finally {
    fs.closeSync(fd);
  }
  return 'created';
}

/**
 * The lock, undefined when it is gone. One whose record it cannot read (its holder is between the
 * create and the write, or died there) is nobody's known, and told apart by its modification time.
 */
function readLock(lockFile: string): HeldLock | undefined {
  let text: string;
  let touchedMs: number;
  try {
    text = fs.readFileSync(lockFile, 'utf8');
    touchedMs = fs.statSync(lockFile).mtimeMs;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  const parsed = LockSchema.safeParse(value);
  return { ...(parsed.success ? parsed.data : { pid: 0, host: '', atMs: touchedMs, id: `unreadable@${touchedMs}` }), touchedMs };
}

function isStale(held: HeldLock): boolean {
  if (Date.now() - held.touchedMs > STALE_MS) return true;
  return held.host === os.hostname() && !isAlive(held.pid);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists under another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Moves the stale lock aside under a name of this process's own (a rename only one breaker wins),
 * then checks it moved the lock it judged: one another waiter made meanwhile is put back, unless a
 * third has made one since.
 */
function breakLock(lockFile: string, stale: HeldLock): void {
  const aside = `${lockFile}.${process.pid}.${randomUUID()}.stale`;
  try {
    fs.renameSync(lockFile, aside);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  if (readLock(aside)?.id !== stale.id) {
    try {
      fs.linkSync(aside, lockFile);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  fs.rmSync(aside, { force: true });
}
