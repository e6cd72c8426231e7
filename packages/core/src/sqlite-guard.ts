import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { SqliteDatabase } from './sqlite.js';

/**
 * A database file a service must not start on: damaged (`PRAGMA quick_check` fails), or not the
 * database its identity marker says this data directory held (missing, empty, or another one).
 * The message is one line naming the file and what to do.
 */
export class UnusableDatabaseError extends Error {
  constructor(
    readonly file: string,
    reason: string,
  ) {
    super(`${file} ${reason}`);
    this.name = 'UnusableDatabaseError';
  }
}

/** SQLite's codes for a file that is damaged or is no database at all. */
const DAMAGED = /^SQLITE_(CORRUPT|NOTADB)/;

/** What to do about a damaged file, in one sentence. */
const DAMAGED_ADVICE = 'restore it from a backup, or move it aside (with its -wal and -shm files) and start once with --reset to begin with an empty database';

/** SQLite's code of an error (`SQLITE_FULL`, `SQLITE_IOERR_WRITE`...), or '' for any other error. */
export function sqliteCode(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_') ? code : '';
}

/** Whether `err` is SQLite saying the file is damaged. */
export function isDamagedError(err: unknown): boolean {
  return DAMAGED.test(sqliteCode(err));
}

/** The error to report when opening `file` failed with `err`: a damaged file becomes an {@link UnusableDatabaseError}. */
export function openFailure(file: string, err: unknown): unknown {
  if (err instanceof UnusableDatabaseError || !isDamagedError(err)) return err;
  return new UnusableDatabaseError(file, `is damaged (${(err as Error).message}): ${DAMAGED_ADVICE}`);
}

/** Runs `PRAGMA quick_check` (every page and index entry read once, no index compared to its table) and refuses a damaged file. */
export function checkIntegrity(db: SqliteDatabase, file: string): void {
  const problems = db.pragma('quick_check', { simple: false }) as Array<{ quick_check: string }>;
  const first = problems[0]?.quick_check ?? 'ok';
  if (problems.length === 1 && first === 'ok') return;
  const more = problems.length > 1 ? ` and ${problems.length - 1} more problems` : '';
  throw new UnusableDatabaseError(file, `is damaged (PRAGMA quick_check: ${first}${more}): ${DAMAGED_ADVICE}`);
}

/** The identity marker of a database file: `<file>.id`, holding the random id the database also keeps. */
export function markerPath(file: string): string {
  return `${file}.id`;
}

/** The id in `file`'s marker, or undefined when there is no marker. */
export function readMarker(file: string): string | undefined {
  try {
    return fs.readFileSync(markerPath(file), 'utf8').trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** Writes `file`'s marker atomically and durably (a temporary file, fsync, rename, fsync of the folder). */
function writeMarker(file: string, id: string): void {
  const marker = markerPath(file);
  const temporary = `${marker}.tmp`;
  const fd = fs.openSync(temporary, 'w');
  try {
    fs.writeSync(fd, `${id}\n`);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(temporary, marker);
  const dir = fs.openSync(path.dirname(marker), 'r');
  try {
    fs.fsyncSync(dir);
  } finally {
    fs.closeSync(dir);
  }
}

/** Removes `file`'s marker (the `--reset` of a service): the next open takes the database as it finds it. */
export function forgetIdentity(file: string): boolean {
  try {
    fs.unlinkSync(markerPath(file));
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
}

/** The advice when the database is not the one the marker remembers. */
function mismatch(file: string, what: string, remembered: string): UnusableDatabaseError {
  return new UnusableDatabaseError(
    file,
    `${what}, but ${markerPath(file)} says this data directory held database ${remembered}: put that database back (from a backup), or start once with --reset to go on with ${what === 'is missing' || what === 'is empty' ? 'an empty one' : 'this one'}`,
  );
}

/**
 * Before the file is opened (opening creates it): refuses a missing or empty database whose
 * marker says this data directory held one.
 */
export function checkPresent(file: string): void {
  const remembered = readMarker(file);
  if (remembered === undefined) return;
  const size = fs.statSync(file, { throwIfNoEntry: false })?.size;
  if (size === undefined) throw mismatch(file, 'is missing', remembered);
  if (size === 0) throw mismatch(file, 'is empty', remembered);
}

/**
 * The table holding the database's identity (and the readiness probe's scratch row); created
 * outside the migrations so that every store's file carries it the same way.
 */
export function ensureMetaTable(db: SqliteDatabase): void {
  db.exec('CREATE TABLE IF NOT EXISTS fxdesk_meta (key TEXT PRIMARY KEY, value BLOB)');
}

/**
 * Compares the database's identity with its marker: equal, fine; the database's alone (the marker
 * was lost), the marker is written again; neither (a fresh file, or one from before markers), a
 * new id is stored in both, the database first; otherwise the database is not the one this data
 * directory held, and it is refused. Answers the id.
 */
export function adoptIdentity(db: SqliteDatabase, file: string): string {
  ensureMetaTable(db);
  const stored = db.prepare<[], { value: string }>("SELECT value FROM fxdesk_meta WHERE key = 'identity'").get()?.value;
  const remembered = readMarker(file);
  if (stored !== undefined && stored === remembered) return stored;
  if (remembered !== undefined) throw mismatch(file, stored === undefined ? 'carries no identity' : `is database ${stored}`, remembered);
  const id = stored ?? randomUUID();
  if (stored === undefined) db.prepare("INSERT INTO fxdesk_meta (key, value) VALUES ('identity', ?)").run(id);
  writeMarker(file, id);
  return id;
}
