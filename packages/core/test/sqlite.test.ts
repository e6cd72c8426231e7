import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { databasePath, DataDirLockedError, lockDataDir, migrate, openDatabase } from '../src/sqlite.js';

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
