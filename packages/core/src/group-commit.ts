import type { SqliteDatabase } from './sqlite.js';

/** A unit of work on the database (closing over its prepared statements); it runs inside the batch's transaction. */
export type Operation<T> = () => T;

interface Queued {
  operation: Operation<unknown>;
  resolve: (value: unknown) => void;
  reject: (reason: unknown) => void;
}

type Settled = { ok: true; value: unknown } | { ok: false; error: unknown };

export interface GroupCommitStats {
  commits: number;
  operations: number;
  failedCommits: number;
}

/**
 * Group commit: the operations queued during one event-loop turn run in order inside one
 * transaction, committed once in the next check phase (one fsync under synchronous=FULL for
 * the whole batch). Each caller's promise settles only after that commit returns, so nobody acts
 * on a write, or answers with it, before it is on disk. Durability is the same as one commit per
 * operation; only the number of fsyncs changes.
 *
 * Each operation runs in its own savepoint: one that throws is undone alone and rejects alone.
 * A failed COMMIT (disk full, I/O error) rolls the whole batch back and rejects every caller.
 * Use it for one connection's writes only: everything that writes must go through it.
 */
export class GroupCommit {
  readonly stats: GroupCommitStats = { commits: 0, operations: 0, failedCommits: 0 };
  private queue: Queued[] = [];
  private scheduled = false;
  private closed = false;
  /** Runs an operation in a savepoint (a nested better-sqlite3 transaction), made once: making one is not cheap. */
  private readonly inSavepoint: (operation: Operation<unknown>) => unknown;

  constructor(private readonly db: SqliteDatabase) {
    this.inSavepoint = db.transaction((operation: Operation<unknown>) => operation());
  }

  /** Queues a write (or a read that must see earlier writes) and settles after its commit. */
  run<T>(operation: Operation<T>): Promise<T> {
    if (this.closed) return Promise.reject(new Error('the database is closed'));
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ operation, resolve: resolve as (value: unknown) => void, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /**
   * A read: runs at once when nothing is waiting to commit (so it sees only committed data),
   * else joins the batch and settles after its commit.
   */
  read<T>(operation: Operation<T>): Promise<T> {
    if (this.queue.length > 0) return this.run(operation);
    try {
      return Promise.resolve(operation());
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }

  /** Commits what is queued now, synchronously. */
  flush(): void {
    this.scheduled = false;
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0) return;
    let settled: Settled[];
    try {
      settled = this.commit(batch);
    } catch (error) {
      this.stats.failedCommits += 1;
      for (const item of batch) item.reject(error);
      return;
    }
    this.stats.commits += 1;
    this.stats.operations += batch.length;
    batch.forEach((item, i) => {
      const outcome = settled[i] as Settled;
      if (outcome.ok) item.resolve(outcome.value);
      else item.reject(outcome.error);
    });
  }

  /** Commits what is queued, then refuses new work. */
  close(): void {
    this.flush();
    this.closed = true;
  }

  private commit(batch: Queued[]): Settled[] {
    const settled: Settled[] = [];
    this.db.exec('BEGIN IMMEDIATE');
    try {
      for (const item of batch) {
        try {
          settled.push({ ok: true, value: this.inSavepoint(item.operation) });
        } catch (error) {
          if (!this.db.inTransaction) throw error;
          settled.push({ ok: false, error });
        }
      }
      this.db.exec('COMMIT');
    } catch (error) {
      if (this.db.inTransaction) {
        try {
          this.db.exec('ROLLBACK');
        } catch {
          // The failure already ended the transaction; the first error is the one to report.
        }
      }
      throw error;
    }
    return settled;
  }
}
