import { backoffDelayMs, type Clock, type TimerHandle } from '@fxdesk/primitives';
import { BrokerError } from '../errors.js';
import { FeedEvents } from '../feed-events.js';
import type { FeedSymbol, QuoteFeed } from '../feed.js';
import { stableSymbolIds } from '../symbol-ids.js';
import { isScheduledOpen, type TradingSchedule } from '../trading-schedule.js';
import type { Bar, Quote, Timeframe } from '../types.js';
import { barsOfCandles, readCandlesBetween, readLatestCandles } from './candles.js';
import { oandaBaseUrl, oandaStreamUrl, type OandaEnvironment } from './hosts.js';
import { OandaHttpClient } from './http-client.js';
import { symbolOfInstrument } from './lots.js';
import { isoTime } from './normalize.js';
import { PricingStreamClient, type OpenPricingStream, type StreamLine } from './pricing-stream.js';
import { InstrumentListSchema } from './trading-wire.js';
import type { WireInstrument } from './wire.js';

export interface OandaFeedOptions {
  token: string;
  accountId: string;
  environment?: OandaEnvironment;
  /** Overrides the REST host (instruments, candles). */
  baseUrl?: string;
  /** Overrides the stream host (the pricing stream). */
  streamBaseUrl?: string;
  clock: Clock;
  /** Every REST call, and the wait for a stream's answer (default 10 000 ms). */
  timeoutMs?: number;
  /** Silence on the stream after which it is cut and opened again (default 10 000 ms: two heartbeats of 5 s missed). */
  heartbeatTimeoutMs?: number;
  /** First wait before opening a lost stream again; doubles per failed attempt (default 1 000 ms). */
  reconnectInitialMs?: number;
  /** Longest wait between attempts (default 30 000 ms). */
  reconnectMaxMs?: number;
  /** Most REST requests in any one second (default 100). */
  requestsPerSecond?: number;
  /** New connections per second, REST and stream each, on the wall clock (default 2). */
  newConnectionsPerSecond?: number;
}

/**
 * OANDA's FX week, which the v20 Instrument definition does not carry: "from Sunday 5pm ET to
 * Friday 5pm ET" (OANDA's trading hours), as weekly seconds from Sunday 00:00 in New York.
 */
export const OANDA_FX_SCHEDULE: TradingSchedule = {
  intervals: [{ startSecond: 17 * 3600, endSecond: 5 * 86_400 + 17 * 3600 }],
  timeZone: 'America/New_York',
  holidays: [],
};

/**
 * A QuoteFeed over OANDA v20: prices from the pricing stream (one stream of the subscribed
 * instruments, opened again when they change; its first lines are each instrument's current
 * price), history from the candles endpoint (bid bars, in pages within the 5 000-candle maximum).
 * A stream that ends, breaks or stays silent past `heartbeatTimeoutMs` (OANDA writes a HEARTBEAT
 * every 5 s) is reported `disconnected` with the reason and opened again with a capped, doubling
 * backoff on the injected clock, each attempt reported `connecting`.
 */
export class OandaFeed extends FeedEvents implements QuoteFeed {
  readonly name = 'oanda';
  /** Lines read from pricing streams (all, and on the stream open now), and streams opened again after a loss. */
  readonly stats = { lines: 0, linesOnStream: 0, heartbeats: 0, reconnects: 0 };
  protected readonly clock: Clock;
  private readonly http: OandaHttpClient;
  private readonly streams: PricingStreamClient;
  private readonly accountPath: string;
  private readonly heartbeatTimeoutMs: number;
  private readonly backoff: { baseMs: number; capMs: number };
  private readonly timeoutMs: number;
  private catalog: Map<string, { symbol: FeedSymbol; instrument: WireInstrument }> | undefined;
  private readonly subscribed = new Set<string>();
  private readonly lastQuote = new Map<string, Quote>();
  private stream: OpenPricingStream | undefined;
  /** Instruments waiting for their first price on the stream being opened, with who waits. */
  private readonly awaitingFirst = new Map<string, () => void>();
  private watchdog: TimerHandle | undefined;
  private reconnectTimer: TimerHandle | undefined;
  private failures = 0;
  private isClosed = false;
  private closing: Promise<void> | undefined;
  /** Bumped on every stream opened or dropped: a stream's late events are ignored once it is not current. */
  private generation = 0;

  constructor(options: OandaFeedOptions) {
    super();
    this.clock = options.clock;
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.heartbeatTimeoutMs = options.heartbeatTimeoutMs ?? 10_000;
    this.backoff = { baseMs: options.reconnectInitialMs ?? 1_000, capMs: options.reconnectMaxMs ?? 30_000 };
    this.accountPath = `/v3/accounts/${encodeURIComponent(options.accountId)}`;
    const environment = options.environment ?? 'practice';
    this.http = new OandaHttpClient({
      baseUrl: oandaBaseUrl(environment, options.baseUrl),
      token: options.token,
      timeoutMs: this.timeoutMs,
      requestsPerSecond: options.requestsPerSecond,
      newConnectionsPerSecond: options.newConnectionsPerSecond,
      clock: this.clock,
    });
    this.streams = new PricingStreamClient({
      baseUrl: oandaStreamUrl(environment, options.streamBaseUrl),
      token: options.token,
      accountPath: this.accountPath,
      connectTimeoutMs: this.timeoutMs,
      newConnectionsPerSecond: options.newConnectionsPerSecond,
    });
  }

