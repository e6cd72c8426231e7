import type { ServerResponse } from 'node:http';
import type { CheckResult } from '@fxdesk/core';
import { isScheduledOpen, type FeedSymbol, type Quote, type QuoteFeed } from '@fxdesk/broker';
import type { Clock } from '@fxdesk/primitives';
import { TIMEFRAME_SECONDS, type CatalogEntry, type IntervalCandle, type Tick, type Timeframe } from '@fxdesk/schemas';
import type { Logger } from 'pino';
import { toIntervalCandles } from './candles.js';
import type { MarketDataConfig } from './config.js';
import { brokerFailure, errors } from './errors.js';
import { FeedSession } from './feed-session.js';
import { FORWARDED_BY_HEADER, LeaderRelay, type RelayedAnswer } from './leader-relay.js';
import type { ReplicaHandlers, Replication } from './replication.js';
import { ConnectionMonitor } from './status.js';
import type { StreamClient } from './stream-client.js';
import { StreamHub, type Resume } from './stream-hub.js';
import type { LogEntry, LogSnapshot, ReplicatedCatalog } from './tick-log.js';
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
  /** With REDIS_URL: one replica of several, ingesting only while it holds the lease. */
  replication?: Replication;
}

/**
 * Longest wait for the leading replica's answer to a forwarded candles request: past the venue's
 * own request timeout (cTrader: 10 s), so the leader's 504 `broker_timeout` is relayed rather
 * than cut short.
 */
const RELAY_TIMEOUT_MS = 15_000;

interface Catalog {
  symbols: ReadonlyMap<string, FeedSymbol>;
  subscribed: readonly string[];
}

/**
 * The market-data service's logic, free of HTTP: the feed session, the latest tick of each
 * symbol, the connection state, the SSE hub, candles and the catalog. Routes call it.
 *
 * Alone, the feed session's quotes, states and catalog go straight to the hub and the monitor.
 * As a replica, the session runs only while this replica holds the lease, and writes them to
 * the Redis stream; every replica, the leader included, applies them as it reads the stream.
 */
export class MarketData {
  readonly hub: StreamHub;
  /** The largest `count` a candles request may ask for (MAX_CANDLES). */
  readonly maxCandles: number;
  private readonly feed: QuoteFeed;
  private readonly clock: Clock;
  private readonly config: MarketDataConfig;
  private readonly logger: Logger;
  private readonly replication: Replication | undefined;
  /** As a replica: candle requests to the leader, while this one does not hold the venue. */
  private readonly relay: LeaderRelay | undefined;
  /** The feed session; as a replica, only while this replica leads. */
  private session: FeedSession | undefined;
  private servedCatalog: Catalog | undefined;
  private readonly monitor: ConnectionMonitor;
  private readonly latest = new Map<string, Tick>();
  /** Whether the last append to the stream failed (logged once until one succeeds). */
  private isPublishFailing = false;

  constructor(options: MarketDataOptions) {
    const { config, feed, clock, logger, replication } = options;
    this.feed = feed;
    this.clock = clock;
    this.config = config;
    this.logger = logger;
    this.replication = replication;
    this.maxCandles = config.MAX_CANDLES;
    this.monitor = new ConnectionMonitor({
      clock,
      stalenessMs: config.TICK_STALENESS_SECONDS * 1000,
      servedSymbols: () => this.servedCatalog?.subscribed,
      isMarketOpen: (symbol, epochMs) => this.isMarketOpen(symbol, epochMs),
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
      idsFromStream: replication !== undefined,
    });
    if (replication) {
      this.relay = new LeaderRelay({
        leader: () => replication.leader(),
        self: replication.owner,
        apiKey: config.API_KEY,
        clock,
        timeoutMs: RELAY_TIMEOUT_MS,
        retryAfterSeconds: this.leaseSeconds(),
        logger,
      });
    } else {
      this.session = this.newSession();
    }
  }

  /**
   * Connects the feed (first attempt awaited; retries continue in the background); as a
   * replica, starts reading the stream and contending for the lease instead.
   */
  async start(): Promise<void> {
    this.monitor.start();
    if (this.replication) this.replication.start(this.replicaHandlers());
    else await this.session?.start();
  }

