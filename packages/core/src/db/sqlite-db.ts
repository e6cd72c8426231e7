import path from 'node:path';
import type Sqlite from 'better-sqlite3';
import type { GroupCommitStats } from '../group-commit.js';
import { openDatabase, type SqliteDatabase } from '../sqlite.js';
import { StorageHealth, WatchedGroupCommit, type StorageHealthOptions } from '../storage-health.js';
import type { Database, Dialect, Row, RunResult, Schema, SqlParams, SqlValue, Transaction } from './port.js';

export const SQLITE_DIALECT: Dialect = {
  engine: 'SQLite',
  types: {
    key: 'TEXT',
    text: 'TEXT',
    integer: 'INTEGER',
    bigint: 'INTEGER',
    real: 'REAL',
    blob: 'BLOB',
    serialKey: 'INTEGER PRIMARY KEY',
    increasingKey: 'INTEGER PRIMARY KEY AUTOINCREMENT',
  },
  soleProcess: true,
  withoutRowid: ' WITHOUT ROWID',
  skipLocked: '',
  forUpdate: '',
  indexedBy: (index) => `INDEXED BY ${index}`,
  jsonText: (column, field) => `json_extract(${column}, '$.${field}')`,
};

export interface SqliteDatabaseOptions {
  /**
   * FULL where the spec says "durably" (every commit reaches the disk before it returns);
   * NORMAL is safe against corruption in WAL mode but may lose the last commits on power loss.
   */
  synchronous?: 'FULL' | 'NORMAL';
  /** The most SQLite's page cache holds, in KiB (default: better-sqlite3's build, 16 000 KiB). */
  pageCacheKiB?: number;
  /** How readiness learns the file cannot write (its clock, in tests). */
  health?: StorageHealthOptions;
}

/** The most statements a connection keeps prepared; past it, a statement is prepared for each call. */
const MAX_PREPARED = 256;

/** Rows a batch insert binds in one statement on SQLite, whose default limit is 32,766 parameters. */
const SQLITE_MAX_PARAMETERS = 32_766;

/**
 * A store's SQLite file (WAL), the embedded default: one process holds it (the service's DATA_DIR
 * lock). Every write is group-committed (see GroupCommit): its promise settles only once the
 * write is on disk, and the writes of one event-loop turn share one commit. A read runs at once
 * on committed data, unless writes are waiting, then after their commit. Statements are prepared
 * once per SQL text.
 */
export class SqliteStoreDatabase implements Database {
  readonly dialect = SQLITE_DIALECT;
  /** The group commit every write of this connection goes through (a SQLite-only store beside this one may join it). */
  readonly writer: WatchedGroupCommit;
  private readonly statements: Statements;

  constructor(
    /** The connection, for a SQLite-only store that shares the file. */
    readonly connection: SqliteDatabase,
    health: StorageHealthOptions = {},
  ) {
    this.writer = new WatchedGroupCommit(connection, new StorageHealth(connection, health));
    this.statements = new Statements(connection);
  }

  /** Opens (creating its folder), checks and migrates a file; `:memory:` for tests. See openDatabase. */
  static open(file: string, schema: Schema, options: SqliteDatabaseOptions = {}): SqliteStoreDatabase {
    const migrations = schema.migrations.map((step) => (typeof step === 'string' ? step : step(SQLITE_DIALECT)));
    const connection = openDatabase(file, { migrations, synchronous: options.synchronous ?? 'FULL', pageCacheKiB: options.pageCacheKiB });
    return new SqliteStoreDatabase(connection, options.health);
  }

  get commitStats(): GroupCommitStats {
    return this.writer.stats;
  }

  query<R extends Row = Row>(sql: string, params?: SqlParams): Promise<R[]> {
    return this.writer.read(() => this.statements.all<R>(sql, params));
  }

  one<R extends Row = Row>(sql: string, params?: SqlParams): Promise<R | undefined> {
    return this.writer.read(() => this.statements.get<R>(sql, params));
  }

  run(sql: string, params?: SqlParams): Promise<RunResult> {
    return this.writer.run(() => this.statements.run(sql, params));
  }

  write<R extends Row = Row>(sql: string, params?: SqlParams): Promise<R[]> {
    return this.writer.run(() => this.statements.all<R>(sql, params));
  }

  insertMany(table: string, columns: readonly string[], rows: readonly SqlParams[], onConflict?: string): Promise<RunResult> {
    return this.writer.run(() => this.statements.insertMany(table, columns, rows, onConflict));
  }

