import { afterEach, describe, expect, it } from 'vitest';
import { BacktestCancelledError, runBacktestJob } from '../src/lab/backtest.js';
import { candlesOf, columnsOf, sliceColumns } from '../src/lab/columns.js';
import { LabPool, labWorkerEntry, type LabPoolOptions } from '../src/lab/pool.js';
import type { BacktestJob, LabCandle } from '../src/lab/types.js';

// The workers run test/lab-pool.fixture.ts, whose behaviour each job names by its instrument.
const fixture = new URL('./lab-pool.fixture.ts', import.meta.url);

const pools: LabPool[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});

function pool(options: Partial<LabPoolOptions> = {}): LabPool {
  const created = new LabPool({ workers: 1, runner: fixture, ...options });
  pools.push(created);
  return created;
}

const candle = (time: number, close: number, spread: number | null): LabCandle => ({ time, open: close, high: close, low: close, close, volume: 10, spread });

function job(instrument: string, candles: LabCandle[] = [candle(0, 1.5, 0.0001), candle(300, 2.25, null)]): BacktestJob {
  return {
    timeframe: 'M5',
    pairs: [{ instrument, symbol: instrument, digits: 5, candles: columnsOf(candles) }],
    conversion: [],
    rules: { supertrendAtrPeriod: 10, supertrendMultiplier: 3, volumeProfileWindow: 100, minConfluence: 3, riskReward: 2, minStopAtr: 0.5, fvgMaxAge: 100 },
    fills: { spread_points: null, slippage_points: 0, commission_per_lot: 0, volume: { lots: 0.1 } },
    initialBalance: 100_000,
    accountCurrency: 'USD',
    fromSec: 0,
    toSec: 600,
  };
}

/** A job that runs until cancelled, with a promise of its first progress report. */
function spinning(target: LabPool, instrument = 'SPIN') {
  const controller = new AbortController();
  let started!: () => void;
  const hasStarted = new Promise<void>((resolve) => (started = resolve));
  const run = target.run(job(instrument), { signal: controller.signal, onProgress: () => started() });
  run.catch(() => undefined);
  return { controller, hasStarted, run };
}

