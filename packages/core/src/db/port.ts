import type { GroupCommitStats } from '../group-commit.js';

/**
 * The database port every store is written against, once for SQLite and PostgreSQL alike.
 *
 * SQL is written with named parameters (`@name`), bound from an object; the engine's own
 * placeholders are the port's business. Everything the two engines spell differently (column
 * types, row locks, planner hints, batch inserts, locks) comes from {@link Dialect} or the port's
 * own calls, so a store never asks which engine it runs on.
 */

/** A value bound to a parameter. A boolean is bound as 1 or 0 on every engine (SQLite has no boolean type): store it in an integer column. */
export type SqlValue = string | number | bigint | boolean | null | Buffer;

/** Named parameters, `@name` in the SQL text. */
export type SqlParams = Readonly<Record<string, SqlValue>>;

/** A row as the engine returns it. */
export type Row = Record<string, unknown>;

export interface RunResult {
  /** Rows inserted, updated or deleted. */
  changes: number;
}

/** What differs between the engines, as SQL text to put into statements and migrations. */
export interface Dialect {
  /** `SQLite` or `PostgreSQL`: for log lines and health details only, never to branch on. */
  readonly engine: 'SQLite' | 'PostgreSQL';
  readonly types: {
    /** Text compared byte by byte, as SQLite does: keys, ISO timestamps, ids (PostgreSQL: COLLATE "C"). */
    readonly key: string;
    readonly text: string;
    /** A 32-bit integer. */
    readonly integer: string;
    /** A 64-bit integer (epoch milliseconds, sequence numbers); read back as a number. */
    readonly bigint: string;
    /** A double. */
    readonly real: string;
    /** Bytes. */
    readonly blob: string;
    /** A 64-bit integer primary key the database numbers itself. */
    readonly serialKey: string;
    /** The same, never handed out twice, even after the row holding the highest is deleted (SQLite's AUTOINCREMENT; PostgreSQL's identity already is). */
    readonly increasingKey: string;
  };
  /** After a SELECT that claims rows: `FOR UPDATE SKIP LOCKED` where replicas claim concurrently; nothing where one writer holds the file. */
  readonly skipLocked: string;
  /** After a SELECT whose rows the transaction will change: `FOR UPDATE`, or nothing. */
  readonly forUpdate: string;
  /**
   * Whether one process holds the data (SQLite, under the service's DATA_DIR lock): then what it
   * finds in flight at start was left by a process that has ended, and state kept in memory is
   * the whole state. False where replicas share the database (PostgreSQL).
   */
  readonly soleProcess: boolean;
  /** After a CREATE TABLE's columns: a table stored in its primary key's order (SQLite's WITHOUT ROWID), or nothing where every table is a heap. */
  readonly withoutRowid: string;
  /** After a table name: the index the planner must use (SQLite's INDEXED BY), or nothing. */
  indexedBy(index: string): string;
  /** The text at `$.field` of a JSON text column; `a.b` is field b of object a. */
  jsonText(column: string, field: string): string;
}

/** The calls of a transaction: the same as the database's, inside one atomic unit. */
export interface Queries {
  readonly dialect: Dialect;
  /** Every row the statement returns. */
  query<R extends Row = Row>(sql: string, params?: SqlParams): Promise<R[]>;
  /** The first row, or undefined. */
  one<R extends Row = Row>(sql: string, params?: SqlParams): Promise<R | undefined>;
  /** A statement that returns no rows. */
  run(sql: string, params?: SqlParams): Promise<RunResult>;
  /** A write that returns rows (INSERT/UPDATE/DELETE … RETURNING): committed as `run` is, answering its rows. */
  write<R extends Row = Row>(sql: string, params?: SqlParams): Promise<R[]>;
  /**
   * Inserts `rows` into `table` (each row an object with one value per column): a prepared
   * insert a row on SQLite, a few multi-row statements on PostgreSQL. `onConflict` is the
   * statement's `ON CONFLICT …` clause, if it has one.
   */
  insertMany(table: string, columns: readonly string[], rows: readonly SqlParams[], onConflict?: string): Promise<RunResult>;
}

export interface Transaction extends Queries {
  /**
   * Holds `name` for the rest of the transaction: a transaction-scoped advisory lock on
   * PostgreSQL, where replicas share the database; nothing on SQLite, where a transaction
   * already holds the file's one write lock.
   */
  lock(name: string): Promise<void>;
}

export interface Database extends Queries {
  /**
   * Runs `work` atomically: committed when it settles, rolled back when it throws. Inside,
   * call only `tx`: on SQLite the work joins the writes' group commit, and a call on the
   * database itself would wait for a commit that waits for it.
   */
  transaction<T>(work: (tx: Transaction) => Promise<T>): Promise<T>;
  /** For /health/ready: whether the database answers and can write. */
  health(): Promise<{ ok: boolean; detail: string }>;
  /**
   * Whether the store can write, known at once without a query, where the engine can tell
   * (SQLite: unwritable after a write failed for want of storage, see StorageHealth); absent
   * elsewhere. A caller about to claim work checks it first, so it refuses before claiming.
   */
  writable?(): { ok: boolean; detail: string };
  /** Commits and batches so far, where the engine groups commits (SQLite); absent elsewhere. */
  readonly commitStats?: GroupCommitStats;
  close(): Promise<void>;
}

/** One step of a store's schema: SQL text, or SQL rendered for the engine's dialect. */
export type Migration = string | ((dialect: Dialect) => string);

/** A store's schema: one list of migrations, for both engines. */
export interface Schema {
  /** The store's name: its migrations are counted under it on PostgreSQL, so services may share one database. */
  name: string;
  /** Applied in order; a database records how many have run (SQLite: `PRAGMA user_version`). */
  migrations: readonly Migration[];
  /**
   * A PostgreSQL database whose schema was made by the per-engine stores of before (counted in
   * `fxdesk_schema`): which of `migrations` its version there already amounts to.
   */
  postgresBefore?: { store: string; versions: Readonly<Record<number, number>> };
}