  transaction<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    return this.writer.runAsync(async () => {
      const tx = new SqliteTransaction(this.statements);
      try {
        return await work(tx);
      } finally {
        tx.end();
      }
    });
  }

  /** Not ok once a write failed for want of storage (damaged file, full disk, I/O error), until a probe write commits (see StorageHealth). */
  health(): Promise<{ ok: boolean; detail: string }> {
    return Promise.resolve(this.writable());
  }

  writable(): { ok: boolean; detail: string } {
    if (!this.connection.open)
      return { ok: false, detail: `${this.connection.memory ? 'the in-memory database' : path.basename(this.connection.name)} is closed` };
    return this.writer.health.check();
  }

  async close(): Promise<void> {
    if (!this.connection.open) return;
    await this.writer.close();
    this.connection.close();
  }
}

/** A transaction's calls: run at once on the connection, inside the batch the writer has open. */
class SqliteTransaction implements Transaction {
  readonly dialect = SQLITE_DIALECT;
  private isOpen = true;

  constructor(private readonly statements: Statements) {}

  end(): void {
    this.isOpen = false;
  }

  query<R extends Row = Row>(sql: string, params?: SqlParams): Promise<R[]> {
    return this.now(() => this.statements.all<R>(sql, params));
  }

  one<R extends Row = Row>(sql: string, params?: SqlParams): Promise<R | undefined> {
    return this.now(() => this.statements.get<R>(sql, params));
  }

  run(sql: string, params?: SqlParams): Promise<RunResult> {
    return this.now(() => this.statements.run(sql, params));
  }

  write<R extends Row = Row>(sql: string, params?: SqlParams): Promise<R[]> {
    return this.now(() => this.statements.all<R>(sql, params));
  }

  insertMany(table: string, columns: readonly string[], rows: readonly SqlParams[], onConflict?: string): Promise<RunResult> {
    return this.now(() => this.statements.insertMany(table, columns, rows, onConflict));
  }

  lock(): Promise<void> {
    return Promise.resolve();
  }

  private now<T>(call: () => T): Promise<T> {
    if (!this.isOpen) return Promise.reject(new Error('the transaction has ended'));
    try {
      return Promise.resolve(call());
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }
}

/** The connection's statements, prepared once per SQL text. */
class Statements {
  private readonly prepared = new Map<string, Sqlite.Statement>();

  constructor(private readonly connection: SqliteDatabase) {}

  all<R>(sql: string, params: SqlParams | undefined): R[] {
    return this.statement(sql).all(bound(params)) as R[];
  }

  get<R>(sql: string, params: SqlParams | undefined): R | undefined {
    return this.statement(sql).get(bound(params)) as R | undefined;
  }

  run(sql: string, params: SqlParams | undefined): RunResult {
    return { changes: this.statement(sql).run(bound(params)).changes };
  }

  /**
   * Whole parts of a few hundred rows through one prepared statement, and the rest a row at a
   * time through another: two statements per table and column list, whatever the row counts.
   */
  insertMany(table: string, columns: readonly string[], rows: readonly SqlParams[], onConflict = ''): RunResult {
    const perPart = Math.max(1, Math.min(500, Math.floor(SQLITE_MAX_PARAMETERS / columns.length)));
    const tuple = `(${columns.map(() => '?').join(', ')})`;
    const insert = (count: number) =>
      `INSERT INTO ${table} (${columns.join(', ')}) VALUES ${Array.from({ length: count }, () => tuple).join(', ')} ${onConflict}`;
    const bind = (part: readonly SqlParams[]) => {
      const values: SqlValue[] = [];
      for (const row of part) for (const column of columns) values.push(sqliteValue(row[column] ?? null));
      return values;
    };
    let changes = 0;
    const whole = rows.length - (rows.length % perPart);
    for (let at = 0; at < whole; at += perPart) changes += this.statement(insert(perPart)).run(bind(rows.slice(at, at + perPart))).changes;
    for (let at = whole; at < rows.length; at++) changes += this.statement(insert(1)).run(bind(rows.slice(at, at + 1))).changes;
    return { changes };
  }

  private statement(sql: string): Sqlite.Statement {
    let statement = this.prepared.get(sql);
    if (statement === undefined) {
      statement = this.connection.prepare(sql);
      if (this.prepared.size < MAX_PREPARED) this.prepared.set(sql, statement);
    }
    return statement;
  }
}

function sqliteValue(value: SqlValue): Exclude<SqlValue, boolean> {
  return typeof value === 'boolean' ? (value ? 1 : 0) : value;
}

/** The parameters as better-sqlite3 binds them: booleans as 1/0 (a copy only when there is one). */
function bound(params: SqlParams | undefined): Record<string, Exclude<SqlValue, boolean>> {
  if (params === undefined) return {};
  for (const key in params) {
    if (typeof params[key] === 'boolean') {
      const copy: Record<string, Exclude<SqlValue, boolean>> = {};
      for (const name in params) copy[name] = sqliteValue(params[name] as SqlValue);
      return copy;
    }
  }
  return params as Record<string, Exclude<SqlValue, boolean>>;
}
