import { z } from 'zod';
import { commonSettings, envInt, stackService } from '@fxdesk/core';

/** Every setting of the market-data service; `.env.example` and the README document each one. */
export const MarketDataConfigSchema = z.object({
  ...commonSettings(stackService('market-data').defaultPort),
  // Only the simulated feed exists so far: any other broker stops the service at start with one
  // line, rather than starting without quotes.
  BROKER: z
    .literal('simulated', { message: 'the market-data service runs on the simulated feed only for now (the cTrader Open API adapter is not built yet); set BROKER=simulated' })
    .default('simulated'),
  API_KEY: z.string().min(8, { message: 'must be at least 8 characters' }),
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
  /** Longest wait between two attempts to reconnect the broker feed (backoff doubles from 1 s). */
  FEED_RECONNECT_MAX_SECONDS: envInt(30, { min: 1, max: 3600 }),
});

export type MarketDataConfig = z.output<typeof MarketDataConfigSchema>;
