import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as pause } from 'node:timers/promises';
import { z } from 'zod';
import { BrokerError } from '../errors.js';

/**
 * A lock older than this was left by a process that died or hung while renewing: a renewal holds
 * it for one ProtoOARefreshTokenReq, which times out after `requestTimeoutMs` (10 s by default).
 */
export const TOKEN_LOCK_STALE_MS = 30_000;
/** How long a renewal waits for another process's lock: past the stale age, so a dead holder's lock is broken rather than waited out. */
export const TOKEN_LOCK_WAIT_MS = 45_000;
const POLL_MS = 20;

const LockSchema = z.object({ pid: z.number().int(), host: z.string(), atMs: z.number(), id: z.string() });
type LockRecord = z.output<typeof LockSchema>;

/**
 * Runs `fn` while holding `<file>.lock`, made by an exclusive create (`wx`) holding this process's
 * pid, host name, the time and an id of its own. Times are the wall clock's, not an injected one:
 * they are read by other processes, which share no other. Another process's lock is waited for,
 * polled every 20 ms for at most
 * TOKEN_LOCK_WAIT_MS; it is broken when its holder is gone (same host, no such pid) or it is older
 * than TOKEN_LOCK_STALE_MS. Containers have their own pids, so a lock from another host is judged
 * by its age only. Released only while it is still ours: a lock broken as stale meanwhile belongs
 * to its new holder.
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
    if (isStale(held, Date.now())) {
      breakLock(lockFile, held);
      continue;
    }
    if (waitedMs >= TOKEN_LOCK_WAIT_MS) {
      throw new BrokerError(
        'unavailable',
        `${lockFile} is held by pid ${held.pid} on ${held.host} since ${new Date(held.atMs).toISOString()}; renewal retried at the next session`,
      );
    }
    await pause(POLL_MS);
    mine.atMs = Date.now();
  }
  try {
    return await fn();
  } finally {
    if (readLock(lockFile)?.id === mine.id) fs.rmSync(lockFile, { force: true });
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
 * The lock's record, undefined when it is gone. One it cannot read (its holder is between the
 * create and the write, or died there) counts from the file's modification time, by nobody known.
 */
function readLock(lockFile: string): LockRecord | undefined {
  let text: string;
  let modifiedMs: number;
  try {
    text = fs.readFileSync(lockFile, 'utf8');
    modifiedMs = fs.statSync(lockFile).mtimeMs;
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
  return parsed.success ? parsed.data : { pid: 0, host: '', atMs: modifiedMs, id: `unreadable@${modifiedMs}` };
}

function isStale(held: LockRecord, nowMs: number): boolean {
  if (nowMs - held.atMs > TOKEN_LOCK_STALE_MS) return true;
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
function breakLock(lockFile: string, stale: LockRecord): void {
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
