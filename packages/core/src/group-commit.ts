import type { SqliteDatabase } from './sqlite.js';

/** A unit of work on the database (closing over its prepared statements); it runs inside the batch's transaction. */
export type Operation<T> = () => T;

/**
 * A unit of work that awaits between its statements (a transaction written once for every
 * engine). It must await only statements it runs on this connection, which settle at once: it
 * holds the batch's transaction open while it runs.
 */
export type AsyncOperation<T> = () => Promise<T>;

interface Queued {
  operation: Operation<unknown> | AsyncOperation<unknown>;
  isAsync: boolean;
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
 *
 * A batch of synchronous operations commits within one turn. A batch that holds an
 * {@link AsyncOperation} commits once its last operation settles; meanwhile reads and new writes
 * wait for the next batch, so nothing outside the batch sees its uncommitted rows.
 */
export class GroupCommit {
  readonly stats: GroupCommitStats = { commits: 0, operations: 0, failedCommits: 0 };
  private queue: Queued[] = [];
  private scheduled = false;
  private closed = false;
  /** The batch of asynchronous operations being committed, if one is. */
  private committing: Promise<void> | undefined;
  /** Runs an operation in a savepoint (a nested better-sqlite3 transaction), made once: making one is not cheap. */
  private readonly inSavepoint: (operation: Operation<unknown>) => unknown;

  constructor(private readonly db: SqliteDatabase) {
    this.inSavepoint = db.transaction((operation: Operation<unknown>) => operation());
  }

  /** Queues a write (or a read that must see earlier writes) and settles after its commit. */
  run<T>(operation: Operation<T>): Promise<T> {
    return this.enqueue(operation, false);
  }

  /** Queues an operation that awaits its statements (see {@link AsyncOperation}); settles after its commit. */
  runAsync<T>(operation: AsyncOperation<T>): Promise<T> {
    return this.enqueue(operation, true);
  }

  /**
   * A read: runs at once when nothing is waiting to commit (so it sees only committed data),
   * else joins the batch and settles after its commit.
   */
  read<T>(operation: Operation<T>): Promise<T> {
    if (this.queue.length > 0 || this.committing) return this.run(operation);
    try {
      return Promise.resolve(operation());
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }

  /** Commits what is queued now: synchronously, unless the batch holds an asynchronous operation. */
  flush(): void {
    this.scheduled = false;
    if (this.committing) return; // the batch being committed schedules the next one when it is done
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0) return;
    if (!batch.some((item) => item.isAsync)) {
      let settled: Settled[];
      try {
        this.db.exec('BEGIN IMMEDIATE');
        settled = this.endBatch(this.runSync(batch));
      } catch (error) {
        this.fail(batch, error);
        return;
      }
      this.settle(batch, settled);
      return;
    }
    this.committing = this.commitAsync(batch).finally(() => {
      this.committing = undefined;
      if (this.queue.length > 0) this.schedule();
    });
  }

  /** Commits what is queued, then refuses new work; settles once the last batch has committed. */
  async close(): Promise<void> {
    this.flush();
    this.closed = true;
    while (this.committing) {
      await this.committing;
      this.flush();
    }
  }

  private enqueue<T>(operation: Operation<T> | AsyncOperation<T>, isAsync: boolean): Promise<T> {
    if (this.closed) return Promise.reject(new Error('the database is closed'));
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ operation, isAsync, resolve: resolve as (value: unknown) => void, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  private async commitAsync(batch: Queued[]): Promise<void> {
    let settled: Settled[] = [];
    try {
      this.db.exec('BEGIN IMMEDIATE');
      try {
        for (const item of batch) {
          if (item.isAsync) settled.push(await this.runInSavepoint(item.operation as AsyncOperation<unknown>));
          else settled.push(...this.runSync([item]));
        }
      } catch (error) {
        this.rollback();
        throw error;
      }
      settled = this.endBatch(settled);
    } catch (error) {
      this.fail(batch, error);
      return;
    }
    this.settle(batch, settled);
  }

  /** Runs synchronous operations, each in its savepoint, inside the open transaction. */
  private runSync(batch: Queued[]): Settled[] {
    const settled: Settled[] = [];
    try {
      for (const item of batch) {
        try {
          settled.push({ ok: true, value: this.inSavepoint(item.operation) });
        } catch (error) {
          if (!this.db.inTransaction) throw error;
          settled.push({ ok: false, error });
        }
      }
    } catch (error) {
      this.rollback();
      throw error;
    }
    return settled;
  }

  private async runInSavepoint(operation: AsyncOperation<unknown>): Promise<Settled> {
    this.db.exec('SAVEPOINT fxdesk_operation');
    try {
      const value = await operation();
      this.db.exec('RELEASE fxdesk_operation');
      return { ok: true, value };
    } catch (error) {
      if (!this.db.inTransaction) throw error;
      this.db.exec('ROLLBACK TO fxdesk_operation');
      this.db.exec('RELEASE fxdesk_operation');
      return { ok: false, error };
    }
  }

  /** Commits the open transaction (rolling it back if the commit fails). */
  private endBatch(settled: Settled[]): Settled[] {
    try {
      this.db.exec('COMMIT');
    } catch (error) {
      this.rollback();
      throw error;
    }
    return settled;
  }

  private rollback(): void {
    if (!this.db.inTransaction) return;
    try {
      this.db.exec('ROLLBACK');
    } catch {
      // The failure already ended the transaction; the first error is the one to report.
    }
  }

  private fail(batch: Queued[], error: unknown): void {
    this.stats.failedCommits += 1;
    for (const item of batch) item.reject(error);
  }

  private settle(batch: Queued[], settled: Settled[]): void {
    this.stats.commits += 1;
    this.stats.operations += batch.length;
    batch.forEach((item, i) => {
      const outcome = settled[i] as Settled;
      if (outcome.ok) item.resolve(outcome.value);
      else item.reject(outcome.error);
    });
  }
}
