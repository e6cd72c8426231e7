import os from 'node:os';
import type { QuoteFeed } from '@fxdesk/broker';
import { databasePath, openStoreDatabase, type CheckResult } from '@fxdesk/core';
import { systemClock, type Clock } from '@fxdesk/primitives';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { createQuoteFeed, describeBroker } from './broker.js';
import type { CandleStoreConfig, MarketDataConfig } from './config.js';
import { RedisLease } from './redis-lease.js';
import { CandleStore } from './store/candle-store.js';
import { CANDLE_SCHEMA } from './store/schema.js';
import { Replication } from './replication.js';
import { TickLog } from './tick-log.js';

/** What the market-data service runs on. */
export interface MarketDataDeps {
  clock: Clock;
  /** The broker's quote feed. The app connects it when it becomes ready; `close` closes it. */
  feed: QuoteFeed;
  logger?: Logger;
  /** Closes the feed and stops what it runs on; called after the app has closed. */
  close: () => Promise<void>;
  /** Readiness checks the broker adds to the service's own (cTrader: `ctrader_token`). */
  checks?: Record<string, () => CheckResult>;
  /** With REDIS_URL: this replica's lease and the shared tick stream. */
  replication?: Replication;
  /** The stored candle history GET /v1/market-data/stored-candles serves; without it that route answers 503 `store_unavailable`. */
  candleStore?: CandleStore;
}

/** The candle store, migrated: PostgreSQL when DATABASE_URL names one, else `<DATA_DIR>/market-data.db`. */
export async function openCandleStore(config: CandleStoreConfig): Promise<CandleStore> {
  return new CandleStore(
    await openStoreDatabase({ databaseUrl: config.DATABASE_URL, file: databasePath(config.DATA_DIR, 'market-data'), schema: CANDLE_SCHEMA }),
  );
}

/** The keys of every replica of one deployment share this prefix. */
export const REDIS_KEY_PREFIX = 'fxdesk:market-data';

const CONNECT_TIMEOUT_MS = 2000;

/**
 * One replica on the Redis at `url`: a connection for commands (the lease, appends, resumes)
 * and one for the blocking reads. Neither queues commands while Redis is down: they fail at once
 * and the loops retry, so nothing piles up in memory during an outage. Waits for both to connect
 * (at most CONNECT_TIMEOUT_MS: a Redis that is down is reported by readiness, not fatal).
 */
export async function createReplication(options: {
  url: string;
  owner: string;
  /** REPLICA_URL: where the other replicas reach this one, published beside its lease. */
  address?: string;
  retention: number;
  leaseMs: number;
  logger: Logger;
}): Promise<{
  replication: Replication;
  close: () => Promise<void>;
}> {
  const connect = () =>
    new Redis(options.url, { connectTimeout: CONNECT_TIMEOUT_MS, maxRetriesPerRequest: 1, enableOfflineQueue: false }).on('error', () => {});
  const commands = connect();
  const reader = connect();
  await Promise.all(
    [commands, reader].map((redis) => new Promise((resolve) => setTimeout(resolve, CONNECT_TIMEOUT_MS).unref() && redis.once('ready', resolve))),
  );
  const log = new TickLog({ redis: commands, prefix: REDIS_KEY_PREFIX, retention: options.retention });
  const lease = new RedisLease({ redis: commands, key: log.leaseKey, owner: options.owner, ttlMs: options.leaseMs, address: options.address });
  const replication = new Replication({ log, lease, reader, logger: options.logger });
  return {
    replication,
    close: async () => {
      reader.disconnect();
      commands.disconnect();
    },
  };
}

/** The real dependencies the config asks for: the feed BROKER names, on the system clock. */
export async function createDeps(config: MarketDataConfig, logger: Logger): Promise<MarketDataDeps> {
  logger.info(`quotes from ${describeBroker(config)}`);
  const candleStore = await openCandleStore(config);
  const quotes = createQuoteFeed(config, systemClock);
  const { feed, checks } = quotes;
  const close = async () => {
    await quotes.close();
    await candleStore.close();
  };
  if (!config.REDIS_URL) return { clock: systemClock, feed, logger, close, checks, candleStore };
  // A process's own id: a REPLICA_ID from a .env shared by every replica would make them all "own" the lease.
  const owner = `${os.hostname()}-${process.pid}`;
  const address = config.REPLICA_URL;
  logger.info({ replica: owner, address }, 'replica on Redis: one replica (holding the lease) connects the venue; every replica streams from the Redis stream');
  if (!address) {
    logger.warn(
      'REPLICA_URL is not set: while this replica holds the venue connection, the other replicas cannot forward candle requests to it and answer them 503 broker_unavailable',
    );
  }
  const redis = await createReplication({
    url: config.REDIS_URL,
    owner,
    address,
    retention: config.TICK_STREAM_RETENTION,
    leaseMs: config.INGEST_LEASE_MS,
    logger,
  });
  return {
    clock: systemClock,
    feed,
    logger,
    checks,
    candleStore,
    replication: redis.replication,
    close: async () => {
      await close();
      await redis.close();
    },
  };
}