  /**
   * Ends every stream and stops the monitor and the feed session; the feed itself is closed by
   * its owner. Runs before the HTTP server closes, so open streams never hold it up. A replica
   * also lets go of the venue and gives its lease up.
   */
  async stop(): Promise<void> {
    this.monitor.stop();
    this.hub.closeAll();
    this.session?.stop();
    this.session = undefined;
    await this.replication?.stop({ follow: () => this.letGoOfVenue() });
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

  /**
   * On a replica that does not hold the venue, the leader's answer to `request` (candles come
   * from the venue); undefined where the request is answered here: alone, on the leader, and
   * for a request another replica forwarded (one hop at most).
   */
  async fromLeader(request: { method: string; url: string; id: string; headers: Record<string, unknown> }): Promise<RelayedAnswer | undefined> {
    if (!this.relay || this.replication?.isLeader || request.headers[FORWARDED_BY_HEADER] !== undefined) return undefined;
    return this.relay.relay({ method: request.method === 'HEAD' ? 'HEAD' : 'GET', url: request.url, requestId: request.id });
  }

  async candles(symbol: string, timeframe: Timeframe, count: number): Promise<IntervalCandle[]> {
    const entry = this.symbol(symbol);
    this.assertVenue();
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
    this.assertVenue();
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

  /**
   * Starts the stream. As a replica, a client that sends `Last-Event-ID` first gets every tick
   * the stream holds after that id (or, when they are gone, the replay and a status saying so);
   * alone, or without the header, the replay of the last tick of each symbol.
   */
  async openStream(res: ServerResponse, symbols: ReadonlySet<string> | null, lastEventId?: string): Promise<StreamClient> {
    if (!this.replication || lastEventId === undefined) return this.hub.open(res, symbols);
    const client = this.hub.openResuming(res, symbols);
    let resume: Resume;
    try {
      const missed = await this.replication.log.after(lastEventId);
      resume = missed.isComplete
        ? { ticks: missed.entries.flatMap((e) => (e.kind === 'tick' ? [{ id: e.id, tick: e.tick }] : [])), lastId: missed.lastId }
        : { missedReason: missed.reason };
    } catch (err) {
      resume = { missedReason: `Redis did not answer (${(err as Error).message})` };
    }
    this.hub.join(client, resume);
    return client;
  }

  readinessChecks(): Record<string, () => CheckResult> {
    const checks: Record<string, () => CheckResult> = { broker: () => this.monitor.brokerCheck(), ticks: () => this.monitor.ticksCheck() };
    const replication = this.replication;
    if (replication) checks.replica = () => replication.check();
    return checks;
  }

  private newSession(): FeedSession {
    return new FeedSession({
      feed: this.feed,
      clock: this.clock,
      logger: this.logger,
      reconnectMaxMs: this.config.FEED_RECONNECT_MAX_SECONDS * 1000,
      symbols: this.config.SYMBOLS,
      onQuote: (quote) => this.ingest(quote),
      onState: (change) => {
        this.logger.info({ state: change.state, reason: change.reason }, 'broker feed state changed');
        if (this.replication) this.publish((owner, log) => log.appendState(owner, change));
        else this.monitor.noteFeedState(change);
      },
      onCatalog: (symbols, subscribed) => {
        if (this.replication) this.publish((owner, log) => log.appendCatalog(owner, { symbols: [...symbols.values()], subscribed: [...subscribed] }));
        else this.servedCatalog = { symbols, subscribed };
      },
    });
  }

  /** Candles come from the venue, which only the leading replica is connected to. */
  private assertVenue(): void {
    if (this.replication && !this.replication.isLeader) {
      throw errors.create('broker_unavailable', 'this replica does not hold the venue connection; candles are served by the replica that does', {
        headers: { 'retry-after': String(this.leaseSeconds()) },
      });
    }
    if (!this.monitor.isConnected) throw errors.create('broker_unavailable', 'the broker session is not connected');
  }

  /**
   * By the schedule the catalog carries (cTrader's), which a follower reads from the stream as
   * the leader loaded it; else by the feed's own rule, which the simulated market knows without
   * a session.
   */
  private isMarketOpen(symbol: string, epochMs: number): boolean {
    const schedule = this.servedCatalog?.symbols.get(symbol)?.schedule;
    return schedule ? isScheduledOpen(schedule, epochMs) : this.feed.isMarketOpen(symbol, epochMs);
  }

  /** About how long until another replica holds the venue, in whole seconds: the lease's life. */
  private leaseSeconds(): number {
    return Math.ceil(this.config.INGEST_LEASE_MS / 1000);
  }

  private catalog(): ReadonlyMap<string, FeedSymbol> {
    const catalog = this.servedCatalog?.symbols;
    if (!catalog) throw errors.create('broker_unavailable', 'the symbol catalog is not loaded yet: the broker session has not connected');
    return catalog;
  }

  private ingest(quote: Quote): void {
    const entry = this.session?.symbols()?.get(quote.symbol);
    if (!entry) return;
    const tick = toTick(quote, entry.digits, this.feed.name);
    if (this.replication) this.publish((owner, log) => log.appendTick(owner, tick));
    else this.applyTick(tick);
  }

  private applyTick(tick: Tick, id?: string): void {
    this.latest.set(tick.symbol, tick);
    this.monitor.noteQuote(tick.symbol);
    this.hub.publishTick(tick, id);
  }

  private applyCatalog(catalog: ReplicatedCatalog): void {
    this.servedCatalog = { symbols: new Map(catalog.symbols.map((s) => [s.name, s])), subscribed: catalog.subscribed };
  }

  /** Appends to the stream as the lease's owner; a refusal means the lease is gone, which the lease loop acts on. */
  private publish(append: (owner: string, log: Replication['log']) => Promise<string | null>): void {
    const replication = this.replication as Replication;
    append(replication.owner, replication.log).then(
      (id) => {
        if (id === null) this.logger.debug('an append to the tick stream was refused: this replica no longer holds the lease');
        this.isPublishFailing = false;
      },
      (err: unknown) => {
        if (!this.isPublishFailing) this.logger.warn({ err }, 'could not append to the tick stream (Redis); ticks are lost until it answers');
        this.isPublishFailing = true;
      },
    );
  }

  private async letGoOfVenue(): Promise<void> {
    this.session?.stop();
    this.session = undefined;
    await this.feed.close();
  }

  private replicaHandlers(): ReplicaHandlers {
    return {
      lead: async () => {
        this.session = this.newSession();
        await this.session.start();
      },
      follow: () => this.letGoOfVenue(),
      snapshot: (snapshot: LogSnapshot) => {
        if (snapshot.catalog) this.applyCatalog(snapshot.catalog);
        if (snapshot.change) this.monitor.noteFeedState(snapshot.change);
        // The last tick of each symbol: replayed on connect, and this replica's quote of it as the
        // leader's is (GET tick answers it), so readiness waits for no new one; silence counts
        // from now, as after a reconnection.
        for (const { id, tick } of snapshot.ticks) {
          this.latest.set(tick.symbol, tick);
          this.monitor.noteQuote(tick.symbol);
          this.hub.publishTick(tick, id);
        }
        this.hub.notePosition(snapshot.lastId);
      },
      entry: (entry: LogEntry) => {
        if (entry.kind === 'tick') return this.applyTick(entry.tick, entry.id);
        if (entry.kind === 'state') this.monitor.noteFeedState(entry.change);
        else this.applyCatalog(entry.catalog);
        this.hub.notePosition(entry.id);
      },
      redisState: (reason, current) => {
        const now = this.clock.now();
        if (reason !== undefined) this.monitor.noteFeedState({ state: 'disconnected', reason: `Redis unreachable: ${reason}`, at: now });
        else this.monitor.noteFeedState(current?.change ?? { state: 'disconnected', reason: 'no replica has connected the venue yet', at: now });
      },
    };
  }
}
