import { backoffDelayMs, systemClock, type Clock, type TimerHandle } from '@fxdesk/primitives';
import { TIMEFRAME_SECONDS } from '@fxdesk/schemas';
import type { z } from 'zod';
import { BrokerError } from '../errors.js';
import { FeedEvents } from '../feed-events.js';
import type { FeedSymbol, QuoteFeed } from '../feed.js';
import type { Bar, Quote, Timeframe } from '../types.js';
import { metaApiClients, type MetaApiClients, type MetaApiConnectionOptions } from './clients.js';
import { barsOf, brokerOffsetMs, quoteOf } from './normalize.js';
import { stableSymbolIds } from '../symbol-ids.js';
import { isInTradeSession } from './order-check.js';
import { candlesBackwards } from './reads.js';
import {
  AccountInformationSchema,
  SymbolPriceSchema,
  SymbolSpecificationSchema,
  SymbolsSchema,
  type WireSession,
  type WireSymbolSpecification,
} from './wire.js';

export interface MetaApiFeedOptions extends MetaApiConnectionOptions {
  /** Between the end of one round of current-price reads of the subscribed symbols and the next (default 1000 ms). */
  pollIntervalMs?: number;
  /** Between two account-information probes while nothing is subscribed, so a lost link still shows (default 15 000 ms). */
  healthIntervalMs?: number;
  /** Longest wait for a read (default 10 000 ms). */
  timeoutMs?: number;
  /** The symbols the catalog lists (default: all GET …/symbols answers); each costs a specification read per connect. */
  catalog?: string[];
  /** The waits between reconnection attempts double from 1 s up to this (default 30 000 ms). */
  reconnectMaxMs?: number;
  clock?: Clock;
}

interface CatalogEntry {
  symbol: FeedSymbol;
  sessions: Record<string, WireSession[]> | undefined;
}

const RECONNECT_BASE_MS = 1000;

/**
 * A QuoteFeed over MetaApi's REST API, by paced polling (the adapter README says why not the
 * streaming API): the catalog from `GET …/symbols` and each symbol's specification, live quotes
 * from `GET …/symbols/:symbol/current-price?keepSubscription=true` read every `pollIntervalMs`
 * for each subscribed symbol (a quote is delivered when its time or prices moved, never twice),
 * trendbars from the market data API's candles, market hours from the specification's trade
 * sessions in broker time.
 *
 * A read that fails for any reason but throttling (429, or credits that would come too late)
 * or a missing price (404) is a lost link: the feed reports `disconnected` with MetaApi's answer
 * as the reason, stops polling, and tries account-information again after 1, 2, 4 … s (up to
 * `reconnectMaxMs`), reporting `connecting` each time; answered, it is `connected` (reason
 * `reconnected`) and reads every subscribed symbol's current price at once.
 */
export class MetaApiFeed extends FeedEvents implements QuoteFeed {
  readonly name = 'metaapi';
  protected readonly clock: Clock;
  private readonly clients: MetaApiClients;
  private readonly pollIntervalMs: number;
  private readonly healthIntervalMs: number;
  private readonly timeoutMs: number;
  private readonly reconnectMaxMs: number;
  private readonly catalogOnly: ReadonlySet<string> | undefined;
  private catalog: Map<string, CatalogEntry> | undefined;
  private brokerOffset = 0;
  private readonly subscribed = new Set<string>();
  private readonly lastQuote = new Map<string, Quote>();
  private pollTimer: TimerHandle | undefined;
  private reconnectTimer: TimerHandle | undefined;
  private reconnects = 0;
  private isClosed = false;

  constructor(options: MetaApiFeedOptions) {
    super();
    this.clock = options.clock ?? systemClock;
    this.clients = metaApiClients(options, this.clock);
    this.pollIntervalMs = options.pollIntervalMs ?? 1000;
    this.healthIntervalMs = options.healthIntervalMs ?? 15_000;
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.reconnectMaxMs = options.reconnectMaxMs ?? 30_000;
    this.catalogOnly = options.catalog ? new Set(options.catalog) : undefined;
  }

  /** HTTP requests sent to MetaApi and not yet answered. */
  get requestsInFlight(): number {
    return this.clients.requestsInFlight();
  }

  /** Loads the catalog; resolves connected, or rejects (state `disconnected`, with the reason) when the first attempt fails. */
  async connect(): Promise<void> {
    if (this.isClosed) throw new BrokerError('disconnected', 'the MetaApi feed was closed');
    if (this.current !== 'disconnected') return;
    // A connect while waiting to reconnect tries at once, in place of the wait.
    this.clearTimers();
    this.transition('connecting', 'connect requested');
    try {
      await this.loadCatalog();
    } catch (err) {
      this.transition('disconnected', reasonOf(err));
      // After a session, reconnecting stays the feed's own job.
      if (this.catalog) this.scheduleReconnect();
      throw err;
    }
    if (this.isClosed) return;
    this.reconnects = 0;
    this.transition('connected', 'catalog loaded');
    // Subscriptions kept through a drop are read at once, as on reconnecting.
    if (this.subscribed.size > 0) await this.pollRound();
    this.schedulePoll();
  }

