import os from 'node:os';
import { SimulatedMarket } from '@fxdesk/broker';
import { AccountClient, ExecutionClient, MarketDataClient, NotificationClient, type ClientOptions } from '@fxdesk/client';
import { databasePath } from '@fxdesk/core';
import { systemClock, type Clock } from '@fxdesk/primitives';
import type { Logger } from 'pino';
import type { StrategyConfig } from './config.js';
import { MarketDataLabHistory, SimulatedLabHistory } from './lab/candles.js';
import type { LabDeps } from './lab/jobs.js';
import { historyHoursOf } from './lab/plan.js';
import { LabPool } from './lab/pool.js';
import { SqlLabStore } from './lab/sql-store.js';
import type { LabStore } from './lab/store.js';
import { MarketDataSource } from './market-data-source.js';
import type { MarketSource } from './market-source.js';
import { SimulatedSource } from './simulated-source.js';
import type { Leadership } from './leadership.js';
import { PostgresLeadership } from './postgres-leadership.js';
import { PostgresStrategyStore } from './postgres-store.js';
import { SqliteStrategyStore } from './sqlite-store.js';
import type { StrategyStore } from './store.js';

export interface StrategyDeps {
  clock: Clock;
  logger?: Logger;
  store: StrategyStore;
  /** Candles and quotes: the market-data service, or the in-process simulated market. */
  source: MarketSource;
  /** Set with EXECUTION_URL: orders of signals started with dry_run false. */
  execution?: ExecutionClient;
  /** Set with NOTIFICATION_URL: each signal is announced. */
  notification?: NotificationClient;
  /** Set with ACCOUNT_URL: status.account. */
  account?: AccountClient;
  /** The strategy lab: its results (lab.db, or PostgreSQL with DATABASE_URL), the history it backtests on (the same market as `source`), its worker threads. */
  lab: LabDeps;
  /** Set with DATABASE_URL: the election among the replicas on the database. Unset: this process is the only one, and leads. */
  leadership?: Leadership;
  /** Closes what was opened for the app (after the app has closed). */
  close: () => Promise<void>;
}

/**
 * How long the lab waits for a page of history from the market-data service: a background job's
 * read, which a busy machine may slow for seconds, where a live call keeps DOWNSTREAM_TIMEOUT_MS.
 */
export const LAB_HISTORY_TIMEOUT_MS = 60_000;

/** The real dependencies the config asks for: a downstream client for each URL set, else the in-process market for prices. */
export async function createDeps(config: StrategyConfig, logger: Logger): Promise<StrategyDeps> {
  const clock = systemClock;
  const client = <T>(url: string | undefined, apiKey: string | undefined, make: (options: ClientOptions) => T) =>
    url === undefined ? undefined : make({ baseUrl: url, apiKey, timeoutMs: config.DOWNSTREAM_TIMEOUT_MS });
  const store: StrategyStore = config.DATABASE_URL
    ? await PostgresStrategyStore.open(config.DATABASE_URL)
    : new SqliteStrategyStore(databasePath(config.DATA_DIR, 'strategy'));
  const marketData = client(config.MARKET_DATA_URL, config.MARKET_DATA_API_KEY, (o) => new MarketDataClient(o));
  // The lab's own client: a job's page of history may take longer than a live call on a busy machine.
  const labMarketData = client(
    config.MARKET_DATA_URL,
    config.MARKET_DATA_API_KEY,
    (o) => new MarketDataClient({ ...o, timeoutMs: Math.max(config.DOWNSTREAM_TIMEOUT_MS, LAB_HISTORY_TIMEOUT_MS) }),
  );
  const market = marketData
    ? undefined
    : new SimulatedMarket({ seed: config.SIM_SEED, tickIntervalMs: config.SIM_TICK_INTERVAL_MS, marketHours: config.SIM_MARKET_HOURS, clock });
  const source: MarketSource = marketData ? new MarketDataSource(marketData, clock) : new SimulatedSource(market as SimulatedMarket);
  // A process's own id: a replica id from a .env shared by every replica would name them all alike.
  const replicaId = `${os.hostname()}-${process.pid}`;
  const pool = new LabPool({ workers: config.LAB_WORKERS });
  // Without DATABASE_URL one process holds lab.db (its DATA_DIR lock): every job in it is this process's to resume or fail.
  const labStore: LabStore = await SqlLabStore.open({
    databaseUrl: config.DATABASE_URL,
    file: databasePath(config.DATA_DIR, 'lab'),
    replicaId: config.DATABASE_URL === undefined ? undefined : replicaId,
  });
  const lab: LabDeps = {
    store: labStore,
    history: labMarketData ? new MarketDataLabHistory(labMarketData) : new SimulatedLabHistory(market as SimulatedMarket),
    hours: historyHoursOf(config),
    runner: pool,
  };
  const leadership = config.DATABASE_URL
    ? new PostgresLeadership({ url: config.DATABASE_URL, replicaId, clock, logger, checkMs: config.LEADER_CHECK_MS })
    : undefined;
  const execution = client(config.EXECUTION_URL, config.EXECUTION_API_KEY, (o) => new ExecutionClient(o));
  const notification = client(config.NOTIFICATION_URL, config.NOTIFICATION_API_KEY, (o) => new NotificationClient(o));
  const account = client(config.ACCOUNT_URL, config.ACCOUNT_API_KEY, (o) => new AccountClient(o));
  return {
    clock,
    logger,
    store,
    source,
    execution,
    notification,
    account,
    lab,
    leadership,
    close: async () => {
      await leadership?.stop();
      await Promise.allSettled([source.close(), execution?.close(), notification?.close(), account?.close(), labMarketData?.close(), pool.close()]);
      await Promise.all([store.close(), lab.store.close()]);
    },
  };
}
