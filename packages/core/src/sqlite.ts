import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { adoptIdentity, checkIntegrity, checkPresent, openFailure } from './sqlite-guard.js';

export type SqliteDatabase = Database.Database;

/** A migration: SQL text, or a function for changes SQL alone cannot express. */
export type SqliteMigration = string | ((db: SqliteDatabase) => void);

export interface OpenDatabaseOptions {
  /**
   * FULL where the spec says "durably" (every commit reaches the disk before it returns);
   * NORMAL is safe against corruption in WAL mode but may lose the last commits on power loss.
   */
  synchronous?: 'FULL' | 'NORMAL';
  /** Applied in order; `PRAGMA user_version` records how many have run. */
  migrations: SqliteMigration[];
  busyTimeoutMs?: number;
  /**
   * The most SQLite's page cache of this connection holds, in KiB. Default: better-sqlite3's
   * build, 16 000 KiB, held once the file has grown that big; the kernel caches the file as well.
   */
  pageCacheKiB?: number;
}

/**
 * Opens (creating its folder) a SQLite file in WAL mode and brings its schema up to date.
 * `:memory:` gives a private in-memory database for tests.
 *
 * A file is checked first, so no service runs on a database it would lose data in: it must pass
 * `PRAGMA quick_check`, and it must be the database its identity marker `<file>.id` remembers
 * (see sqlite-guard.ts). Otherwise this throws an {@link UnusableDatabaseError} whose one-line
 * message names the file and what to do.
 */
export function openDatabase(file: string, options: OpenDatabaseOptions): SqliteDatabase {
  if (file === ':memory:') {
    const db = configure(new Database(file), options);
    migrate(db, options.migrations);
    return db;
  }
  fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  checkPresent(file);
  let db: SqliteDatabase | undefined;
  try {
    db = new Database(file);
    configure(db, options);
    checkIntegrity(db, file);
    migrate(db, options.migrations);
    adoptIdentity(db, file);
    return db;
  } catch (err) {
    db?.close();
    throw openFailure(file, err);
  }
}

/** The connection's settings, the same for every store. */
function configure(db: SqliteDatabase, options: OpenDatabaseOptions): SqliteDatabase {
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${options.synchronous ?? 'FULL'}`);
  db.pragma('foreign_keys = ON');
  db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
  if (options.pageCacheKiB !== undefined) db.pragma(`cache_size = -${options.pageCacheKiB}`);
  return db;
}

/** Runs the migrations past `user_version`, each in its own transaction with its version bump. */
export function migrate(db: SqliteDatabase, migrations: SqliteMigration[]): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > migrations.length) {
    throw new Error(`database schema version ${current} is newer than this build knows (${migrations.length})`);
  }
  for (let version = current; version < migrations.length; version++) {
    const step = migrations[version] as SqliteMigration;
    db.transaction(() => {
      if (typeof step === 'string') db.exec(step);
      else step(db);
      db.pragma(`user_version = ${version + 1}`);
    })();
  }
}

/** The database file of a service under DATA_DIR. */
export function databasePath(dataDir: string, service: string): string {
  return dataDir === ':memory:' ? ':memory:' : path.join(dataDir, `${service}.db`);
}

/** A service's exclusive hold on its files under DATA_DIR; `release` lets it go before exit. */
export interface DataDirLock {
  readonly file: string;
  release(): void;
}

/** Another process of the same service holds DATA_DIR. */
export class DataDirLockedError extends Error {
  constructor(readonly file: string) {
    super(`another process holds ${file}: one process per service and DATA_DIR; stop it, or give this one its own DATA_DIR`);
    this.name = 'DataDirLockedError';
  }
}

/**
 * Takes the exclusive lock `<dataDir>/<service>.lock`, so a second process of the same service
 * cannot start on the same files and, say, mark the first one's in-flight work abandoned. The lock
 * is SQLite's own exclusive file lock held by an open transaction: the operating system drops it
 * when the process ends in any way, SIGKILL included, so a crash never leaves a stale lock behind.
 */
export function lockDataDir(dataDir: string, service: string): DataDirLock {
  fs.mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, `${service}.lock`);
  const db = new Database(file, { timeout: 0 });
  try {
    db.exec('BEGIN EXCLUSIVE');
  } catch (err) {
    db.close();
    if ((err as { code?: string }).code === 'SQLITE_BUSY') throw new DataDirLockedError(file);
    throw err;
  }
  return {
    file,
    release: () => {
      if (db.open) db.close();
    },
  };
}
