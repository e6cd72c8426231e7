/**
 * Sweep speed-up: a 64-setting sweep (Supertrend period × multiplier × minimum confluence ×
 * risk/reward) over one year of M5 candles on four pairs, run on LabPool with one worker and
 * with all cores (os.availableParallelism()), the same jobs both times, in the same run.
 *
 *   npx tsx bench/backtest/sweep.ts [runs]        (default 1; the best run of each is reported)
 *
 * Candle loading (the simulated market, once) is excluded and reported apart. Each sweep's wall
 * time counts from the first job posted to the last result on a pool whose threads are started
 * (the service's pool keeps them between jobs; their start-up is logged apart): each thread's
 * first decoding of the shared candles included, as a sweep in the service pays it. Target:
 * a speed-up of at least 1.7× on 2 cores. Beside each time, the cores the process kept busy
 * (its CPU time over the wall time): on a machine other work shares, the speed-up is bounded by
 * what was free, and the CPU time of one worker over that of all says what idle cores would give.
 * Not a test: nothing here fails on a slow machine.
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { SimulatedMarket } from '@fxdesk/broker';
import { loadConfig } from '@fxdesk/core';
import { systemClock } from '@fxdesk/primitives';
import { StrategyConfigSchema } from '../../services/strategy/src/config.js';
import { SimulatedLabHistory } from '../../services/strategy/src/lab/candles.js';
import { columnsOf } from '../../services/strategy/src/lab/columns.js';
import { LabPool } from '../../services/strategy/src/lab/pool.js';
import { gridSettings } from '../../services/strategy/src/lab/sweep.js';
import type { BacktestJob, BacktestPair, BacktestResult } from '../../services/strategy/src/lab/types.js';
import { rulesOf, withOverrides } from '../../services/strategy/src/rules.js';
import { symbolOf } from '../../services/strategy/src/symbols.js';

/** The sweep: 4 × 4 × 2 × 2 = 64 settings. */
export const SWEEP_GRID = {
  supertrend_atr_period: [7, 10, 14, 21],
  supertrend_multiplier: [2, 2.5, 3, 3.5],
  min_confluence: [2, 3],
  risk_reward: [1.5, 2.5],
};

export const SPEED_UP_TARGET = 1.7;

/** The candles a sweep runs on: the pairs with their warm-up, and the decision window. */
export interface SweepCandles {
  pairs: BacktestPair[];
  fromSec: number;
  toSec: number;
}

export interface SweepFigures {
  settings: number;
  /** Candles of the window, all pairs, per backtest. */
  windowCandles: number;
  loadMs: number;
  workers: number;
  oneWorkerMs: number;
  allWorkersMs: number;
  /** CPU time of the process (every thread) over the wall time of each best run: how many cores it had. */
  oneWorkerCores: number;
  allWorkersCores: number;
  speedUp: number;
  /**
   * CPU time of the sweep on one worker over that on all: 1 when the threads add no work. On a
   * machine other work keeps busy, this (× workers) is the speed-up the cores would give idle.
   */
  efficiency: number;
  /** Whether every setting gave the same result on one worker and on all. */
  isSame: boolean;
}

const INSTRUMENTS = ['EUR_USD', 'GBP_USD', 'USD_JPY', 'AUD_USD'];
const YEAR_FROM_SEC = Date.UTC(2025, 0, 1) / 1000;
const YEAR_TO_SEC = Date.UTC(2026, 0, 1) / 1000;
/** Calendar days before the window that hold the largest warm-up (300 M5 candles) over a weekend. */
const WARMUP_DAYS = 5;

/** The strategy's settings at their defaults: its rules, the paper account, the simulated market's seed. */
const config = loadConfig(StrategyConfigSchema, {});

/** One year (2025) of M5 on four pairs from the simulated market at its default seed, with the warm-up before it. */
export async function loadSweepCandles(): Promise<SweepCandles> {
  const market = new SimulatedMarket({
    seed: config.SIM_SEED,
    tickIntervalMs: config.SIM_TICK_INTERVAL_MS,
    marketHours: config.SIM_MARKET_HOURS,
    clock: systemClock,
  });
  const history = new SimulatedLabHistory(market);
  const digits = new Map((await history.catalog()).map((s) => [s.symbol, s.digits]));
  const pairs: BacktestPair[] = [];
  for (const instrument of INSTRUMENTS) {
    const symbol = symbolOf(instrument, {});
    const candles = await history.candles(symbol, 'M5', YEAR_FROM_SEC - WARMUP_DAYS * 86_400, YEAR_TO_SEC);
    pairs.push({ instrument, symbol, digits: digits.get(symbol) ?? 5, candles: columnsOf(candles) });
  }
  return { pairs, fromSec: YEAR_FROM_SEC, toSec: YEAR_TO_SEC };
}

/** The sweep's jobs over the candles: the strategy's default rules under each setting of the grid. */
export function sweepJobs(candles: SweepCandles): BacktestJob[] {
  return gridSettings(SWEEP_GRID).map((overrides) => ({
    timeframe: 'M5',
    pairs: candles.pairs,
    conversion: [],
    rules: withOverrides(rulesOf(config), overrides),
    fills: { spread_points: null, slippage_points: 0, commission_per_lot: 0, volume: { lots: Number(config.TRADE_VOLUME) } },
    initialBalance: config.PAPER_BALANCE,
    accountCurrency: 'USD',
    fromSec: candles.fromSec,
    toSec: candles.toSec,
  }));
}

