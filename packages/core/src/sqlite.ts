import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';

export type SqliteDatabase = Database.Database;

/** A migration: SQL text, or a function for changes SQL alone cannot express. */
export type Migration = string | ((db: SqliteDatabase) => void);

export interface OpenDatabaseOptions {
  /**
   * FULL where the spec says "durably" (every commit reaches the disk before it returns);
   * NORMAL is safe against corruption in WAL mode but may lose the last commits on power loss.
   */
  synchronous?: 'FULL' | 'NORMAL';
  /** Applied in order; `PRAGMA user_version` records how many have run. */
  migrations: Migration[];
  busyTimeoutMs?: number;
}

/**
 * Opens (creating its folder) a SQLite file in WAL mode and brings its schema up to date.
 * `:memory:` gives a private in-memory database for tests.
 */
export function openDatabase(file: string, options: OpenDatabaseOptions): SqliteDatabase {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${options.synchronous ?? 'FULL'}`);
  db.pragma('foreign_keys = ON');
  db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
  migrate(db, options.migrations);
  return db;
}

/** Runs the migrations past `user_version`, each in its own transaction with its version bump. */
export function migrate(db: SqliteDatabase, migrations: Migration[]): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > migrations.length) {
    throw new Error(`database schema version ${current} is newer than this build knows (${migrations.length})`);
  }
  for (let version = current; version < migrations.length; version++) {
    const step = migrations[version] as Migration;
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
