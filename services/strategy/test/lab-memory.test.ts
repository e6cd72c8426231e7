import v8 from 'node:v8';
import vm from 'node:vm';
import { SimulatedMarket } from '@fxdesk/broker';
import { createLogger } from '@fxdesk/core';
import { ManualClock } from '@fxdesk/primitives';
import { describe, expect, it } from 'vitest';
import { runBacktestJob } from '../src/lab/backtest.js';
import { SimulatedLabHistory } from '../src/lab/candles.js';
import { LabJobs, type LabRunner } from '../src/lab/jobs.js';
import { SqlLabStore } from '../src/lab/sql-store.js';
import { testConfig } from './helpers.js';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

/** What the process holds after a full collection: the V8 heap in use and the array buffers (the candles' shared columns). */
function liveBytes(): number {
  gc();
  gc();
  return v8.getHeapStatistics().used_heap_size + process.memoryUsage().arrayBuffers;
}

const MB = 1024 * 1024;

describe('a lab job’s memory', { timeout: 300_000 }, () => {
  it('holds its candles in about 150 bytes each at the peak of its run (README), and gives it all back when done', async () => {
    const config = testConfig({ SIM_MARKET_HOURS: 'false', WARMUP_CANDLES: '300', LAB_MAX_CANDLES: '1000000' });
    const clock = new ManualClock(Date.UTC(2026, 0, 5));
    const market = new SimulatedMarket({ seed: 'lab-memory', tickIntervalMs: 10_000, marketHours: false, clock });
    // The job runs in this thread, as the CLI runs it, so its whole footprint is this heap's.
    // Measured in the second pass (its last fifth), when the run holds its most beside the candles.
    let atPeak = 0;
    const runner: LabRunner = {
      run: async (job) =>
        runBacktestJob(job, {
          onProgress: (fraction) => {
            if (fraction >= 0.9 && atPeak === 0) atPeak = liveBytes();
          },
        }),
    };
    const jobs = new LabJobs({
      config,
      lab: { store: await SqlLabStore.open(), history: new SimulatedLabHistory(market), hours: 'all_week', runner },
      clock,
      logger: createLogger({ name: 'lab', level: 'silent' }),
    });
    const backtest = async (from: string, to: string) => {
      const { id } = await jobs.submitBacktest({ instruments: ['EUR_USD', 'USD_JPY'], timeframe: 'M1', from, to });
      await jobs.whenIdle();
      return jobs.backtest(id);
    };
    // A first small job: the code the lab compiles is not the job's footprint.
    await backtest('2025-12-01', '2025-12-08');
    atPeak = 0;
    const before = liveBytes();

    const done = await backtest('2025-09-01', '2025-12-01');
    const after = liveBytes();
    await jobs.close();

    expect(done.status).toBe('done');
    const candles = 2 * (91 * 1440 + 300);
    const perCandle = (atPeak - before) / candles;
    process.stdout.write(
      `lab memory: ${candles} candles; ${perCandle.toFixed(0)} bytes a candle at the run's peak; live before ${(before / MB).toFixed(1)} MB, after ${(after / MB).toFixed(1)} MB\n`,
    );
    expect(perCandle).toBeLessThan(150);
    expect(Math.abs(after - before)).toBeLessThan(20 * MB);
  });
});
