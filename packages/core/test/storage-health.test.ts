import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openDatabase, type SqliteDatabase } from '../src/sqlite.js';
import { StorageHealth, WatchedGroupCommit } from '../src/storage-health.js';

const migrations = ['CREATE TABLE t (id INTEGER PRIMARY KEY, v BLOB)'];

/** A store's database file, filled to its last page: `max_page_count` stands for a full disk. */
function fullDatabase(): SqliteDatabase {
  const db = openDatabase(path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'fxdesk-health-')), 'svc.db'), { migrations });
  db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true }) as number}`);
  return db;
}

/** A write that needs a fresh page. */
const bigInsert = (db: SqliteDatabase) => () => db.prepare('INSERT INTO t (v) VALUES (zeroblob(8192))').run();

function manualTime() {
  const time = { ms: 0 };
  return { time, now: () => time.ms };
}

describe('StorageHealth', () => {
  it('is writable while no write has failed', () => {
    const db = openDatabase(':memory:', { migrations });
    expect(new StorageHealth(db).check()).toMatchObject({ ok: true });
  });

  it('a write refused for a full disk makes it not ok, naming the file and the code', () => {
    const db = fullDatabase();
    const health = new StorageHealth(db);
    expect(() => health.guard(bigInsert(db))).toThrow();
    const check = health.check();
    expect(check.ok).toBe(false);
    expect(check.detail).toMatch(/svc\.db cannot write \(SQLITE_FULL/);
  });

  it('probes no write before the interval has passed, then is ok again once a probe write commits', () => {
    const db = fullDatabase();
    const { time, now } = manualTime();
    const health = new StorageHealth(db, { now, probeIntervalMs: 5000 });
    expect(() => health.guard(bigInsert(db))).toThrow();
    db.pragma('max_page_count = 1000000');
    time.ms = 4999;
    expect(health.check().ok).toBe(false);
    time.ms = 5000;
    expect(health.check().ok).toBe(true);
    expect(health.isWritable).toBe(true);
  });

  it('stays not ok while the probe write still finds no room', () => {
    const db = fullDatabase();
    const { time, now } = manualTime();
    const health = new StorageHealth(db, { now, probeIntervalMs: 5000 });
    expect(() => health.guard(bigInsert(db))).toThrow();
    time.ms = 5000;
    expect(health.check()).toMatchObject({ ok: false, detail: expect.stringMatching(/SQLITE_FULL/) as string });
    db.pragma('max_page_count = 1000000');
    time.ms = 9999;
    expect(health.check().ok).toBe(false);
    time.ms = 10_000;
    expect(health.check().ok).toBe(true);
  });

  it('leaves nothing behind from its probe write', () => {
    const db = fullDatabase();
    const { time, now } = manualTime();
    const health = new StorageHealth(db, { now });
    expect(() => health.guard(bigInsert(db))).toThrow();
    db.pragma('max_page_count = 1000000');
    time.ms = 60_000;
    expect(health.check().ok).toBe(true);
    expect(db.prepare("SELECT COUNT(*) AS n FROM fxdesk_meta WHERE key <> 'identity'").get()).toEqual({ n: 0 });
  });

  it('ignores a failure of the write itself, such as a broken constraint', () => {
    const db = openDatabase(':memory:', { migrations });
    const health = new StorageHealth(db);
    db.prepare('INSERT INTO t (id, v) VALUES (1, NULL)').run();
    expect(() => health.guard(() => db.prepare('INSERT INTO t (id, v) VALUES (1, NULL)').run())).toThrow(/UNIQUE/);
    expect(health.check().ok).toBe(true);
  });

  it('a damaged file stays not ok whatever a probe would say', () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'fxdesk-health-')), 'svc.db');
    const seeded = openDatabase(file, { migrations });
    const insert = seeded.prepare('INSERT INTO t (v) VALUES (randomblob(100))');
    seeded.transaction(() => {
      for (let i = 0; i < 2000; i++) insert.run();
    })();
    seeded.close();
    // Page 2, the root of t (the first table made), is overwritten; fxdesk_meta, where a probe writes, is intact.
    const fd = fs.openSync(file, 'r+');
    fs.writeSync(fd, Buffer.alloc(4096, 0xab), 0, 4096, 4096);
    fs.closeSync(fd);
    // Opened as the running service holds it: the damage came after its start-up check.
    const db = new Database(file);
    const { time, now } = manualTime();
    const health = new StorageHealth(db, { now });
    expect(() => health.guard(() => db.prepare('INSERT INTO t (v) VALUES (randomblob(100))').run())).toThrow();
    time.ms = 60_000;
    expect(health.check()).toMatchObject({ ok: false, detail: expect.stringMatching(/SQLITE_CORRUPT.*damaged/) as string });
    db.close();
  });

  it('through a group commit, records the batch that failed to commit', async () => {
    const db = fullDatabase();
    const health = new StorageHealth(db);
    const writer = new WatchedGroupCommit(db, health);
    await expect(writer.run(bigInsert(db))).rejects.toThrow();
    expect(health.check()).toMatchObject({ ok: false, detail: expect.stringMatching(/SQLITE_FULL/) as string });
    void writer.close();
  });
});