  /** Stops polling and reconnecting for good and fails every request under way. */
  async close(): Promise<void> {
    if (this.isClosed) return;
    this.isClosed = true;
    this.clearTimers();
    this.subscribed.clear();
    this.lastQuote.clear();
    this.transition('disconnected', 'closed by client');
    await this.clients.close();
  }

  async symbols(): Promise<FeedSymbol[]> {
    return [...this.loaded().values()].map((entry) => ({ ...entry.symbol }));
  }

  /** Starts polling the symbols; each new one's current price is read (and delivered) before this resolves. */
  async subscribe(symbols: string[]): Promise<void> {
    const catalog = this.loaded();
    const unknown = symbols.filter((s) => !catalog.has(s));
    if (unknown.length > 0) throw new BrokerError('not_found', `MetaApi lists no symbol ${unknown.join(', ')} on this account`);
    const fresh = [...new Set(symbols)].filter((s) => !this.subscribed.has(s));
    for (const symbol of fresh) this.subscribed.add(symbol);
    if (this.current !== 'connected') return;
    await Promise.all(fresh.map((s) => this.readPrice(s)));
    // The first subscription moves the loop from health probes to price reads.
    this.reschedulePoll();
  }

  async unsubscribe(symbols: string[]): Promise<void> {
    for (const symbol of symbols) {
      this.subscribed.delete(symbol);
      this.lastQuote.delete(symbol);
    }
  }

  /** The newest `count` candles, oldest first; the forming one last with `closed: false`. */
  async trendbars(symbol: string, timeframe: Timeframe, count: number): Promise<Bar[]> {
    this.known(symbol);
    if (!Number.isInteger(count) || count < 0) throw new BrokerError('rejected', `count must be a non-negative integer, got ${count}`);
    if (count === 0) return [];
    const candles = await candlesBackwards(this.clients, symbol, timeframe, { count }, this.timeoutMs);
    return barsOf(candles, timeframe, this.clock.now()).slice(-count);
  }

  /**
   * The closed candles opening in [fromMs, toMs), oldest first, at most `limit` (the oldest).
   * MetaApi pages backwards from a start time, so the whole range is read, newest page first,
   * 1000 candles a request, back to `fromMs`.
   */
  async trendbarsBetween(symbol: string, timeframe: Timeframe, fromMs: number, toMs: number, limit: number): Promise<Bar[]> {
    this.known(symbol);
    if (!Number.isInteger(limit) || limit < 0) throw new BrokerError('rejected', `limit must be a non-negative integer, got ${limit}`);
    if (!Number.isFinite(fromMs) || !Number.isFinite(toMs)) throw new BrokerError('rejected', 'fromMs and toMs must be finite epoch milliseconds');
    const nowMs = this.clock.now();
    const endMs = Math.min(toMs, nowMs);
    if (limit === 0 || endMs <= fromMs) return [];
    const periodMs = TIMEFRAME_SECONDS[timeframe] * 1000;
    // At most one candle per period of the range: the count bounds the pages, the range ends them sooner.
    const count = Math.ceil((endMs - fromMs) / periodMs) + 1;
    const candles = await candlesBackwards(this.clients, symbol, timeframe, { count, startMs: endMs - 1, oldestMs: fromMs }, this.timeoutMs);
    return barsOf(candles, timeframe, nowMs)
      .filter((bar) => bar.closed && bar.time * 1000 >= fromMs && bar.time * 1000 < toMs)
      .slice(0, limit);
  }

  /**
   * Whether `epochMs` falls in one of the symbol's trade sessions ("trade sessions, indexed by
   * day of week", broker time), at the broker's offset from UTC read when the catalog loaded;
   * false for a symbol the catalog does not list.
   */
  isMarketOpen(symbol: string, epochMs: number): boolean {
    const entry = this.catalog?.get(symbol);
    return entry !== undefined && isInTradeSession(entry.sessions, epochMs + this.brokerOffset);
  }

  // --- catalog ---------------------------------------------------------------------------------

  private loaded(): Map<string, CatalogEntry> {
    if (!this.catalog) throw new BrokerError('disconnected', 'the MetaApi symbol catalog is not loaded: connect first');
    return this.catalog;
  }

  private known(symbol: string): void {
    if (this.catalog && !this.catalog.has(symbol)) throw new BrokerError('not_found', `MetaApi lists no symbol ${symbol} on this account`);
  }

