import type { Clock, TimerHandle } from '@fxdesk/primitives';
import type { Logger } from 'pino';
import { errors } from '../errors.js';
import type { JobEvents } from './job-events.js';
import type { LabConfig } from './jobs.js';
import type { JobKind, LabStore } from './store.js';

/**
 * How often a replica renews the leases of its unfinished jobs (and so learns which of them were
 * cancelled on another replica), and fails the jobs of replicas whose lease ran out.
 */
export const JOB_CHECK_MS = 1000;
/** How long a job's lease lasts: a job its replica has not renewed for this long is failed (INTERRUPTED) by another. */
export const JOB_LEASE_MS = 30_000;

/** Seconds a client is told to wait when the queue is full. */
const QUEUE_FULL_RETRY_SECONDS = 30;

/** The time as a job's record holds it. */
export function isoNow(clock: Clock): string {
  return new Date(clock.now()).toISOString();
}

/** A new job's creation time and its first lease. */
export function jobStamps(clock: Clock): { createdAt: string; leaseExpiresAt: string } {
  const now = clock.now();
  return { createdAt: new Date(now).toISOString(), leaseExpiresAt: new Date(now + JOB_LEASE_MS).toISOString() };
}

interface QueuedJob {
  kind: JobKind;
  id: string;
  abort: AbortController;
  run: (signal: AbortSignal) => Promise<void>;
}

/** A job that ended early: cancelled, or the service closing. */
class Stopped extends Error {}

/**
 * Where this replica's jobs wait and run, and their leases. Jobs queue in memory (at most
 * LAB_MAX_QUEUE waiting) and run up to LAB_WORKERS at a time. Every JOB_CHECK_MS the replica
 * renews the leases of the jobs queued or running here, stops those the store no longer has
 * unfinished (cancelled or deleted on another replica), and fails other replicas' jobs whose
 * lease ran out (their replica died); this replica's own from before a restart it fails at its
 * start, and what it still holds as it closes.
 */
export class LabScheduler {
  private readonly pending: QueuedJob[] = [];
  private readonly active = new Map<string, { job: QueuedJob; done: Promise<void> }>();
  private readonly idleWaiters: Array<() => void> = [];
  private isClosed = false;
  private timer: TimerHandle | undefined;
  private checking: Promise<void> | undefined;

  constructor(
    private readonly options: {
      config: Pick<LabConfig, 'LAB_WORKERS' | 'LAB_MAX_QUEUE'>;
      store: LabStore;
      clock: Clock;
      logger: Logger;
      events: JobEvents;
    },
  ) {}

  /** At the service's start: fails the jobs no replica runs any more (this one's from before a restart included), then checks every JOB_CHECK_MS. */
  async start(): Promise<void> {
    const { store, clock, logger, events } = this.options;
    const failed = await store.failAbandoned(isoNow(clock), { includeOwn: true });
    if (failed.backtests.length + failed.sweeps.length > 0) logger.warn(failed, 'lab jobs interrupted by the last stop marked failed');
    await events.toldFailed(failed);
    this.schedule();
  }

  /** Throws 503 LAB_QUEUE_FULL when no more job may wait (or the service is stopping). */
  checkQueue(): void {
    if (this.isClosed) throw errors.create('lab_queue_full', 'the service is stopping', { headers: { 'retry-after': String(QUEUE_FULL_RETRY_SECONDS) } });
    if (this.pending.length < this.options.config.LAB_MAX_QUEUE) return;
    throw errors.create('lab_queue_full', `${this.pending.length} lab jobs are waiting already (LAB_MAX_QUEUE); retry when one has started`, {
      headers: { 'retry-after': String(QUEUE_FULL_RETRY_SECONDS) },
    });
  }

  /** Queues a stored job; `run` is given the signal that aborts when it is cancelled or the service stops. */
  enqueue(kind: JobKind, id: string, run: (signal: AbortSignal) => Promise<void>): void {
    this.pending.push({ kind, id, abort: new AbortController(), run });
    this.pump();
  }

  /** Stops a job queued or running here (its record is the caller's to move). */
  stopHere(id: string): void {
    const queued = this.pending.findIndex((job) => job.id === id);
    if (queued >= 0) this.pending.splice(queued, 1);
    this.active.get(id)?.job.abort.abort(new Stopped('cancelled'));
    this.notifyIdle();
  }

  /** Resolves when the check of the jobs that is running, if any, is done (tests). */
  async whenChecked(): Promise<void> {
    await this.checking;
  }

  /** Resolves when no job is queued or running here (tests). */
  whenIdle(): Promise<void> {
    if (this.pending.length === 0 && this.active.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Stops every job: what was queued or running here is failed (INTERRUPTED), as the next start would. */
  async close(): Promise<void> {
    const { store, clock, events } = this.options;
    this.isClosed = true;
    if (this.timer) clock.clearTimer(this.timer);
    this.pending.length = 0;
    const running = [...this.active.values()];
    for (const { job } of running) job.abort.abort(new Stopped('the service is stopping'));
    await Promise.all([this.checking, ...running.map(({ done }) => done)]);
    await events.whenWritten();
    await store.failAbandoned(isoNow(clock), { includeOwn: true });
    await events.whenTold();
  }

  /** Starts queued jobs while fewer than LAB_WORKERS run. */
  private pump(): void {
    while (!this.isClosed && this.active.size < this.options.config.LAB_WORKERS && this.pending.length > 0) {
      const job = this.pending.shift() as QueuedJob;
      const done = job
        .run(job.abort.signal)
        .catch((err: unknown) => this.options.logger.error({ err, id: job.id }, `lab ${job.kind} failed unexpectedly`))
        .finally(() => {
          this.active.delete(job.id);
          this.pump();
          this.notifyIdle();
        });
      this.active.set(job.id, { job, done });
    }
  }

  private notifyIdle(): void {
    if (this.pending.length > 0 || this.active.size > 0) return;
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  /** The next check, JOB_CHECK_MS after the last one ended. */
  private schedule(): void {
    if (this.isClosed) return;
    this.timer = this.options.clock.setTimeout(() => {
      this.checking = this.check().finally(() => {
        this.checking = undefined;
        this.schedule();
      });
    }, JOB_CHECK_MS);
    this.timer.unref();
  }

  /**
   * Renews the leases of the jobs queued or running here and stops those the store no longer
   * has unfinished (cancelled or deleted on another replica); fails other replicas' jobs whose
   * lease ran out (their replica died).
   */
  private async check(): Promise<void> {
    const { store, clock, logger, events } = this.options;
    try {
      // Only jobs already stored are judged: one queued while the renewal runs is not in its answer yet.
      const here = [...this.pending.map((job) => job.id), ...this.active.keys()];
      if (here.length > 0) {
        const unfinished = await store.renewLeases(jobStamps(clock).leaseExpiresAt);
        for (const id of here) if (!unfinished.has(id)) this.stopHere(id);
      }
      const failed = await store.failAbandoned(isoNow(clock), { includeOwn: false });
      if (failed.backtests.length + failed.sweeps.length > 0) logger.warn(failed, 'lab jobs of a replica that stopped answering marked failed');
      await events.toldFailed(failed);
    } catch (err) {
      logger.warn({ err }, 'checking the lab jobs failed; trying again');
    }
  }
}
