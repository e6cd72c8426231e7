/**
 * A pool of worker threads (lab/worker.ts) that run backtests off the event loop. A pair's
 * candles are columns in shared memory (lab/columns.ts): posted to a worker, they are not copied,
 * so every job of a sweep over the same candles reads the same memory, and it is freed when the
 * job that loaded them lets them go.
 */
import { Worker } from 'node:worker_threads';
import type { BacktestJob, BacktestResult } from './types.js';

export interface RunRequest {
  job: BacktestJob;
  /** An Int32Array of one element over it: 1 asks the worker to stop. */
  cancelFlag: SharedArrayBuffer;
}

export type WorkerReply =
  { type: 'progress'; fraction: number } | { type: 'done'; result: BacktestResult } | { type: 'failed'; error: { name: string; message: string } };

/** What a worker is started with. */
export interface LabWorkerData {
  /** The module whose `runBacktestJob` the worker runs: lab/backtest.ts unless a test gives another. */
  runner?: string;
}

export interface LabPoolOptions {
  /** Threads at most; started as jobs arrive. */
  workers: number;
  /** A module URL exporting `runBacktestJob` in place of lab/backtest's (tests). */
  runner?: URL;
  /** How long a cancelled job's worker has to stop by itself before it is terminated. */
  cancelGraceMs?: number;
}

export interface RunOptions {
  /** 0..1, from the worker; at most ~100 calls. */
  onProgress?: (fraction: number) => void;
  /** Aborting rejects the run with the signal's reason and stops its worker. */
  signal?: AbortSignal;
}

interface Task {
  job: BacktestJob;
  options: RunOptions;
  cancelFlag: Int32Array;
  resolve: (result: BacktestResult) => void;
  reject: (err: unknown) => void;
  settled: boolean;
  onAbort?: () => void;
}

interface Slot {
  worker: Worker;
  task: Task | null;
  /** The uncaught error the worker died of, when it did. */
  error?: Error;
  killTimer?: NodeJS.Timeout;
}

const DEFAULT_CANCEL_GRACE_MS = 2000;

/** Where the worker's code is: next to the bundle in production, the TypeScript source under tsx otherwise. */
export function labWorkerEntry(moduleUrl: string = import.meta.url): { bundled: boolean; url: URL } {
  const bundled = !moduleUrl.endsWith('.ts');
  return { bundled, url: new URL(bundled ? './lab-worker.js' : './worker.ts', moduleUrl) };
}

/**
 * Runs backtests on up to `workers` threads, a job per thread at a time, the rest queued in
 * arrival order. A thread that dies fails its job with the reason and is replaced by the next job.
 */
export class LabPool {
  private readonly size: number;
  private readonly runner: string | undefined;
  private readonly cancelGraceMs: number;
  private readonly slots = new Set<Slot>();
  private readonly queue: Task[] = [];
  private isClosed = false;

  constructor(options: LabPoolOptions) {
    if (!Number.isInteger(options.workers) || options.workers < 1) throw new RangeError(`workers must be a whole number ≥ 1, got ${options.workers}`);
    this.size = options.workers;
    this.runner = options.runner?.href;
    this.cancelGraceMs = options.cancelGraceMs ?? DEFAULT_CANCEL_GRACE_MS;
  }

  /** Threads running now (busy or idle). */
  get threads(): number {
    return this.slots.size;
  }