  /** The account's symbols with their specifications, and the broker's time zone from a current price. */
  private async loadCatalog(): Promise<void> {
    const listed = await this.get('/symbols', SymbolsSchema);
    const names = listed.filter((s) => !this.catalogOnly || this.catalogOnly.has(s));
    const specs = await Promise.all(names.map((s) => this.get(`/symbols/${encodeURIComponent(s)}/specification`, SymbolSpecificationSchema)));
    const ids = stableSymbolIds(names);
    this.catalog = new Map(specs.map((spec, i) => [spec.symbol, { symbol: feedSymbolOf(spec, ids[i] as number), sessions: spec.tradeSessions }]));
    const first = names[0];
    if (first !== undefined) {
      const price = await this.get(`/symbols/${encodeURIComponent(first)}/current-price`, SymbolPriceSchema).catch(() => null);
      if (price) this.brokerOffset = brokerOffsetMs(price);
    }
  }

  // --- polling ---------------------------------------------------------------------------------

  private get<S extends z.ZodType>(path: string, schema: S, query: Record<string, string> = {}): Promise<z.output<S>> {
    return this.clients.client.get(`${this.clients.accountPath}${path}`, query, schema, this.timeoutMs);
  }

  /** One current-price read; a quote that moved is delivered while the symbol is still wanted. */
  private async readPrice(symbol: string): Promise<void> {
    try {
      // keepSubscription: "the account will get a long-term subscription … on subsequent calls you will get updated value faster".
      const quote = quoteOf(await this.get(`/symbols/${encodeURIComponent(symbol)}/current-price`, SymbolPriceSchema, { keepSubscription: 'true' }));
      const last = this.lastQuote.get(symbol);
      if (!this.subscribed.has(symbol) || this.current !== 'connected') return;
      if (last && last.time === quote.time && last.bid === quote.bid && last.ask === quote.ask) return;
      this.lastQuote.set(symbol, quote);
      this.emitQuote(quote);
    } catch (err) {
      this.onReadFailure(err);
    }
  }

  /** A round: every subscribed symbol's price, or with none, an account-information probe. */
  private async pollRound(): Promise<void> {
    if (this.subscribed.size === 0) {
      await this.get('/account-information', AccountInformationSchema).catch((err: unknown) => this.onReadFailure(err));
      return;
    }
    await Promise.all([...this.subscribed].map((s) => this.readPrice(s)));
  }

  private schedulePoll(): void {
    if (this.isClosed || this.current !== 'connected' || this.pollTimer) return;
    const waitMs = this.subscribed.size > 0 ? this.pollIntervalMs : this.healthIntervalMs;
    this.pollTimer = this.clock
      .setTimeout(() => {
        this.pollTimer = undefined;
        void this.pollRound().finally(() => this.schedulePoll());
      }, waitMs)
      .unref();
  }

  private reschedulePoll(): void {
    if (this.pollTimer) this.clock.clearTimer(this.pollTimer);
    this.pollTimer = undefined;
    this.schedulePoll();
  }

  /** Throttling and a missing price say nothing of the link; any other failure is a drop. */
  private onReadFailure(err: unknown): void {
    if (err instanceof BrokerError && (err.kind === 'rate_limited' || err.kind === 'not_found')) return;
    if (this.isClosed || this.current !== 'connected') return;
    this.transition('disconnected', reasonOf(err));
    this.clearTimers();
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.isClosed || this.reconnectTimer) return;
    const waitMs = backoffDelayMs({ baseMs: RECONNECT_BASE_MS, capMs: this.reconnectMaxMs }, this.reconnects++);
    this.reconnectTimer = this.clock
      .setTimeout(() => {
        this.reconnectTimer = undefined;
        void this.reconnect();
      }, waitMs)
      .unref();
  }

  /** Account information answered means MetaApi's terminal is back: connected, and every subscription's current price read at once. */
  private async reconnect(): Promise<void> {
    if (this.current !== 'disconnected') return;
    this.transition('connecting', 'reconnecting');
    try {
      await this.get('/account-information', AccountInformationSchema);
    } catch (err) {
      if (this.isClosed) return;
      this.transition('disconnected', reasonOf(err));
      this.scheduleReconnect();
      return;
    }
    if (this.isClosed) return;
    this.reconnects = 0;
    this.transition('connected', 'reconnected');
    await this.pollRound();
    this.schedulePoll();
  }

  private clearTimers(): void {
    for (const timer of [this.pollTimer, this.reconnectTimer]) if (timer) this.clock.clearTimer(timer);
    this.pollTimer = undefined;
    this.reconnectTimer = undefined;
  }
}

function reasonOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The feed's entry of a MetatraderSymbolSpecification; the pip from `pipSize`, else one digit above a 3- or 5-digit price's last. */
function feedSymbolOf(spec: WireSymbolSpecification, symbolId: number): FeedSymbol {
  const pipPosition = spec.pipSize ? Math.round(-Math.log10(spec.pipSize)) : spec.digits % 2 === 1 ? spec.digits - 1 : spec.digits;
  return {
    symbolId,
    name: spec.symbol,
    digits: spec.digits,
    pipPosition,
    enabled: spec.tradeMode !== 'SYMBOL_TRADE_MODE_DISABLED',
    description: spec.description,
  };
}