  /** HTTP requests sent and not yet answered (the stream not counted). */
  get requestsInFlight(): number {
    return this.http.requestsInFlight;
  }

  /** Loads the catalog (GET /instruments), opens the stream of what is subscribed; rejects, `disconnected`, when that fails. */
  async connect(): Promise<void> {
    if (this.closing) throw new BrokerError('disconnected', 'the OANDA feed was closed');
    if (this.current === 'connected') return;
    this.cancelReconnect();
    this.transition('connecting', 'connect requested');
    try {
      if (!this.catalog) await this.loadCatalog();
      await this.openStream();
      this.failures = 0;
      this.transition('connected');
    } catch (err) {
      this.transition('disconnected', err instanceof Error ? err.message : String(err));
      throw err;
    }
  }

  /** Ends the stream and the connections; final (a second call only waits for the first). */
  close(): Promise<void> {
    this.isClosed = true;
    this.cancelReconnect();
    this.endStream();
    this.transition('disconnected', 'closed by client');
    this.closing ??= Promise.all([this.http.close(), this.streams.close()]).then(() => undefined);
    return this.closing;
  }

  async symbols(): Promise<FeedSymbol[]> {
    if (!this.catalog) throw new BrokerError('disconnected', 'the OANDA catalog is not loaded: connect first');
    return [...this.catalog.values()].map((entry) => ({ ...entry.symbol }));
  }

  /** Adds the symbols to the stream (opening it again) and resolves once each new one's current price arrived. */
  async subscribe(symbols: string[]): Promise<void> {
    if (!this.catalog) throw new BrokerError('disconnected', 'the OANDA catalog is not loaded: connect first');
    const unknown = symbols.filter((s) => !this.catalog!.has(s));
    if (unknown.length > 0) throw new BrokerError('not_found', `unknown symbol(s): ${unknown.join(', ')}`);
    const fresh = [...new Set(symbols)].filter((s) => !this.subscribed.has(s));
    if (fresh.length === 0) return;
    for (const symbol of fresh) this.subscribed.add(symbol);
    if (this.current !== 'connected') return;
    try {
      await this.openStream(fresh);
    } catch (err) {
      for (const symbol of fresh) this.subscribed.delete(symbol);
      this.drop(err instanceof Error ? err.message : String(err));
      throw err;
    }
  }

  /** Stops delivering the symbols at once, and opens the stream again without them. */
  async unsubscribe(symbols: string[]): Promise<void> {
    const dropped = [...new Set(symbols)].filter((s) => this.subscribed.delete(s));
    if (dropped.length === 0 || this.current !== 'connected') return;
    for (const symbol of dropped) this.lastQuote.delete(symbol);
    try {
      await this.openStream();
    } catch (err) {
      this.drop(err instanceof Error ? err.message : String(err));
    }
  }

  trendbars(symbol: string, timeframe: Timeframe, count: number): Promise<Bar[]> {
    const entry = this.entryOf(symbol);
    return readLatestCandles(this.http, entry.instrument.name, timeframe, count).then((c) => barsOfCandles(c, entry.instrument.displayPrecision));
  }

  trendbarsBetween(symbol: string, timeframe: Timeframe, fromMs: number, toMs: number, limit: number): Promise<Bar[]> {
    const entry = this.entryOf(symbol);
    return readCandlesBetween(this.http, entry.instrument.name, timeframe, { fromMs, toMs, limit, nowMs: this.clock.now() }).then((c) =>
      barsOfCandles(c, entry.instrument.displayPrecision),
    );
  }

  isMarketOpen(symbol: string, epochMs: number): boolean {
    return isScheduledOpen(this.catalog?.get(symbol)?.symbol.schedule ?? OANDA_FX_SCHEDULE, epochMs);
  }

  // --- the stream ----------------------------------------------------------------------------

  private entryOf(symbol: string) {
    const entry = this.catalog?.get(symbol);
    if (!entry)
      throw new BrokerError(this.catalog ? 'not_found' : 'disconnected', this.catalog ? `unknown symbol ${symbol}` : 'the OANDA catalog is not loaded');
    return entry;
  }

