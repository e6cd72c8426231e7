import type { SqliteDatabase } from '@fxdesk/core';

interface Job {
  fn: () => unknown;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
  result?: unknown;
  error?: unknown;
  failed?: boolean;
}

/**
 * Group commit: every write queued during one turn of the event loop runs in one transaction,
 * so one fsync (synchronous=FULL) makes a whole batch durable. Each job runs in its own savepoint,
 * so one failing job rolls back alone; no job's promise settles before the commit has returned,
 * so nobody answers a client about a write that is not on disk yet.
 */
export class GroupCommitter {
  private queue: Job[] = [];
  private scheduled = false;
  /** Batches committed and jobs in them, for the metrics. */
  commits = 0;
  jobs = 0;

  constructor(private readonly db: SqliteDatabase) {}

  run<T>(fn: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ fn, resolve: resolve as (v: unknown) => void, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Commits whatever is queued now (also called on close, so nothing queued is lost). */
  flush(): void {
    this.scheduled = false;
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0) return;
    try {
      this.db.transaction(() => {
        for (const job of batch) {
          try {
            job.result = this.db.transaction(job.fn)();
          } catch (err) {
            job.failed = true;
            job.error = err;
          }
        }
      })();
    } catch (err) {
      for (const job of batch) job.reject(err);
      return;
    }
    this.commits += 1;
    this.jobs += batch.length;
    for (const job of batch) {
      if (job.failed) job.reject(job.error);
      else job.resolve(job.result);
    }
  }
}
