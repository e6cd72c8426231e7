import type { ServerResponse } from 'node:http';
import type { CheckResult } from '@fxdesk/core';
import type { FeedSymbol, Quote, QuoteFeed } from '@fxdesk/broker';
import type { Clock } from '@fxdesk/primitives';
import { TIMEFRAME_SECONDS, type CatalogEntry, type IntervalCandle, type Tick, type Timeframe } from '@fxdesk/schemas';
import type { Logger } from 'pino';
import { toIntervalCandles } from './candles.js';
import type { MarketDataConfig } from './config.js';
import { brokerFailure, errors } from './errors.js';
import { FeedSession } from './feed-session.js';
import { ConnectionMonitor } from './status.js';
import type { StreamClient } from './stream-client.js';
import { StreamHub } from './stream-hub.js';
import { toTick } from './ticks.js';

/** A page of candles by range: the candles, and the `from` of the next page (null: none now). */
export interface CandlePage {
  candles: IntervalCandle[];
  nextFrom: string | null;
}

export interface MarketDataOptions {
  config: MarketDataConfig;
  feed: QuoteFeed;
  clock: Clock;
  logger: Logger;
}

/**
 * The market-data service's logic, free of HTTP: the feed session, the latest tick of each
 * symbol, the connection state, the SSE hub, candles and the catalog. Routes call it.
 */
export class MarketData {
  readonly hub: StreamHub;
  /** The largest `count` a candles request may ask for (MAX_CANDLES). */
  readonly maxCandles: number;
  private readonly feed: QuoteFeed;
  private readonly clock: Clock;
  private readonly config: MarketDataConfig;
  private readonly session: FeedSession;
  private readonly monitor: ConnectionMonitor;
  private readonly latest = new Map<string, Tick>();

  constructor(options: MarketDataOptions) {
    const { config, feed, clock, logger } = options;
    this.feed = feed;
    this.clock = clock;
    this.config = config;
    this.maxCandles = config.MAX_CANDLES;
    this.monitor = new ConnectionMonitor({
      clock,
      stalenessMs: config.TICK_STALENESS_SECONDS * 1000,
      servedSymbols: () => this.session.subscribedSymbols(),
      isMarketOpen: (symbol, epochMs) => feed.isMarketOpen(symbol, epochMs),
      onChange: () => this.hub.publishStatus(),
    });
    this.hub = new StreamHub({
      clock,
      logger,
      heartbeatMs: config.STREAM_HEARTBEAT_SECONDS * 1000,
      retryMs: config.STREAM_RETRY_MS,
      stuckMs: config.STREAM_STUCK_SECONDS * 1000,
      queueMax: config.STREAM_QUEUE_MAX_EVENTS,
      currentStatus: () => this.monitor.status(),
    });
    this.session = new FeedSession({
      feed,
      clock,
      logger,
      reconnectMaxMs: config.FEED_RECONNECT_MAX_SECONDS * 1000,
      symbols: config.SYMBOLS,
      onQuote: (quote) => this.ingest(quote),
      onState: (change) => {
        logger.info({ state: change.state, reason: change.reason }, 'broker feed state changed');
        this.monitor.noteFeedState(change);
      },
    });
  }

  /** Connects the feed (first attempt awaited; retries continue in the background). */
  async start(): Promise<void> {
    this.monitor.start();
    await this.session.start();
  }

  /**
   * Ends every stream and stops the monitor and the feed session; the feed itself is closed by
   * its owner. Runs before the HTTP server closes, so open streams never hold it up.
   */
  stop(): void {
    this.monitor.stop();
    this.hub.closeAll();
    this.session.stop();
  }

  /** The enabled-or-not catalog, in the feed's order. */
  symbols(): CatalogEntry[] {
    return [...this.catalog().values()].map((s) => ({
      symbol: s.name,
      symbolId: s.symbolId,
      digits: s.digits,
      enabled: s.enabled,
      description: s.description,
    }));
  }

  /** The catalog entry of `symbol`, or 404 symbol_not_found. */
  symbol(symbol: string): FeedSymbol {
    const found = this.catalog().get(symbol);
    if (!found) throw errors.create('symbol_not_found', `unknown symbol ${JSON.stringify(symbol)}; GET /v1/symbols lists them`);
    return found;
  }