  /** One backtest on a free worker; its candles' columns are shared with it. */
  run(job: BacktestJob, options: RunOptions = {}): Promise<BacktestResult> {
    if (this.isClosed) return Promise.reject(new Error('the lab pool is closed'));
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(reasonOf(signal));
    return new Promise<BacktestResult>((resolve, reject) => {
      const task: Task = {
        job,
        options,
        cancelFlag: new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT)),
        resolve,
        reject,
        settled: false,
      };
      if (signal) {
        task.onAbort = () => this.cancel(task, reasonOf(signal));
        signal.addEventListener('abort', task.onAbort, { once: true });
      }
      this.queue.push(task);
      this.dispatch();
    });
  }

  /** Fails the queued jobs, stops every thread and waits for them to exit. */
  async close(): Promise<void> {
    this.isClosed = true;
    for (const task of this.queue.splice(0)) this.settle(task, new Error('the lab pool is closed'));
    const exits = [...this.slots].map(async (slot) => {
      if (slot.task) this.settle(slot.task, new Error('the lab pool is closed'));
      await slot.worker.terminate();
    });
    await Promise.all(exits);
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const slot = [...this.slots].find((s) => s.task === null) ?? (this.slots.size < this.size ? this.spawn() : undefined);
      if (!slot) return;
      const task = this.queue.shift() as Task;
      slot.task = task;
      slot.worker.ref();
      const request: RunRequest = { job: task.job, cancelFlag: task.cancelFlag.buffer as SharedArrayBuffer };
      slot.worker.postMessage(request);
    }
  }

  private spawn(): Slot {
    const entry = labWorkerEntry();
    const workerData: LabWorkerData = { runner: this.runner };
    // Under tsx the worker registers tsx itself: a worker does not always inherit the parent's
    // loader (Node 20 ignores `--import tsx` in a worker's execArgv), so nothing is left to chance.
    const worker = entry.bundled
      ? new Worker(entry.url, { workerData, execArgv: process.execArgv })
      : new Worker(tsxBootstrap(entry.url), { eval: true, workerData, execArgv: [] });
    const slot: Slot = { worker, task: null };
    worker.on('message', (reply: WorkerReply) => this.onReply(slot, reply));
    worker.on('error', (err) => (slot.error = err));
    worker.on('exit', (code) => this.onExit(slot, code));
    this.slots.add(slot);
    return slot;
  }

  private onReply(slot: Slot, reply: WorkerReply): void {
    const task = slot.task;
    if (!task) return;
    if (reply.type === 'progress') {
      if (!task.settled) task.options.onProgress?.(reply.fraction);
      return;
    }
    if (reply.type === 'done') this.settle(task, null, reply.result);
    else this.settle(task, Object.assign(new Error(reply.error.message), { name: reply.error.name }));
    clearTimeout(slot.killTimer);
    slot.task = null;
    slot.worker.unref();
    this.dispatch();
  }

  private onExit(slot: Slot, code: number): void {
    clearTimeout(slot.killTimer);
    this.slots.delete(slot);
    if (slot.task) {
      const reason = slot.error ? `${slot.error.name}: ${slot.error.message}` : `exit code ${code}`;
      this.settle(slot.task, new Error(`the lab worker running this backtest crashed (${reason})`));
    }
    if (!this.isClosed) this.dispatch();
  }

  private cancel(task: Task, reason: Error): void {
    const queued = this.queue.indexOf(task);
    if (queued >= 0) this.queue.splice(queued, 1);
    this.settle(task, reason);
    if (queued >= 0) return;
    Atomics.store(task.cancelFlag, 0, 1);
    const slot = [...this.slots].find((s) => s.task === task);
    if (slot) slot.killTimer = setTimeout(() => void slot.worker.terminate(), this.cancelGraceMs);
  }

  private settle(task: Task, err: unknown, result?: BacktestResult): void {
    if (task.settled) return;
    task.settled = true;
    if (task.onAbort) task.options.signal?.removeEventListener('abort', task.onAbort);
    if (err === null) task.resolve(result as BacktestResult);
    else task.reject(err);
  }
}

/** Why the signal aborted, as an Error (`abort()` without a reason gives an AbortError). */
function reasonOf(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new Error(String(reason));
}

/** Worker code (eval) that registers tsx in the thread, then loads the TypeScript entry. */
function tsxBootstrap(entry: URL): string {
  const tsx = import.meta.resolve('tsx/esm/api');
  return `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); });`;
}
