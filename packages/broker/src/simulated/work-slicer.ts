import { performance } from 'node:perf_hooks';

/** Work done a step at a time: a generator that yields after each step and returns the result. */
export type Steps<T> = Generator<void, T, void>;

export interface WorkSlicerOptions {
  /** Work done in one turn of the event loop before the loop gets the next one, in ms. Default 5. */
  sliceMs?: number;
  /** A monotonic reading in ms (default performance.now): tests give one that counts steps. */
  now?: () => number;
}

/** The default slice: one slice and one step (a D1 bar, about 1 ms) stay well within 10 ms. */
export const WORK_SLICE_MS = 5;

interface Job {
  steps: Steps<unknown>;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

/** Runs every step of `steps` at once and returns the result. */
export function runAll<T>(steps: Steps<T>): T {
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
  }
}

/**
 * Runs long computations on the event loop without holding it: the jobs run a step at a time,
 * in turn, for about `sliceMs`, then the loop gets a turn (setImmediate) before the next slice.
 * The jobs share one slice, so however many run at once, a turn of the loop holds for one slice
 * and one step at most; a job's result is exactly what running its steps at once gives.
 */
export class WorkSlicer {
  private readonly sliceMs: number;
  private readonly now: () => number;
  private readonly jobs: Job[] = [];
  private isScheduled = false;
  /** Where the next slice resumes in `jobs`, so each job gets its turn. */
  private next = 0;

  constructor(options: WorkSlicerOptions = {}) {
    this.sliceMs = options.sliceMs ?? WORK_SLICE_MS;
    this.now = options.now ?? (() => performance.now());
  }

  /** The result of `steps`, run in slices from the next turn of the loop on. */
  run<T>(steps: Steps<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.jobs.push({ steps, resolve: resolve as (value: unknown) => void, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.isScheduled) return;
    this.isScheduled = true;
    setImmediate(() => this.runSlice());
  }

  private runSlice(): void {
    this.isScheduled = false;
    const endMs = this.now() + this.sliceMs;
    while (this.jobs.length > 0) {
      if (this.next >= this.jobs.length) this.next = 0;
      const job = this.jobs[this.next]!;
      try {
        const step = job.steps.next();
        if (step.done) {
          this.jobs.splice(this.next, 1);
          job.resolve(step.value);
        } else {
          this.next++;
        }
      } catch (err) {
        this.jobs.splice(this.next, 1);
        job.reject(err);
      }
      if (this.now() >= endMs) break;
    }
    if (this.jobs.length > 0) this.schedule();
  }
}

/** The process's slicer: every simulated history shares its slices. */
export const processWorkSlicer = new WorkSlicer();
