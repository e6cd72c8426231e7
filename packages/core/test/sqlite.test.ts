import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { databasePath, DataDirLockedError, lockDataDir, migrate, openDatabase } from '../src/sqlite.js';
import { forgetIdentity, markerPath, readMarker, UnusableDatabaseError } from '../src/sqlite-guard.js';

function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'fxdesk-sqlite-'));
}

describe('openDatabase', () => {
  it('creates the folder, uses WAL and the asked synchronous level', () => {
    const dir = path.join(tempDir(), 'nested');
    const db = openDatabase(path.join(dir, 'x.db'), { migrations: [], synchronous: 'FULL' });
    expect(fs.existsSync(dir)).toBe(true);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('synchronous', { simple: true })).toBe(2);
    db.close();
  });

  it("bounds the connection's page cache when asked, and keeps better-sqlite3's otherwise", () => {
    const bounded = openDatabase(':memory:', { migrations: [], pageCacheKiB: 2048 });
    const unbounded = openDatabase(':memory:', { migrations: [] });
    expect(bounded.pragma('cache_size', { simple: true })).toBe(-2048);
    expect(unbounded.pragma('cache_size', { simple: true })).toBe(-16000);
    bounded.close();
    unbounded.close();
  });

  it('runs migrations once, recording the version, and keeps data across reopen', () => {
    const file = path.join(tempDir(), 'm.db');
    const migrations = [
      'CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)',
      (d: import('better-sqlite3').Database) => d.prepare("INSERT INTO t (v) VALUES ('seed')").run(),
    ];
    const first = openDatabase(file, { migrations });
    expect(first.pragma('user_version', { simple: true })).toBe(2);
    first.close();
    const second = openDatabase(file, { migrations: [...migrations, 'ALTER TABLE t ADD COLUMN w TEXT'] });
    expect(second.pragma('user_version', { simple: true })).toBe(3);
    expect(second.prepare('SELECT COUNT(*) AS n FROM t').get()).toEqual({ n: 1 });
    second.close();
  });

  it('rolls a failing migration back whole, version included', () => {
    const db = openDatabase(':memory:', { migrations: ['CREATE TABLE a (x)'] });
    expect(() => migrate(db, ['CREATE TABLE a (x)', 'CREATE TABLE b (y); CREATE TABLE broken ('])).toThrow();
    expect(db.pragma('user_version', { simple: true })).toBe(1);
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'b'").get()).toBeUndefined();
  });

  it('refuses a database newer than the code', () => {
    const db = openDatabase(':memory:', { migrations: ['CREATE TABLE a (x)', 'CREATE TABLE b (x)'] });
    expect(() => migrate(db, ['CREATE TABLE a (x)'])).toThrow(/newer/);
  });

  it('names one file per service under DATA_DIR', () => {
    expect(databasePath('./data', 'execution')).toBe(path.join('data', 'execution.db'));
    expect(databasePath(':memory:', 'execution')).toBe(':memory:');
  });
});

describe('lockDataDir', () => {
  const dir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'fxdesk-lock-'));

  it('refuses a second hold of the same service on the same DATA_DIR', () => {
    const dataDir = dir();
    const first = lockDataDir(dataDir, 'execution');
    expect(() => lockDataDir(dataDir, 'execution')).toThrow(DataDirLockedError);
    first.release();
  });

  it('names the lock file in its refusal', () => {
    const dataDir = dir();
    const first = lockDataDir(dataDir, 'execution');
    expect(() => lockDataDir(dataDir, 'execution')).toThrow(path.join(dataDir, 'execution.lock'));
    first.release();
  });

  it('lets another service hold the same DATA_DIR', () => {
    const dataDir = dir();
    const execution = lockDataDir(dataDir, 'execution');
    const notification = lockDataDir(dataDir, 'notification');
    execution.release();
    notification.release();
  });

  it('can be taken again once released', () => {
    const dataDir = dir();
    lockDataDir(dataDir, 'execution').release();
    lockDataDir(dataDir, 'execution').release();
  });
});

