import { describe, expect, it } from 'vitest';
import { GroupCommit } from '../src/group-commit.js';
import { openDatabase } from '../src/sqlite.js';

function setup() {
  const db = openDatabase(':memory:', { migrations: ['CREATE TABLE t (id TEXT PRIMARY KEY, v INTEGER NOT NULL)'] });
  const insert = db.prepare('INSERT INTO t (id, v) VALUES (?, ?)');
  const count = () => (db.prepare('SELECT COUNT(*) AS n FROM t').get() as { n: number }).n;
  return { db, insert, count, writer: new GroupCommit(db) };
}

describe('GroupCommit', () => {
  it('commits every write queued in one turn as one transaction', async () => {
    const { insert, count, writer } = setup();
    await Promise.all([writer.run(() => insert.run('a', 1)), writer.run(() => insert.run('b', 2)), writer.run(() => insert.run('c', 3))]);
    expect(count()).toBe(3);
    expect(writer.stats).toMatchObject({ commits: 1, operations: 3 });
  });

  it('settles a write only after its commit', async () => {
    const { db, insert, writer } = setup();
    let seenInTransaction: boolean | undefined;
    const done = writer.run(() => insert.run('a', 1)).then(() => (seenInTransaction = db.inTransaction));
    expect(seenInTransaction).toBeUndefined();
    await done;
    expect(seenInTransaction).toBe(false);
  });

  it('rejects only the operation that throws and commits the others', async () => {
    const { insert, count, writer } = setup();
    const results = await Promise.allSettled([
      writer.run(() => insert.run('a', 1)),
      writer.run(() => {
        insert.run('b', 2);
        insert.run('a', 9);
      }),
      writer.run(() => insert.run('c', 3)),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(count()).toBe(2);
  });

  it('lets a later operation of the batch see an earlier one', async () => {
    const { db, insert, writer } = setup();
    const select = db.prepare('SELECT v FROM t WHERE id = ?');
    const [, seen] = await Promise.all([writer.run(() => insert.run('a', 7)), writer.run(() => select.get('a'))]);
    expect(seen).toEqual({ v: 7 });
  });

  it('answers a read at once when nothing is waiting to commit', async () => {
    const { db, writer } = setup();
    const read = writer.read(() => db.prepare('SELECT 1 AS one').get());
    expect(writer.stats.commits).toBe(0);
    expect(await read).toEqual({ one: 1 });
  });

  it('rejects every caller of a batch whose commit fails, and keeps nothing of it', async () => {
    const { db, insert, count, writer } = setup();
    // A deferred foreign key is checked at COMMIT: the batch's statements pass, its commit fails.
    db.exec('CREATE TABLE child (parent TEXT REFERENCES t (id) DEFERRABLE INITIALLY DEFERRED)');
    const orphan = db.prepare("INSERT INTO child (parent) VALUES ('nobody')");
    const results = await Promise.allSettled([writer.run(() => insert.run('a', 1)), writer.run(() => orphan.run())]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(count()).toBe(0);
    expect(writer.stats.failedCommits).toBe(1);
  });

  it('commits what is queued on close and refuses work after it', async () => {
    const { insert, count, writer } = setup();
    const pending = writer.run(() => insert.run('a', 1));
    void writer.close();
    await pending;
    expect(count()).toBe(1);
    await expect(writer.run(() => insert.run('b', 2))).rejects.toThrow(/closed/);
  });
});