interface Timed {
  ms: number;
  /** Starting the pool's threads, before the timing. */
  startUpMs: number;
  /** CPU time over wall time. */
  cores: number;
  /** Each job's metrics (the whole results are let go as they come, as the service stores and lets them go). */
  metrics: BacktestResult['metrics'][];
}

/**
 * Wall time of every job on a pool of `workers` threads, all posted at once. The threads are
 * started first, each running one backtest of the sweep: the service's pool keeps its threads
 * between jobs, so a sweep pays their start-up (loading the runner, under tsx compiling it, and
 * the JIT's first compilations of the runner, over its first backtests) once per process, not per
 * sweep; it is reported apart.
 */
async function timeSweep(jobs: BacktestJob[], workers: number): Promise<Timed> {
  const pool = new LabPool({ workers });
  try {
    // The warm-up job is a year of the first pair alone: compiled code before the timing.
    const first = jobs[0] as BacktestJob;
    const warmUp = { ...first, pairs: first.pairs.slice(0, 1) };
    const startUp = performance.now();
    await Promise.all(Array.from({ length: workers }, () => pool.run(warmUp)));
    const startUpMs = performance.now() - startUp;
    const cpu = process.cpuUsage();
    const started = performance.now();
    const metrics = await Promise.all(jobs.map((job) => pool.run(job).then((result) => result.metrics)));
    const ms = performance.now() - started;
    const used = process.cpuUsage(cpu);
    return { ms, startUpMs, cores: (used.user + used.system) / 1000 / ms, metrics };
  } finally {
    await pool.close();
  }
}

/**
 * The sweep on one worker, then on `workers` (default all cores), `runs` times alternately; the
 * best time of each. Candles are loaded unless given.
 */
export async function benchSweep(
  options: { candles?: SweepCandles; workers?: number; runs?: number; log?: (line: string) => void } = {},
): Promise<SweepFigures> {
  const log = options.log ?? (() => undefined);
  const workers = options.workers ?? os.availableParallelism();
  const loadStarted = performance.now();
  const candles = options.candles ?? (await loadSweepCandles());
  const loadMs = options.candles ? 0 : performance.now() - loadStarted;
  const jobs = sweepJobs(candles);
  const windowCandles = candles.pairs.reduce((sum, p) => sum + p.candles.time.filter((time) => time >= candles.fromSec && time < candles.toSec).length, 0);
  log(`${jobs.length} settings × ${windowCandles.toLocaleString('en-US')} candles (${candles.pairs.length} pairs, M5, one year)`);

  let bestOne: Timed | undefined;
  let bestAll: Timed | undefined;
  let isSame = true;
  for (let run = 0; run < (options.runs ?? 1); run++) {
    const one = await timeSweep(jobs, 1);
    log(`  one worker: ${seconds(one.ms)} (${one.cores.toFixed(2)} cores busy; threads started in ${seconds(one.startUpMs)} before)`);
    const all = await timeSweep(jobs, workers);
    log(`  ${workers} workers: ${seconds(all.ms)} (${all.cores.toFixed(2)} cores busy; threads started in ${seconds(all.startUpMs)} before)`);
    if (!bestOne || one.ms < bestOne.ms) bestOne = one;
    if (!bestAll || all.ms < bestAll.ms) bestAll = all;
    isSame &&= JSON.stringify(one.metrics) === JSON.stringify(all.metrics);
  }
  if (!bestOne || !bestAll) throw new RangeError('runs must be at least 1');
  return {
    settings: jobs.length,
    windowCandles,
    loadMs,
    workers,
    oneWorkerMs: bestOne.ms,
    allWorkersMs: bestAll.ms,
    oneWorkerCores: bestOne.cores,
    allWorkersCores: bestAll.cores,
    speedUp: bestOne.ms / bestAll.ms,
    efficiency: (bestOne.ms * bestOne.cores) / (bestAll.ms * bestAll.cores),
    isSame,
  };
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

/** The figures as the bench prints them. */
export function sweepReport(f: SweepFigures): string {
  const perSetting = (ms: number) => `${((f.windowCandles * f.settings) / (ms / 1000) / 1e6).toFixed(2)} M candles/s`;
  return [
    `sweep of ${f.settings} settings over ${f.windowCandles.toLocaleString('en-US')} candles each${f.loadMs > 0 ? ` (candles loaded in ${seconds(f.loadMs)}, not counted)` : ''}`,
    `  one worker:      ${seconds(f.oneWorkerMs).padStart(9)}  ${perSetting(f.oneWorkerMs)}  ${f.oneWorkerCores.toFixed(2)} cores busy`,
    `  ${`${f.workers} workers:`.padEnd(16)} ${seconds(f.allWorkersMs).padStart(9)}  ${perSetting(f.allWorkersMs)}  ${f.allWorkersCores.toFixed(2)} cores busy`,
    `  speed-up:        ${f.speedUp.toFixed(2)}× on ${f.workers} cores (target ≥ ${SPEED_UP_TARGET}× on 2 cores)${f.isSame ? '' : '  RESULTS DIFFER'}`,
    `  CPU time, one worker / all: ${(f.efficiency * 100).toFixed(0)}% (${(f.efficiency * f.workers).toFixed(2)}× on ${f.workers} idle cores)`,
  ].join('\n');
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const runs = Number(process.argv[2] ?? 1);
  const figures = await benchSweep({ runs, log: (line) => process.stderr.write(`${line}\n`) });
  process.stdout.write(`${sweepReport(figures)}\n`);
}
