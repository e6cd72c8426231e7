/**
 * A lab worker thread, started by LabPool: runs the backtests the pool posts, one at a time, and
 * answers each with its result or its error. The candles arrive as columns in shared memory
 * (lab/columns.ts), read in place: a thread keeps nothing between jobs.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { LabWorkerData, RunRequest, WorkerReply } from './pool.js';
import type { BacktestInput, BacktestJob, BacktestResult } from './types.js';

type RunBacktestJob = (job: BacktestJob, hooks?: Pick<BacktestInput, 'onProgress' | 'isCancelled'>) => BacktestResult;

const port = parentPort;
if (!port) throw new Error('lab/worker.ts runs as a worker thread of LabPool');
const { runner } = workerData as LabWorkerData;
const { runBacktestJob } = (runner === undefined ? await import('./backtest.js') : await import(runner)) as { runBacktestJob: RunBacktestJob };

const reply = (message: WorkerReply) => port.postMessage(message);

port.on('message', ({ job, cancelFlag }: RunRequest) => {
  const flag = new Int32Array(cancelFlag);
  try {
    const result = runBacktestJob(job, { onProgress: (fraction) => reply({ type: 'progress', fraction }), isCancelled: () => Atomics.load(flag, 0) === 1 });
    reply({ type: 'done', result });
  } catch (err) {
    const error = err instanceof Error ? err : new Error(String(err));
    reply({ type: 'failed', error: { name: error.name, message: error.message } });
  }
});
