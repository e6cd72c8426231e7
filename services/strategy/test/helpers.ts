import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SimulatedMarket } from '@fxdesk/broker';
import { loadConfig, type App } from '@fxdesk/core';
import type { Env } from '@fxdesk/core';
import { ManualClock } from '@fxdesk/primitives';
import { TIMEFRAME_SECONDS } from '@fxdesk/schemas';
import { buildApp } from '../src/app.js';
import { StrategyConfigSchema, type StrategyConfig } from '../src/config.js';
import { buildDeps, type StrategyDeps, type StrategyParts } from '../src/deps.js';
import type { StrategyEngine } from '../src/engine.js';
import type { EventHub } from '../src/event-hub.js';
import { SimulatedLabHistory } from '../src/lab/candles.js';
import type { LabJobs, LabRunner } from '../src/lab/jobs.js';
import { LabPool } from '../src/lab/pool.js';
import { historyHoursOf } from '../src/lab/plan.js';
import { SqlLabStore } from '../src/lab/sql-store.js';
import type { LabStore } from '../src/lab/store.js';
import type { MarketSource } from '../src/market-source.js';
import { SimulatedSource } from '../src/simulated-source.js';
import { openStrategyStores, type SignalStore, type StrategyStores } from '../src/store/index.js';

/** A Monday, markets open: 2026-01-05 12:00 UTC. */
export const MONDAY_NOON = Date.UTC(2026, 0, 5, 12, 0, 0);

export function testConfig(env: Env = {}): StrategyConfig {
  return loadConfig(StrategyConfigSchema, {
    LOG_LEVEL: 'silent',
    SIM_SEED: 'strategy-tests',
    SIM_TICK_INTERVAL_MS: '10000',
    TIMEFRAME: 'M5',
    WARMUP_CANDLES: '150',
    CANDLE_CLOSE_DELAY_MS: '0',
    ...env,
  });
}

export interface Harness {
  app: App;
  engine: StrategyEngine;
  events: EventHub;
  lab: LabJobs;
  clock: ManualClock;
  config: StrategyConfig;
  stores: StrategyStores;
  /** The signals (`stores.signals`), which most tests read. */
  store: SignalStore;
  market: SimulatedMarket;
  deps: StrategyDeps;
  /** Moves the clock and lets every candle poll and downstream call it started finish. */
  advance(ms: number): Promise<void>;
  settle(): Promise<void>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  env?: Env;
  clock?: ManualClock;
  /** A database file (to test restarts); in memory by default. */
  dbFile?: string;
  /** The strategy's stores (on PostgreSQL), closed with the harness; SQLite on `dbFile` by default. */
  stores?: StrategyStores;
  /** The lab's database file (to test restarts); in memory by default. */
  labDbFile?: string;
  /** The lab's store (a PostgreSQL one), closed with the harness; SQLite on `labDbFile` by default. */
  labStore?: LabStore;
  /** Runs the lab's backtests: a pool of one worker thread by default. */
  labRunner?: LabRunner;
  deps?: Partial<StrategyParts>;
}

/** The strategy app on a manual clock and the in-process simulated market (no downstream services unless given). */
export async function harness(options: HarnessOptions = {}): Promise<Harness> {
  const clock = options.clock ?? new ManualClock(MONDAY_NOON);
  const config = testConfig(options.env);
  const market = new SimulatedMarket({ seed: config.SIM_SEED, tickIntervalMs: config.SIM_TICK_INTERVAL_MS, marketHours: config.SIM_MARKET_HOURS, clock });
  const stores = options.stores ?? (await openStrategyStores({ file: options.dbFile }));
  const runner = options.labRunner ?? new LabPool({ workers: 1 });
  const lab = {
    store: options.labStore ?? (await SqlLabStore.open({ file: options.labDbFile })),
    history: new SimulatedLabHistory(market),
    hours: historyHoursOf(config),
    runner,
  };
  const parts = { clock, stores, source: new SimulatedSource(market), lab, ...options.deps };
  // The downstream clients a test passes are the test's to close.
  const deps: StrategyDeps = buildDeps(config, parts, async () => {
    await Promise.all([parts.source.close(), runner instanceof LabPool ? runner.close() : undefined]);
    await Promise.all([stores.close(), lab.store.close()]);
  });
  const { app, engine, events, lab: labJobs } = await buildApp({ config, deps });
  await app.ready();
  const settle = async () => {
    for (let i = 0; i < 3; i++) {
      await new Promise((resolve) => setImmediate(resolve));
      await engine.whenIdle();
      await events.whenIdle();
      await labJobs.whenChecked();
    }
  };
  return {
    app,
    engine,
    events,
    lab: labJobs,
    clock,
    config,
    stores: parts.stores,
    store: parts.stores.signals,
    market,
    deps,
    settle,
    async advance(ms: number) {
      clock.advance(ms);
      await settle();
    },
    async close() {
      await app.close();
      await deps.close();
    },
  };
}

/** A fresh folder for database files, removed by the returned function. */
export function tempDir(): { dir: string; remove: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fxdesk-strategy-'));
  return { dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** Advances candle by candle until the store holds a signal (the simulated market is deterministic). */
export async function advanceUntilSignal(h: Harness, maxCandles = 200): Promise<void> {
  const stepMs = TIMEFRAME_SECONDS[h.config.TIMEFRAME] * 1000;
  for (let i = 0; i < maxCandles; i++) {
    if ((await h.store.page({ limit: 1 })).signals.length > 0) return;
    await h.advance(stepMs);
  }
  throw new Error(`no signal in ${maxCandles} candles`);
}

/** `real` with some of its methods replaced, e.g. a source whose reads fail for a while. */
export function sourceWith(real: MarketSource, overrides: Partial<MarketSource>): MarketSource {
  return Object.assign(Object.create(Object.getPrototypeOf(real)), real, overrides) as MarketSource;
}
