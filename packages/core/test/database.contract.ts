import { describe, expect, it } from 'vitest';
import type { Database, Schema } from '../src/db/port.js';

/** Opens a fresh database with `schema`; a second call with the same `shared` opens the same data again. */
export type OpenDatabase = (schema: Schema, shared?: string) => Promise<Database>;

const SCHEMA: Schema = {
  name: 'contract',
  migrations: [
    (d) =>
      `CREATE TABLE items (id ${d.types.key} PRIMARY KEY, n ${d.types.bigint} NOT NULL, ratio ${d.types.real}, flag ${d.types.integer} NOT NULL DEFAULT 0, body ${d.types.text})`,
    'CREATE INDEX items_n ON items (n)',
  ],
};

/** The database port's contract: every engine behind it answers the same. */
export function databaseContract(engine: string, open: OpenDatabase): void {
  describe(`the database port on ${engine}`, () => {
    it('binds named parameters, the same name twice included, and reads rows back', async () => {
      const db = await open(SCHEMA);
      await db.run('INSERT INTO items (id, n, ratio, body) VALUES (@id, @n, @ratio, @id)', { id: 'a', n: 1_700_000_000_000, ratio: 0.5 });
      expect(await db.one('SELECT id, n, ratio, body FROM items WHERE id = @id', { id: 'a' })).toEqual({
        id: 'a',
        n: 1_700_000_000_000,
        ratio: 0.5,
        body: 'a',
      });
      expect(await db.one('SELECT id FROM items WHERE id = @id', { id: 'none' })).toBeUndefined();
      await db.close();
    });

    it('binds a boolean as 1 or 0', async () => {
      const db = await open(SCHEMA);
      await db.run('INSERT INTO items (id, n, flag) VALUES (@id, 1, @flag)', { id: 'a', flag: true });
      expect(await db.one('SELECT flag FROM items')).toEqual({ flag: 1 });
      await db.close();
    });

    it('leaves text in quotes and comments as it is', async () => {
      const db = await open(SCHEMA);
      await db.run("INSERT INTO items (id, n, body) VALUES (@id, 2, 'mail@example.com') -- not @a parameter", { id: 'b' });
      expect(await db.one('SELECT body FROM items')).toEqual({ body: 'mail@example.com' });
      await db.close();
    });

    it('counts the rows a statement changed', async () => {
      const db = await open(SCHEMA);
      await db.run("INSERT INTO items (id, n) VALUES ('a', 1), ('b', 2)");
      expect(await db.run('UPDATE items SET n = n + 1')).toEqual({ changes: 2 });
      expect(await db.run("INSERT INTO items (id, n) VALUES ('a', 9) ON CONFLICT (id) DO NOTHING")).toEqual({ changes: 0 });
      await db.close();
    });

    it('answers the rows a write returns, and commits the write', async () => {
      const db = await open(SCHEMA);
      await db.run("INSERT INTO items (id, n) VALUES ('a', 1), ('b', 2)");
      const changed = await db.write<{ id: string; n: number }>('UPDATE items SET n = n * 10 WHERE n >= @least RETURNING id, n', { least: 2 });
      expect(changed).toEqual([{ id: 'b', n: 20 }]);
      const inTx = await db.transaction((tx) => tx.write("DELETE FROM items WHERE id = 'a' RETURNING id"));
      expect(inTx).toEqual([{ id: 'a' }]);
      expect(await db.query('SELECT id, n FROM items')).toEqual([{ id: 'b', n: 20 }]);
      await db.close();
    });

    it('commits a transaction whole, and rolls one back whole when it throws', async () => {
      const db = await open(SCHEMA);
      await db.transaction(async (tx) => {
        await tx.lock('items');
        await tx.run("INSERT INTO items (id, n) VALUES ('a', 1)");
        const row = await tx.one<{ n: number }>("SELECT n FROM items WHERE id = 'a'");
        await tx.run("INSERT INTO items (id, n) VALUES ('b', @n)", { n: (row?.n ?? 0) + 1 });
      });
      await expect(
        db.transaction(async (tx) => {
          await tx.run("INSERT INTO items (id, n) VALUES ('c', 3)");
          throw new Error('changed my mind');
        }),
      ).rejects.toThrow('changed my mind');
      expect(await db.query('SELECT id, n FROM items ORDER BY id')).toEqual([
        { id: 'a', n: 1 },
        { id: 'b', n: 2 },
      ]);
      await db.close();
    });

    it('keeps a failed transaction from undoing the writes beside it', async () => {
      const db = await open(SCHEMA);
      const results = await Promise.allSettled([
        db.run("INSERT INTO items (id, n) VALUES ('a', 1)"),
        db.transaction(async (tx) => {
          await tx.run("INSERT INTO items (id, n) VALUES ('b', 2)");
          await tx.run("INSERT INTO items (id, n) VALUES ('a', 9)");
        }),
        db.run("INSERT INTO items (id, n) VALUES ('c', 3)"),
      ]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect(await db.query('SELECT id FROM items ORDER BY id')).toEqual([{ id: 'a' }, { id: 'c' }]);
      await db.close();
    });

    it('shows no read outside a transaction its rows before it commits', async () => {
      const db = await open(SCHEMA);
      let release!: () => void;
      const inside = new Promise<void>((resolve) => (release = resolve));
      const written = db.transaction(async (tx) => {
        await tx.run("INSERT INTO items (id, n) VALUES ('a', 1)");
        release();
        return tx.query('SELECT id FROM items');
      });
      await inside;
      const seen = await db.query('SELECT id FROM items');
      expect(await written).toEqual([{ id: 'a' }]);
      // Either the read ran before the commit and saw nothing, or it waited for it and saw the row.
      expect([[], [{ id: 'a' }]]).toContainEqual(seen);
      expect(await db.query('SELECT id FROM items')).toEqual([{ id: 'a' }]);
      await db.close();
    });

    it('inserts many rows in few statements, and counts only those a conflict clause let in', async () => {
      const db = await open(SCHEMA);
      const rows = Array.from({ length: 2_500 }, (_, i) => ({ id: `r${String(i).padStart(5, '0')}`, n: i, ratio: i / 4, flag: i % 2 === 0 }));
      expect(await db.insertMany('items', ['id', 'n', 'ratio', 'flag'], rows)).toEqual({ changes: 2_500 });
      const again = [...rows.slice(0, 10), { id: 'new', n: -1, ratio: null, flag: false }];
      expect(await db.insertMany('items', ['id', 'n', 'ratio', 'flag'], again, 'ON CONFLICT (id) DO NOTHING')).toEqual({ changes: 1 });
      expect(await db.one('SELECT COUNT(*) AS count, SUM(flag) AS flags FROM items')).toEqual({ count: 2_501, flags: 1_250 });
      const inTx = await db.transaction((tx) => tx.insertMany('items', ['id', 'n'], [{ id: 'tx', n: 7 }]));
      expect(inTx).toEqual({ changes: 1 });
      await db.close();
    });

    it('runs each migration once, and opens again on the same data', async () => {
      const first = await open(SCHEMA, 'again');
      await first.run("INSERT INTO items (id, n) VALUES ('kept', 1)");
      await first.close();
      const grown: Schema = {
        ...SCHEMA,
        migrations: [...SCHEMA.migrations, (d) => `ALTER TABLE items ADD COLUMN note ${d.types.text} NOT NULL DEFAULT 'new'`],
      };
      const second = await open(grown, 'again');
      expect(await second.query('SELECT id, note FROM items')).toEqual([{ id: 'kept', note: 'new' }]);
      await second.close();
      await expect(open(SCHEMA, 'again')).rejects.toThrow(/newer than this build knows \(2\)/);
    });

    it('reads an uncommitted transaction in itself, with the engine told apart only by the dialect', async () => {
      const db = await open(SCHEMA);
      expect(['SQLite', 'PostgreSQL']).toContain(db.dialect.engine);
      await db.run(`INSERT INTO items (id, n, body) VALUES ('j', 1, '{"symbol":"EURUSD"}')`);
      expect(await db.one(`SELECT ${db.dialect.jsonText('body', 'symbol')} AS symbol FROM items`)).toEqual({ symbol: 'EURUSD' });
      expect(await db.query(`SELECT id FROM items ${db.dialect.indexedBy('items_n')} WHERE n >= 0 ORDER BY n ${db.dialect.forUpdate}`)).toEqual([{ id: 'j' }]);
      expect((await db.health()).ok).toBe(true);
      await db.close();
    });
  });
}
