/**
 * A lab worker thread, started by LabPool: runs the backtests the pool posts, one at a time, and
 * answers each with its result or its error. Candles arrive as shared columns and are turned back
 * into candles once: the candles of the last job are kept, and a sweep's next job on the same
 * columns reuses them.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { fromColumns, type LabWorkerData, type PairColumns, type RunRequest, type WorkerReply } from './pool.js';
import type { BacktestInput, BacktestJob, BacktestPair, BacktestResult, LabCandle } from './types.js';

type RunBacktestJob = (job: BacktestJob, hooks?: Pick<BacktestInput, 'onProgress' | 'isCancelled'>) => BacktestResult;

const port = parentPort;
if (!port) throw new Error('lab/worker.ts runs as a worker thread of LabPool');
const { runner } = workerData as LabWorkerData;
const { runBacktestJob } = (runner === undefined ? await import('./backtest.js') : await import(runner)) as { runBacktestJob: RunBacktestJob };

/** The last job's candles by their columns' key: all a thread keeps between jobs. */
let decoded = new Map<number, LabCandle[]>();

/** The job's pairs with their candles, decoded unless the last job had them; only these are kept. */
function pairsOf(job: RunRequest['job']): { pairs: BacktestPair[]; conversion: BacktestPair[] } {
  const kept = new Map<number, LabCandle[]>();
  const pairOf = (pair: PairColumns): BacktestPair => {
    const candles = kept.get(pair.candles.key) ?? decoded.get(pair.candles.key) ?? fromColumns(pair.candles);
    kept.set(pair.candles.key, candles);
    return { ...pair, candles };
  };
  const pairs = { pairs: job.pairs.map(pairOf), conversion: job.conversion.map(pairOf) };
  decoded = kept;
  return pairs;
}

const reply = (message: WorkerReply) => port.postMessage(message);

port.on('message', ({ job, cancelFlag }: RunRequest) => {
  const flag = new Int32Array(cancelFlag);
  try {
    const result = runBacktestJob(
      { ...job, ...pairsOf(job) },
      { onProgress: (fraction) => reply({ type: 'progress', fraction }), isCancelled: () => Atomics.load(flag, 0) === 1 },
    );
    reply({ type: 'done', result });
  } catch (err) {
    const error = err instanceof Error ? err : new Error(String(err));
    reply({ type: 'failed', error: { name: error.name, message: error.message } });
  }
});