describe('candle columns', () => {
  it('hold candles in shared memory, 56 bytes each, and give them back, a missing spread included', () => {
    const candles = [candle(1_767_225_600, 1.10234, 0.00012), candle(1_767_225_900, 1.10301, null)];
    const columns = columnsOf(candles);
    expect(columns.time.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(columns.time.buffer.byteLength).toBe(7 * 2 * 8);
    expect(candlesOf(columns)).toEqual(candles);
    expect(candlesOf(sliceColumns(columns, 1, 2))).toEqual([candles[1]]);
  });
});

describe('labWorkerEntry', () => {
  it('runs the TypeScript source beside the pool’s source', () => {
    expect(labWorkerEntry('file:///repo/services/strategy/src/lab/pool.ts')).toEqual({
      bundled: false,
      url: new URL('file:///repo/services/strategy/src/lab/worker.ts'),
    });
  });

  it('runs lab-worker.js next to the bundle the pool was compiled into', () => {
    expect(labWorkerEntry('file:///repo/services/strategy/dist/server.js')).toEqual({
      bundled: true,
      url: new URL('file:///repo/services/strategy/dist/lab-worker.js'),
    });
  });
});

describe('LabPool', { timeout: 30_000 }, () => {
  it('runs a backtest on a worker thread with the candles as they were, and reports its progress', async () => {
    const progress: number[] = [];
    const result = await pool().run(job('ECHO'), { onProgress: (f) => progress.push(f) });
    expect(result.metrics.overall.net_profit).toBe(3.75);
    expect(result.candles).toBe(2);
    expect(result.skipped_signals).toBe(1);
    expect(progress).toEqual([0.25, 1]);
  });

  it('hands the worker the candles’ memory itself, not a copy: what the worker writes in it, the caller reads', async () => {
    const shared = job('WRITE');
    await pool().run(shared);
    expect(shared.pairs[0]?.candles.volume[0]).toBe(-1);
  });

  it('runs as many jobs at once as it has workers and queues the rest in order', async () => {
    const target = pool({ workers: 2 });
    const first = spinning(target);
    const second = spinning(target);
    let thirdStarted = false;
    const third = spinning(target);
    void third.hasStarted.then(() => (thirdStarted = true));
    await Promise.all([first.hasStarted, second.hasStarted]);
    expect(target.threads).toBe(2);
    expect(thirdStarted).toBe(false);

    first.controller.abort();
    await third.hasStarted;
    expect(target.threads).toBe(2);
    second.controller.abort();
    third.controller.abort();
  });

  it('rejects a cancelled job with the signal’s reason; its worker stops on the shared flag and takes the next job', async () => {
    const target = pool();
    const spin = spinning(target);
    await spin.hasStarted;
    spin.controller.abort(new Error('cancelled by the user'));
    await expect(spin.run).rejects.toThrow('cancelled by the user');
    expect((await target.run(job('ECHO'))).candles).toBe(2);
    expect(target.threads).toBe(1);
  });

  it('terminates a worker that does not stop when cancelled, and runs the next job on a new one', async () => {
    const target = pool({ cancelGraceMs: 50 });
    const hang = spinning(target, 'HANG');
    await hang.hasStarted;
    hang.controller.abort();
    await expect(hang.run).rejects.toThrow('This operation was aborted');
    expect((await target.run(job('ECHO'))).candles).toBe(2);
  });

  it('removes a queued job that is cancelled before it starts, and refuses an aborted signal at once', async () => {
    const target = pool();
    const spin = spinning(target);
    const queued = spinning(target, 'ECHO');
    queued.controller.abort(new Error('not needed'));
    await expect(queued.run).rejects.toThrow('not needed');
    await expect(target.run(job('ECHO'), { signal: AbortSignal.abort(new Error('too late')) })).rejects.toThrow('too late');
    spin.controller.abort();
  });

  it('fails a job whose backtest throws with its error, and keeps the worker', async () => {
    const target = pool();
    await expect(target.run(job('FAIL'))).rejects.toMatchObject({ name: 'RangeError', message: 'no candles in the window' });
    expect(target.threads).toBe(1);
    expect((await target.run(job('ECHO'))).candles).toBe(2);
  });

  it('fails the job of a worker that dies with a clear error and replaces the worker', async () => {
    const target = pool();
    await expect(target.run(job('EXIT'))).rejects.toThrow('the lab worker running this backtest crashed (exit code 7)');
    expect((await target.run(job('ECHO'))).candles).toBe(2);
  });

  it('fails the job of a worker whose code cannot load, with the reason', async () => {
    const target = pool({ runner: new URL('./no-such-runner.ts', import.meta.url) });
    await expect(target.run(job('ECHO'))).rejects.toThrow(/the lab worker running this backtest crashed \(Error: Cannot find module .*no-such-runner/);
  });

  it('close fails the running and queued jobs, stops its threads and refuses new jobs', async () => {
    const target = pool();
    const spin = spinning(target);
    const queued = expect(target.run(job('ECHO'))).rejects.toThrow('the lab pool is closed');
    await spin.hasStarted;
    await target.close();
    await expect(spin.run).rejects.toThrow('the lab pool is closed');
    await queued;
    expect(target.threads).toBe(0);
    await expect(target.run(job('ECHO'))).rejects.toThrow('the lab pool is closed');
  });
});

/**
 * `count` M5 candles from 2026-01-05, a seeded walk with swings long enough for the Supertrend
 * to flip, so the strategy trades.
 */
function walk(count: number, start: number, seed: number): LabCandle[] {
  let state = seed;
  const random = () => (state = (state * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31 - 0.5;
  const candles: LabCandle[] = [];
  let close = start;
  for (let i = 0; i < count; i++) {
    const open = close;
    close = open * (1 + 0.0006 * random() + 0.0004 * Math.sin(i / 40));
    const high = Math.max(open, close) * (1 + 0.0002 * Math.abs(random()));
    const low = Math.min(open, close) * (1 - 0.0002 * Math.abs(random()));
    candles.push({
      time: 1_767_571_200 + i * 300,
      open,
      high,
      low,
      close,
      volume: 50 + Math.round(100 * Math.abs(random())),
      spread: i % 7 === 0 ? null : 0.00008,
    });
  }
  return candles;
}

function realJob(count: number): BacktestJob {
  const eurUsd = walk(count, 1.1, 7);
  return {
    ...job('EUR_USD', eurUsd),
    pairs: [
      { instrument: 'EUR_USD', symbol: 'EURUSD', digits: 5, candles: columnsOf(eurUsd) },
      { instrument: 'EUR_GBP', symbol: 'EURGBP', digits: 5, candles: columnsOf(walk(count, 0.86, 11)) },
    ],
    conversion: [{ instrument: 'GBP_USD', symbol: 'GBPUSD', digits: 5, candles: columnsOf(walk(count, 1.27, 13)) }],
    fromSec: (eurUsd[300] as LabCandle).time,
    toSec: (eurUsd[count - 1] as LabCandle).time + 300,
  };
}

describe('LabPool on lab/backtest.ts', { timeout: 60_000 }, () => {
  it('gives exactly the result of the same backtest run in this thread', async () => {
    const target = new LabPool({ workers: 1 });
    pools.push(target);
    const backtest = realJob(4000);
    const progress: number[] = [];
    const result = await target.run(backtest, { onProgress: (f) => progress.push(f) });
    expect(result.trades.length).toBeGreaterThan(0);
    expect(result).toEqual(runBacktestJob(backtest));
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.every((f, i) => f >= 0 && f <= 1 && (i === 0 || f >= (progress[i - 1] as number)))).toBe(true);
  });

  it('stops a cancelled backtest through the shared flag, the worker free for the next job', async () => {
    const target = new LabPool({ workers: 1, cancelGraceMs: 600_000 });
    pools.push(target);
    const controller = new AbortController();
    const long = target.run(realJob(200_000), { signal: controller.signal, onProgress: () => controller.abort(new BacktestCancelledError()) });
    await expect(long).rejects.toThrow(BacktestCancelledError);
    // Only a worker that stopped by itself can take this job before the (ten-minute) grace ends.
    expect((await target.run(realJob(1000))).candles).toBeGreaterThan(0);
    expect(target.threads).toBe(1);
  });
});