describe('openDatabase: a file it would lose data in', () => {
  const migrations = ['CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT); CREATE INDEX t_v ON t (v)'];

  /** A database file under a fresh folder, with `rows` rows (about 40 rows a page), closed. */
  function filled(rows = 2000): string {
    const file = path.join(tempDir(), 'svc.db');
    const db = openDatabase(file, { migrations });
    const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
    db.transaction(() => {
      for (let i = 0; i < rows; i++) insert.run(`value ${i} ${'-'.repeat(60)}`);
    })();
    db.close();
    return file;
  }

  function identityOf(file: string): string {
    const db = new Database(file, { readonly: true });
    const row = db.prepare("SELECT value FROM fxdesk_meta WHERE key = 'identity'").get() as { value: string };
    db.close();
    return row.value;
  }

  /** The refusal opening `file` meets, with its message. */
  function refusal(file: string): UnusableDatabaseError {
    try {
      openDatabase(file, { migrations }).close();
    } catch (err) {
      if (err instanceof UnusableDatabaseError) return err;
      throw err;
    }
    throw new Error(`${file} opened`);
  }

  it('refuses a file whose pages were overwritten, in one line naming it and what to do', () => {
    const file = filled();
    const fd = fs.openSync(file, 'r+');
    for (let page = 2; page < 10; page++) fs.writeSync(fd, Buffer.alloc(4096, 0xab), 0, 4096, page * 4096);
    fs.closeSync(fd);
    const err = refusal(file);
    expect(err.message).toContain(file);
    expect(err.message).toMatch(/damaged.*restore it from a backup/);
    expect(err.message).not.toContain('\n');
  });

  it('refuses a file that is no database at all', () => {
    const file = filled(10);
    fs.writeFileSync(file, Buffer.alloc(8192, 0x41));
    expect(refusal(file).message).toMatch(/damaged/);
  });

  it('keeps a random id in a fresh database and the same id in its marker beside it', () => {
    const file = filled(1);
    expect(readMarker(file)).toMatch(/^[0-9a-f-]{36}$/);
    expect(identityOf(file)).toBe(readMarker(file));
    expect(fs.readFileSync(markerPath(file), 'utf8')).toBe(`${identityOf(file)}\n`);
  });

  it('opens its own database again with its data', () => {
    const file = filled(5);
    const db = openDatabase(file, { migrations });
    expect(db.prepare('SELECT COUNT(*) AS n FROM t').get()).toEqual({ n: 5 });
    db.close();
  });

  it('refuses an empty database whose marker says it held one', () => {
    const file = filled(5);
    fs.truncateSync(file, 0);
    for (const extra of [`${file}-wal`, `${file}-shm`]) fs.rmSync(extra, { force: true });
    expect(refusal(file).message).toMatch(/is empty, but .*svc\.db\.id says this data directory held database .*--reset/);
  });

  it('refuses a missing database whose marker says it held one, and creates nothing', () => {
    const file = filled(5);
    for (const gone of [file, `${file}-wal`, `${file}-shm`]) fs.rmSync(gone, { force: true });
    expect(refusal(file).message).toMatch(/is missing/);
    expect(fs.existsSync(file)).toBe(false);
  });

  it('refuses another database put in place of the one its marker remembers', () => {
    const file = filled(5);
    const other = filled(5);
    fs.copyFileSync(other, file);
    expect(refusal(file).message).toContain(`is database ${identityOf(other)}, but`);
  });

  it('refuses a database without an id where its marker remembers one', () => {
    const file = filled(5);
    const db = new Database(file);
    db.exec('DROP TABLE fxdesk_meta');
    db.close();
    expect(refusal(file).message).toMatch(/carries no identity/);
  });

  it('adopts a database from before markers: it gets an id and a marker, its data kept', () => {
    const file = path.join(tempDir(), 'old.db');
    const old = new Database(file);
    old.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT); CREATE INDEX t_v ON t (v); PRAGMA user_version = 1');
    old.prepare("INSERT INTO t (v) VALUES ('kept')").run();
    old.close();
    const db = openDatabase(file, { migrations });
    expect(db.prepare('SELECT v FROM t').all()).toEqual([{ v: 'kept' }]);
    db.close();
    expect(readMarker(file)).toBe(identityOf(file));
  });

  it('writes a lost marker again from the database it is beside', () => {
    const file = filled(5);
    const id = identityOf(file);
    fs.rmSync(markerPath(file));
    openDatabase(file, { migrations }).close();
    expect(readMarker(file)).toBe(id);
  });

  it('once the marker is forgotten (--reset), starts an empty database with a new id', () => {
    const file = filled(5);
    const before = identityOf(file);
    fs.truncateSync(file, 0);
    for (const extra of [`${file}-wal`, `${file}-shm`]) fs.rmSync(extra, { force: true });
    expect(forgetIdentity(file)).toBe(true);
    const db = openDatabase(file, { migrations });
    expect(db.prepare('SELECT COUNT(*) AS n FROM t').get()).toEqual({ n: 0 });
    db.close();
    expect(identityOf(file)).not.toBe(before);
    expect(readMarker(file)).toBe(identityOf(file));
  });

  it('keeps no marker for an in-memory database', () => {
    const db = openDatabase(':memory:', { migrations });
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'fxdesk_meta'").get()).toBeUndefined();
    db.close();
  });
});