  latestTick(symbol: string): Tick {
    this.symbol(symbol);
    const tick = this.latest.get(symbol);
    if (!tick) throw errors.create('no_quote_yet', `no quote of ${symbol} has arrived yet`);
    return tick;
  }

  async candles(symbol: string, timeframe: Timeframe, count: number): Promise<IntervalCandle[]> {
    const entry = this.symbol(symbol);
    if (!this.monitor.isConnected) throw errors.create('broker_unavailable', 'the broker session is not connected');
    let bars;
    try {
      // One more than asked: the last bar may be the forming one, which is dropped.
      bars = await this.feed.trendbars(symbol, timeframe, count + 1);
    } catch (err) {
      throw brokerFailure(err);
    }
    return toIntervalCandles(bars, {
      timeframe,
      count,
      nowMs: this.clock.now(),
      provider: this.feed.name,
      sourceInstrument: entry.name,
      digits: entry.digits,
    });
  }

  /**
   * The closed candles whose interval starts in [fromMs, toMs) (toMs: now when undefined),
   * oldest first, at most `limit`, read from the feed's history by date; `nextFrom` is where the
   * next page starts (the start of the first closed candle left out), or null when none is left
   * now. 422 `invalid_range` when fromMs is not before toMs.
   */
  async candlesBetween(symbol: string, timeframe: Timeframe, fromMs: number, toMs: number | undefined, limit: number): Promise<CandlePage> {
    if (toMs !== undefined && fromMs >= toMs) throw errors.create('invalid_range', '`from` must be before `to`');
    toMs ??= this.clock.now();
    const entry = this.symbol(symbol);
    if (!this.monitor.isConnected) throw errors.create('broker_unavailable', 'the broker session is not connected');
    let bars;
    try {
      // One more than asked: whether another page follows, and where it starts.
      bars = await this.feed.trendbarsBetween(symbol, timeframe, fromMs, toMs, limit + 1);
    } catch (err) {
      throw brokerFailure(err);
    }
    const closed = toIntervalCandles(bars, {
      timeframe,
      count: bars.length,
      nowMs: this.clock.now(),
      provider: this.feed.name,
      sourceInstrument: entry.name,
      digits: entry.digits,
    });
    const next = closed[limit];
    const nextFrom = next ? new Date(Date.parse(next.ts) - TIMEFRAME_SECONDS[timeframe] * 1000).toISOString() : null;
    return { candles: closed.slice(0, limit), nextFrom };
  }

  /**
   * Opens a stream on `res` once every check passed: the symbols exist (404 otherwise) and a
   * slot is free (503). Throws before anything is written, so errors answer the envelope.
   */
  admitStream(symbols: readonly string[] | undefined): ReadonlySet<string> | null {
    const wanted = symbols === undefined ? null : new Set(symbols);
    if (wanted) {
      const unknown = [...wanted].filter((s) => !this.catalog().has(s));
      if (unknown.length > 0) {
        throw errors.create('symbol_not_found', `unknown symbol${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}; GET /v1/symbols lists them`);
      }
    }
    if (this.hub.size >= this.config.MAX_STREAM_CLIENTS) {
      throw errors.create('too_many_clients', `the service already streams to MAX_STREAM_CLIENTS=${this.config.MAX_STREAM_CLIENTS} clients`, {
        headers: { 'retry-after': String(Math.max(1, Math.ceil(this.config.STREAM_RETRY_MS / 1000))) },
      });
    }
    return wanted;
  }

  openStream(res: ServerResponse, symbols: ReadonlySet<string> | null): StreamClient {
    return this.hub.open(res, symbols);
  }

  readinessChecks(): Record<string, () => CheckResult> {
    return { broker: () => this.monitor.brokerCheck(), ticks: () => this.monitor.ticksCheck() };
  }

  private catalog(): ReadonlyMap<string, FeedSymbol> {
    const catalog = this.session.symbols();
    if (!catalog) throw errors.create('broker_unavailable', 'the symbol catalog is not loaded yet: the broker session has not connected');
    return catalog;
  }

  private ingest(quote: Quote): void {
    const entry = this.session.symbols()?.get(quote.symbol);
    if (!entry) return;
    const tick = toTick(quote, entry.digits, this.feed.name);
    this.latest.set(quote.symbol, tick);
    this.monitor.noteQuote(quote.symbol);
    this.hub.publishTick(tick);
  }
}
