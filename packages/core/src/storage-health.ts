import path from 'node:path';
import { GroupCommit, type AsyncOperation, type Operation } from './group-commit.js';
import type { SqliteDatabase } from './sqlite.js';
import { ensureMetaTable, isDamagedError, sqliteCode } from './sqlite-guard.js';

/** SQLite's codes for a write the storage itself refused: damaged file, full disk, I/O error, read-only file or folder. */
const UNWRITABLE = /^SQLITE_(CORRUPT|NOTADB|FULL|IOERR|READONLY|CANTOPEN)/;

export interface StorageHealthOptions {
  now?: () => number;
  /** The least time between two probe writes while the store cannot write (default 5 s). */
  probeIntervalMs?: number;
}

interface Failure {
  detail: string;
  /** A damaged file does not mend while the service runs: no probe clears it. */
  isDamaged: boolean;
}

/**
 * Whether a SQLite store can write, for /health/ready. The store passes every write's failure to
 * `record` (or its promise through `watch`); a failure of the storage itself (damaged file, full
 * disk, I/O error, read-only) marks the store unwritable. Then `check` answers not ok, and at most
 * once per probe interval tries a real write that needs a fresh page (a page-sized row, deleted in
 * the same committed transaction); the first that commits makes the store writable again. While
 * writes succeed, `check` touches nothing, so a readiness poll costs no fsync. A damaged file
 * (SQLITE_CORRUPT, SQLITE_NOTADB) stays unwritable until the process restarts, where the start-up
 * check refuses it and says what to do.
 */
export class StorageHealth {
  private failure: Failure | undefined;
  private probedAt = Number.NEGATIVE_INFINITY;
  private readonly name: string;
  private readonly now: () => number;
  private readonly probeIntervalMs: number;

  constructor(
    private readonly db: SqliteDatabase,
    options: StorageHealthOptions = {},
  ) {
    this.name = db.memory ? 'the in-memory database' : path.basename(db.name);
    this.now = options.now ?? Date.now;
    this.probeIntervalMs = options.probeIntervalMs ?? 5_000;
  }

  /** Whether the last write (or probe) found the storage writable. */
  get isWritable(): boolean {
    return this.failure === undefined;
  }

  /** Notes a failed write; only a failure of the storage itself changes anything. */
  record(err: unknown): void {
    const code = sqliteCode(err);
    if (!UNWRITABLE.test(code) || this.failure?.isDamaged) return;
    const message = err instanceof Error ? err.message : String(err);
    this.failure = { detail: `${this.name} cannot write (${code}: ${message})`, isDamaged: isDamagedError(err) };
    this.probedAt = this.now();
  }

  /** The same promise, with its failure recorded. */
  watch<T>(promise: Promise<T>): Promise<T> {
    return promise.catch((err: unknown) => {
      this.record(err);
      throw err;
    });
  }

  /** Runs a synchronous write, recording its failure. */
  guard<T>(write: () => T): T {
    try {
      return write();
    } catch (err) {
      this.record(err);
      throw err;
    }
  }

  /** The readiness check: ok while writes succeed; else probes a write at most once per interval. */
  check(): { ok: boolean; detail: string } {
    const failure = this.failure;
    if (failure === undefined) return { ok: true, detail: `${this.name} writable` };
    if (failure.isDamaged) return { ok: false, detail: `${failure.detail}; the file is damaged: stop the service and restore it` };
    if (this.now() - this.probedAt < this.probeIntervalMs || this.db.inTransaction) return { ok: false, detail: failure.detail };
    this.probedAt = this.now();
    try {
      probeWrite(this.db);
      this.failure = undefined;
      return { ok: true, detail: `${this.name} writable again` };
    } catch (err) {
      this.failure = undefined;
      this.record(err);
      this.failure ??= failure;
      return { ok: false, detail: this.failure.detail };
    }
  }
}

/**
 * A committed write that needs room: a page-sized row (a new page unless one is free), deleted in
 * the same transaction, so it leaves nothing behind but proves a commit reaches the disk.
 */
function probeWrite(db: SqliteDatabase): void {
  const pageSize = db.pragma('page_size', { simple: true }) as number;
  db.exec('BEGIN IMMEDIATE');
  try {
    ensureMetaTable(db);
    db.prepare("INSERT INTO fxdesk_meta (key, value) VALUES ('write_probe', zeroblob(?))").run(pageSize);
    db.prepare("DELETE FROM fxdesk_meta WHERE key = 'write_probe'").run();
    db.exec('COMMIT');
  } catch (err) {
    try {
      if (db.inTransaction) db.exec('ROLLBACK');
    } catch {
      // The failure already ended the transaction; the first error is the one to report.
    }
    throw err;
  }
}

/** A {@link GroupCommit} whose failed writes (and failed commits) are recorded in `health`. */
export class WatchedGroupCommit extends GroupCommit {
  constructor(
    db: SqliteDatabase,
    readonly health: StorageHealth,
  ) {
    super(db);
  }

  override run<T>(operation: Operation<T>): Promise<T> {
    return this.health.watch(super.run(operation));
  }

  override runAsync<T>(operation: AsyncOperation<T>): Promise<T> {
    return this.health.watch(super.runAsync(operation));
  }
}
