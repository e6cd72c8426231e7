/**
 * A lab worker thread, started by LabPool: runs the backtests the pool posts, one at a time, and
 * answers each with its result or its error. Candles arrive as shared columns and are turned back
 * into candles once per set of columns (a sweep's jobs share them).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { fromColumns, type CandleColumns, type LabWorkerData, type PairColumns, type RunRequest, type WorkerReply } from './pool.js';
import type { BacktestInput, BacktestJob, BacktestPair, BacktestResult, LabCandle } from './types.js';

type RunBacktestJob = (job: BacktestJob, hooks?: Pick<BacktestInput, 'onProgress' | 'isCancelled'>) => BacktestResult;

/** Sets of decoded candles kept: a sweep on 20 pairs and their conversion pairs fits. */
const DECODED_KEPT = 32;

const port = parentPort;
if (!port) throw new Error('lab/worker.ts runs as a worker thread of LabPool');
const { runner } = workerData as LabWorkerData;
const { runBacktestJob } = (runner === undefined ? await import('./backtest.js') : await import(runner)) as { runBacktestJob: RunBacktestJob };

const decoded = new Map<number, LabCandle[]>();

function candlesOf(columns: CandleColumns): LabCandle[] {
  let candles = decoded.get(columns.key);
  if (!candles) {
    candles = fromColumns(columns);
    decoded.set(columns.key, candles);
    if (decoded.size > DECODED_KEPT) decoded.delete(decoded.keys().next().value as number);
  }
  return candles;
}

const pairOf = (pair: PairColumns): BacktestPair => ({ ...pair, candles: candlesOf(pair.candles) });

const reply = (message: WorkerReply) => port.postMessage(message);

port.on('message', ({ job, cancelFlag }: RunRequest) => {
  const flag = new Int32Array(cancelFlag);
  try {
    const result = runBacktestJob(
      { ...job, pairs: job.pairs.map(pairOf), conversion: job.conversion.map(pairOf) },
      { onProgress: (fraction) => reply({ type: 'progress', fraction }), isCancelled: () => Atomics.load(flag, 0) === 1 },
    );
    reply({ type: 'done', result });
  } catch (err) {
    const error = err instanceof Error ? err : new Error(String(err));
    reply({ type: 'failed', error: { name: error.name, message: error.message } });
  }
});