  private async loadCatalog(): Promise<void> {
    const { instruments } = await this.http.get(`${this.accountPath}/instruments`, {}, InstrumentListSchema);
    // v20 numbers no instrument: each is numbered by its name.
    const sorted = [...instruments].sort((a, b) => (a.name < b.name ? -1 : 1));
    const ids = stableSymbolIds(sorted.map((i) => i.name));
    this.catalog = new Map(
      sorted.map((instrument, i) => {
        const symbolId = ids[i] as number;
        const name = symbolOfInstrument(instrument.name);
        const symbol: FeedSymbol = {
          symbolId,
          name,
          digits: instrument.displayPrecision,
          pipPosition: -instrument.pipLocation,
          enabled: true,
          description: instrument.displayName,
          schedule: OANDA_FX_SCHEDULE,
        };
        return [name, { symbol, instrument }];
      }),
    );
  }

  /**
   * Ends the current stream and opens one of what is subscribed (none when nothing is). With
   * `awaitFirst`, resolves once those symbols' first prices arrived (within `timeoutMs`).
   */
  private async openStream(awaitFirst: string[] = []): Promise<void> {
    this.endStream();
    if (this.subscribed.size === 0) return;
    const generation = ++this.generation;
    const names = [...this.subscribed].map((s) => this.catalog!.get(s)!.instrument.name);
    const firsts = awaitFirst.map((symbol) => new Promise<void>((resolve) => this.awaitingFirst.set(symbol, resolve)));
    const stream = await this.streams.open(names, (line) => {
      if (generation === this.generation) this.onLine(line);
    });
    if (generation !== this.generation || this.isClosed) {
      stream.close();
      return;
    }
    this.stream = stream;
    this.stats.linesOnStream = 0;
    this.armWatchdog();
    void stream.done.then(({ error }) => {
      if (generation === this.generation && !this.isClosed) this.drop(error?.message ?? 'the pricing stream ended');
    });
    if (firsts.length > 0) await this.within(Promise.all(firsts), 'the first prices of the new subscriptions');
  }

  private within<T>(work: Promise<T>, what: string): Promise<T> {
    let timer: TimerHandle | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = this.clock.setTimeout(() => reject(new BrokerError('timeout', `OANDA did not send ${what} within ${this.timeoutMs} ms`)), this.timeoutMs);
    });
    return Promise.race([work, expired]).finally(() => {
      if (timer) this.clock.clearTimer(timer);
    });
  }

  private onLine(line: StreamLine): void {
    this.stats.lines++;
    this.stats.linesOnStream++;
    this.armWatchdog();
    if (line.type === 'HEARTBEAT') {
      this.stats.heartbeats++;
      return;
    }
    const symbol = symbolOfInstrument(line.instrument);
    if (!this.subscribed.has(symbol)) return;
    const bid = line.bids[0]?.price ?? line.closeoutBid;
    const ask = line.asks[0]?.price ?? line.closeoutAsk;
    if (bid === undefined || ask === undefined) return;
    const quote: Quote = { symbol, bid: Number(bid), ask: Number(ask), time: Date.parse(isoTime(line.time)) };
    const last = this.lastQuote.get(symbol);
    this.awaitingFirst.get(symbol)?.();
    this.awaitingFirst.delete(symbol);
    // A stream opened again starts with the prices it already sent: each is delivered once.
    if (last && last.time === quote.time && last.bid === quote.bid && last.ask === quote.ask) return;
    this.lastQuote.set(symbol, quote);
    this.emitQuote(quote);
  }

  private armWatchdog(): void {
    if (this.watchdog) this.clock.clearTimer(this.watchdog);
    this.watchdog = this.clock.setTimeout(() => this.drop(`no price or heartbeat for ${this.heartbeatTimeoutMs} ms`), this.heartbeatTimeoutMs).unref();
  }

  private endStream(): void {
    this.generation++;
    if (this.watchdog) this.clock.clearTimer(this.watchdog);
    this.watchdog = undefined;
    this.stream?.close();
    this.stream = undefined;
    this.awaitingFirst.clear();
  }

  /** The stream is lost: reported with its reason, opened again after the backoff. */
  private drop(reason: string): void {
    if (this.isClosed) return;
    this.endStream();
    this.transition('disconnected', reason);
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.isClosed || this.reconnectTimer) return;
    const delayMs = backoffDelayMs(this.backoff, this.failures);
    this.reconnectTimer = this.clock
      .setTimeout(() => {
        this.reconnectTimer = undefined;
        void this.reconnect();
      }, delayMs)
      .unref();
  }

  private async reconnect(): Promise<void> {
    this.transition('connecting', 'reconnecting');
    try {
      await this.openStream();
      if (this.isClosed) return;
      this.failures = 0;
      this.stats.reconnects++;
      this.transition('connected', 'reconnected');
    } catch (err) {
      this.failures++;
      this.transition('disconnected', err instanceof Error ? err.message : String(err));
      this.scheduleReconnect();
    }
  }

  private cancelReconnect(): void {
    if (this.reconnectTimer) this.clock.clearTimer(this.reconnectTimer);
    this.reconnectTimer = undefined;
  }
}
