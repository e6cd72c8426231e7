import { z } from 'zod';
import { requireVenueSettings, venueSettings } from '@fxdesk/broker';
import { commonSettings, databaseSettings, envInt, envList } from '@fxdesk/core';

/** The development value of API_KEY, taken outside production when it is unset (with a warning). */
export const MARKET_DATA_DEV_SECRETS = { API_KEY: 'dev-market-data-key' };

/**
 * Where the candle store is: DATA_DIR/market-data.db, or PostgreSQL with DATABASE_URL. The
 * service and `npm run data` read the same two settings.
 */
export const CandleStoreConfigSchema = z.object({
  DATA_DIR: commonSettings(8010).DATA_DIR,
  /** postgres://… keeps the candle store in PostgreSQL, shared by the replicas; unset: SQLite in DATA_DIR. */
  DATABASE_URL: databaseSettings().DATABASE_URL,
});
export type CandleStoreConfig = z.output<typeof CandleStoreConfigSchema>;

/** Every setting of the market-data service; `.env.example` and the README document each one. */
export const MarketDataConfigSchema = z
  .object({
    ...commonSettings(8010),
    ...CandleStoreConfigSchema.shape,
    API_KEY: z.string().min(8, { message: 'must be at least 8 characters' }),
    /** Broker symbols to serve, exact spelling; empty: every enabled symbol of the catalog. */
    SYMBOLS: envList([]),
    /** A last quote older than this (counted only while the market is open) makes readiness fail. */
    TICK_STALENESS_SECONDS: envInt(30, { min: 1, max: 86_400 }),
    /** Open SSE streams at most; the next one answers 503 too_many_clients. */
    MAX_STREAM_CLIENTS: envInt(1000, { min: 1, max: 100_000 }),
    /** A stream whose socket has accepted nothing for this long is disconnected. */
    STREAM_STUCK_SECONDS: envInt(30, { min: 1, max: 3600 }),
    /** Events held for one slow client at most (one per symbol at most, plus one status). */
    STREAM_QUEUE_MAX_EVENTS: envInt(1024, { min: 2, max: 100_000 }),
    /** Interval of the comment heartbeat on every stream. */
    STREAM_HEARTBEAT_SECONDS: envInt(15, { min: 1, max: 3600 }),
    /** The `retry:` hint: how long an EventSource waits before reconnecting. */
    STREAM_RETRY_MS: envInt(3000, { min: 0, max: 600_000 }),
    /** Largest `count` of GET /v1/market-data/candles. */
    MAX_CANDLES: envInt(1000, { min: 1, max: 100_000 }),
    /** Largest candle file POST /v1/market-data/stored-candles/imports takes (512 MiB); a larger one is 413. */
    MAX_IMPORT_BYTES: envInt(536_870_912, { min: 1024, max: 4_294_967_296 }),
    /** Longest wait between two attempts to reconnect the broker feed (backoff doubles from 1 s). */
    FEED_RECONNECT_MAX_SECONDS: envInt(30, { min: 1, max: 3600 }),
    /** OANDA_*, METAAPI_*, CTRADER_*: each venue's settings, the same in every service; the BROKER names' required ones. */
    ...venueSettings,
    /** With REDIS_URL (replicas): ticks the Redis stream keeps at least, the reach of a resume with Last-Event-ID. */
    TICK_STREAM_RETENTION: envInt(100_000, { min: 1000, max: 100_000_000 }),
    /** With REDIS_URL: the ingesting replica's lease; another replica takes the venue this long after it stops renewing. */
    INGEST_LEASE_MS: envInt(4000, { min: 1000, max: 60_000 }),
    /**
     * With REDIS_URL: where the other replicas reach this one (its own, per replica). While this
     * replica holds the venue, the others forward candle requests there; unset, they answer them 503.
     */
    REPLICA_URL: z
      .url({ protocol: /^https?$/, message: 'expected the http:// or https:// URL other replicas reach this one at' })
      .transform((url) => url.replace(/\/+$/, ''))
      .optional(),
  })
  .superRefine((config, ctx) => {
    requireVenueSettings(config.BROKER, config, ctx);
  });

export type MarketDataConfig = z.output<typeof MarketDataConfigSchema>;
