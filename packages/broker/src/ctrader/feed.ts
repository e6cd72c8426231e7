import { backoffDelayMs, type Clock, type TimerHandle } from '@fxdesk/primitives';
import { BrokerError } from '../errors.js';
import { FeedEvents } from '../feed-events.js';
import type { FeedSymbol, QuoteFeed } from '../feed.js';
import { isScheduledOpen, type TradingSchedule } from '../trading-schedule.js';
import { Listeners } from '../listeners.js';
import type { Bar, Quote, Timeframe, Unsubscribe } from '../types.js';
import { OpenApiConnection } from './connection.js';
import { parsePayload } from './parse.js';
import { lookbackMs, MAX_TIMESTAMP_MS, trendbarPeriod, type TrendbarPeriod } from './periods.js';
import { decodePrice, decodeTrendbar } from './prices.js';
import { RatePacer } from './rate-pacer.js';
import { scheduleOf } from './schedule.js';
import type { CTraderTokenStore } from './token-store.js';
import { CTraderTokens, isTokenRejection, type TokenStatus } from './tokens.js';
import {
  AccountDisconnectEventSchema,
  ClientDisconnectEventSchema,
  GetTrendbarsResSchema,
  PayloadType,
  RefreshTokenResSchema,
  SpotEventSchema,
  SymbolByIdResSchema,
  SymbolsListResSchema,
  TokenInvalidatedEventSchema,
  VersionResSchema,
  type Envelope,
  type FullSymbol,
} from './wire.js';

export interface CTraderFeedOptions {
  /** The application's Client ID and Client Secret (ProtoOAApplicationAuthReq). */
  clientId: string;
  clientSecret: string;
  /** An access token granted to the application for the account (ProtoOAAccountAuthReq). */
  accessToken: string;
  /** The refresh token granted with it: renews the access token (ProtoOARefreshTokenReq) when it is refused or expires. */
  refreshToken?: string;
  /** Keeps each refreshed pair, so that a restart starts from it (see CTraderTokens). */
  tokenStore?: CTraderTokenStore;
  /** ctidTraderAccountId: the account's id in the Open API (not its login number). */
  accountId: number;
  /** `wss://demo.ctraderapi.com:5036` and the like: see `ctraderUrl()`. */
  url: string;
  clock: Clock;
  /** WebSocket handshake and every request. Default 10 s. */
  requestTimeoutMs?: number;
  /** Default 10 s, as the Open API asks. */
  heartbeatIntervalMs?: number;
  /** Server silence after which the link is cut and reconnected. Default 30 s. */
  deadAfterMs?: number;
  /** First wait before reconnecting a lost session; doubles per failed attempt. Default 1 s. */
  reconnectInitialMs?: number;
  /** Longest wait between reconnection attempts. Default 30 s. */
  reconnectMaxMs?: number;
  /** Open API rate limits per connection: 50 requests/s, 5 historical requests/s. */
  requestsPerSecond?: number;
  historicalRequestsPerSecond?: number;
  /** Longest wait the venue may impose before the next session (a maintenance's end, a blocked payload type). Default 30 min. */
  venueWaitMaxMs?: number;
}

type FeedSettings = Required<Omit<CTraderFeedOptions, 'refreshToken' | 'tokenStore'>>;

interface CatalogEntry {
  symbol: FeedSymbol;
  schedule: TradingSchedule;
}

/** Symbol ids per ProtoOASymbolByIdReq / ProtoOASubscribeSpotsReq, to keep frames small. */
const IDS_PER_REQUEST = 100;
/** Sends of one historical request the venue refused as too frequent (REQUEST_FREQUENCY_EXCEEDED), the first included. */
const HISTORICAL_ATTEMPTS = 3;

function isFrequencyRefusal(err: unknown): boolean {
  return err instanceof BrokerError && err.venueCode === 'REQUEST_FREQUENCY_EXCEEDED';
}

/**
 * The market-data QuoteFeed over the cTrader Open API, JSON over WebSocket.
 *
 * A session is: open the socket, authorize the application (ProtoOAApplicationAuthReq), then
 * the account (ProtoOAAccountAuthReq), load the catalog (ProtoOASymbolsListReq for names, then
 * ProtoOASymbolByIdReq for digits, pip position and trading schedule), subscribe to the spots
 * wanted (ProtoOASubscribeSpotsReq). Heartbeats go out every 10 s; a silent link, a closed
 * socket, an account or client disconnect event or an invalidated token ends the session, and
 * the feed reconnects by itself with a capped exponential backoff on the injected clock,
 * authorizes again and resubscribes, reporting every transition through `onState`. Requests
 * are paced within the documented limits and time out.
 */
export class CTraderFeed extends FeedEvents implements QuoteFeed {
  readonly name = 'ctrader';
  private readonly options: FeedSettings;
  private readonly tokens: CTraderTokens;
  protected readonly clock: Clock;
  private readonly requests: RatePacer;
  private readonly historical: RatePacer;
  /** The established session, when connected. */
  private connection: OpenApiConnection | undefined;
  /** The connection an attempt is authorizing. */
  private pendingConnection: OpenApiConnection | undefined;
  private attempt: Promise<void> | undefined;
  private reconnectTimer: TimerHandle | undefined;
  private failures = 0;
  /** The venue asked for no session before then (maintenance, a blocked payload type), with its error. */
  private venueWait: { untilMs: number; error: BrokerError } | undefined;
  /** A session was established since `connect()`: losing it makes the feed reconnect. */
  private hasSession = false;
  private isClosed = false;
  private catalog: ReadonlyMap<string, CatalogEntry> | undefined;
  private catalogById: ReadonlyMap<number, CatalogEntry> = new Map();
  private readonly subscribed = new Set<string>();
  /** Last bid/ask integers by symbol id: a spot event may carry only the side that moved. */
  private readonly lastSpot = new Map<number, { bid?: number; ask?: number }>();
  private readonly accountEvents = new Listeners<Envelope>();

  constructor(options: CTraderFeedOptions) {
    super();
    if (!Number.isSafeInteger(options.accountId) || options.accountId <= 0) {
      throw new RangeError(`accountId must be a positive integer (ctidTraderAccountId), got ${options.accountId}`);
    }
    const { refreshToken, tokenStore, ...settings } = options;
    this.tokens = new CTraderTokens({ accessToken: options.accessToken, refreshToken }, tokenStore);
    this.options = {
      ...settings,
      requestTimeoutMs: options.requestTimeoutMs ?? 10_000,
      heartbeatIntervalMs: options.heartbeatIntervalMs ?? 10_000,
      deadAfterMs: options.deadAfterMs ?? 30_000,
      reconnectInitialMs: options.reconnectInitialMs ?? 1_000,
      reconnectMaxMs: options.reconnectMaxMs ?? 30_000,
      requestsPerSecond: options.requestsPerSecond ?? 50,
      historicalRequestsPerSecond: options.historicalRequestsPerSecond ?? 5,
      venueWaitMaxMs: options.venueWaitMaxMs ?? 30 * 60_000,
    };
    this.clock = options.clock;
    this.requests = new RatePacer(this.clock, this.options.requestsPerSecond);
    this.historical = new RatePacer(this.clock, this.options.historicalRequestsPerSecond);
  }

  /**
   * Opens a session. Resolves once connected; rejects (state `disconnected`, with the reason)
   * when the first attempt fails: retrying a first connection is the caller's choice. A call
   * while the feed waits to reconnect tries at once, unless the venue asked for a wait
   * (maintenance) or the access token was refused for good: then it rejects with that reason,
   * without a connection and without a change of state.
   */
  async connect(): Promise<void> {
    this.isClosed = false;
    if (this.current === 'connected') return;
    if (this.attempt) return this.attempt;
    const held = this.heldBack();
    if (held) throw held;
    this.cancelReconnect();
    return this.startAttempt(this.hasSession ? 'reconnecting' : 'connect requested');
  }

  /** The `ctrader_token` readiness check: the access token works or can be renewed. */
  tokenStatus(): TokenStatus {
    return this.tokens.status();
  }

  async close(): Promise<void> {
    this.isClosed = true;
    this.hasSession = false;
    this.cancelReconnect();
    const closed = new BrokerError('disconnected', 'the cTrader feed was closed');
    this.requests.cancel(closed);
    this.historical.cancel(closed);
    const connection = this.connection;
    this.connection = undefined;
    connection?.close('closed by client');
    this.pendingConnection?.close('closed by client');
    this.lastSpot.clear();
    this.transition('disconnected', 'closed by client');
  }

  /** The catalog loaded by the last session (kept while reconnecting). */
  async symbols(): Promise<FeedSymbol[]> {
    if (!this.catalog) throw new BrokerError('disconnected', 'the cTrader symbol catalog is not loaded: no session yet');
    return [...this.catalog.values()].map((entry) => ({ ...entry.symbol, schedule: entry.schedule }));
  }

  /** Subscribes to spots; an unknown symbol fails the whole call with `not_found`. */
  async subscribe(symbols: string[]): Promise<void> {
    const connection = this.session();
    const catalog = this.catalog as ReadonlyMap<string, CatalogEntry>;
    const unknown = symbols.filter((s) => !catalog.has(s));
    if (unknown.length > 0) throw new BrokerError('not_found', `unknown symbol(s): ${unknown.join(', ')}`);
    const fresh = [...new Set(symbols)].filter((s) => !this.subscribed.has(s));
    if (fresh.length === 0) return;
    // Wanted before asking: the spot event that follows the response may arrive in the same
    // read as the response, before this call resumes.
    for (const symbol of fresh) this.subscribed.add(symbol);
    try {
      await this.subscribeSpots(connection, fresh);
    } catch (err) {
      for (const symbol of fresh) this.subscribed.delete(symbol);
      throw err;
    }
  }

  /** Stops delivering the symbols at once; the venue is told when a session is up. */
  async unsubscribe(symbols: string[]): Promise<void> {
    const dropped = [...new Set(symbols)].filter((s) => this.subscribed.delete(s));
    const ids = dropped.map((s) => this.catalog?.get(s)?.symbol.symbolId).filter((id): id is number => id !== undefined);
    for (const id of ids) this.lastSpot.delete(id);
    const connection = this.connection;
    if (!connection || ids.length === 0) return;
    for (const chunk of chunks(ids, IDS_PER_REQUEST)) {
      await this.call(connection, PayloadType.UNSUBSCRIBE_SPOTS_REQ, this.forAccount({ symbolId: chunk }), PayloadType.UNSUBSCRIBE_SPOTS_RES);
    }
  }

  /**
   * The newest `count` bars, oldest first, the forming one last with `closed: false`. One
   * ProtoOAGetTrendbarsReq spans at most the period's documented window, so a long history is
   * read in several requests back from now, paced at the historical-data rate limit, until
   * `count` bars are in or the lookback is exhausted (bars exist only where ticks were).
   */
  async trendbars(symbol: string, timeframe: Timeframe, count: number): Promise<Bar[]> {
    const connection = this.session();
    const entry = this.catalog?.get(symbol);
    if (!entry) throw new BrokerError('not_found', `unknown symbol ${symbol}`);
    if (!Number.isInteger(count) || count < 0) throw new BrokerError('rejected', `count must be a non-negative integer, got ${count}`);
    if (count === 0) return [];
    const period = trendbarPeriod(timeframe);
    const nowMs = this.clock.now();
    const oldestMs = nowMs - lookbackMs(period, count);
    const bars = new Map<number, Bar>();
    let toMs = nowMs;
    while (bars.size < count && toMs > oldestMs) {
      const fromMs = Math.max(oldestMs, toMs - period.maxSpanMs);
      const response = parsePayload(
        GetTrendbarsResSchema,
        await this.call(
          connection,
          PayloadType.GET_TRENDBARS_REQ,
          this.forAccount({ fromTimestamp: fromMs, toTimestamp: toMs, period: period.code, symbolId: entry.symbol.symbolId, count: count - bars.size }),
          PayloadType.GET_TRENDBARS_RES,
          this.historical,
        ),
        PayloadType.GET_TRENDBARS_RES,
      );
      for (const wire of response.trendbar) {
        const bar = decodeTrendbar(wire, entry.symbol.digits, period.seconds, nowMs);
        bars.set(bar.time, bar);
      }
      // A page cut short (hasMore) continues from its oldest bar, else from where it started.
      const oldestBarMs = Math.min(...response.trendbar.map((b) => b.utcTimestampInMinutes * 60_000));
      toMs = response.hasMore === true && oldestBarMs > fromMs && oldestBarMs < toMs ? oldestBarMs : fromMs;
    }
    const sorted = [...bars.values()].sort((a, b) => a.time - b.time);
    return sorted.slice(Math.max(0, sorted.length - count));
  }

  /**
   * Closed bars opening in [fromMs, toMs), oldest first, at most `limit`. The range is read
   * forward in spans of the period's widest request; within a span, a response cut short
   * (`hasMore`: the venue answers the newest bars "back from toTimestamp") is continued back from
   * its oldest bar. Every request goes through the historical-data pacer.
   */
  async trendbarsBetween(symbol: string, timeframe: Timeframe, fromMs: number, toMs: number, limit: number): Promise<Bar[]> {
    const connection = this.session();
    const entry = this.catalog?.get(symbol);
    if (!entry) throw new BrokerError('not_found', `unknown symbol ${symbol}`);
    if (!Number.isInteger(limit) || limit < 0) throw new BrokerError('rejected', `limit must be a non-negative integer, got ${limit}`);
    if (!Number.isFinite(fromMs) || !Number.isFinite(toMs)) throw new BrokerError('rejected', 'fromMs and toMs must be finite epoch milliseconds');
    const period = trendbarPeriod(timeframe);
    const nowMs = this.clock.now();
    // A bar that opened after now does not exist yet, and one still forming is left out below.
    const endMs = Math.min(toMs, nowMs, MAX_TIMESTAMP_MS);
    const bars: Bar[] = [];
    for (let spanFrom = Math.max(0, fromMs); spanFrom < endMs && bars.length < limit;) {
      const spanTo = Math.min(endMs, spanFrom + period.maxSpanMs);
      for (const bar of await this.readSpan(connection, entry.symbol, period, spanFrom, spanTo, nowMs)) {
        if (bars.length === limit) break;
        if (bar.closed) bars.push(bar);
      }
      spanFrom = spanTo;
    }
    return bars;
  }

  isMarketOpen(symbol: string, epochMs: number): boolean {
    const entry = this.catalog?.get(symbol);
    return entry !== undefined && isScheduledOpen(entry.schedule, epochMs);
  }

  /** The proxy's version (ProtoOAVersionReq): a cheap round trip through the session. */
  async serverVersion(): Promise<string> {
    const payload = await this.call(this.session(), PayloadType.VERSION_REQ, {}, PayloadType.VERSION_RES);
    return parsePayload(VersionResSchema, payload, PayloadType.VERSION_RES).version;
  }

  /** The account this session is authorized for (ctidTraderAccountId). */
  get accountId(): number {
    return this.options.accountId;
  }

  /**
   * An account request on this feed's session, for the roles that share it (`CTraderTerminal`,
   * `CTraderAccount`): it names the account, waits for its pacer (`historical` for the
   * historical-data requests, e.g. ProtoOADealListReq) and fails `disconnected` without a session.
   */
  async accountRequest(
    payloadType: number,
    payload: Record<string, unknown>,
    expect: number,
    options: { historical?: boolean } = {},
  ): Promise<Record<string, unknown>> {
    const connection = this.session();
    return this.call(connection, payloadType, this.forAccount(payload), expect, options.historical === true ? this.historical : this.requests);
  }

  /** A trading request on this session, answered by several messages (see `OpenApiConnection.exchange`). */
  async accountExchange(payloadType: number, payload: Record<string, unknown>, isLast: (envelope: Envelope) => boolean): Promise<Envelope[]> {
    const connection = this.session();
    return this.paced(connection, this.requests, () => connection.exchange(payloadType, this.forAccount(payload), isLast));
  }

  /** Account events the venue sends by itself (execution events of stops and swaps, trader updates). */
  onAccountEvent(listener: (event: Envelope) => void): Unsubscribe {
    return this.accountEvents.add(listener);
  }

  private startAttempt(reason: string): Promise<void> {
    const attempt = this.openSession(reason).finally(() => {
      if (this.attempt === attempt) this.attempt = undefined;
    });
    this.attempt = attempt;
    return attempt;
  }

  private async openSession(reason: string): Promise<void> {
    this.transition('connecting', reason);
    let connection: OpenApiConnection | undefined;
    try {
      connection = await OpenApiConnection.open({
        url: this.options.url,
        clock: this.clock,
        timeoutMs: this.options.requestTimeoutMs,
        heartbeatIntervalMs: this.options.heartbeatIntervalMs,
        deadAfterMs: this.options.deadAfterMs,
      });
      const opened = connection;
      this.pendingConnection = opened;
      opened.onEvent((event) => this.onEvent(opened, event));
      opened.onClose((why) => this.onConnectionLost(opened, why));
      this.throwIfClosed();
      await this.call(
        opened,
        PayloadType.APPLICATION_AUTH_REQ,
        { clientId: this.options.clientId, clientSecret: this.options.clientSecret },
        PayloadType.APPLICATION_AUTH_RES,
      );
      await this.authorizeAccount(opened);
      await this.loadCatalog(opened);
      const catalog = this.catalog as ReadonlyMap<string, CatalogEntry>;
      // Symbols the venue no longer lists cannot be subscribed again.
      for (const symbol of [...this.subscribed]) if (!catalog.has(symbol)) this.subscribed.delete(symbol);
      await this.subscribeSpots(opened, [...this.subscribed]);
      this.throwIfClosed();
      if (!opened.isOpen) throw new BrokerError('disconnected', 'the cTrader connection closed while the session was starting');
      this.pendingConnection = undefined;
      this.connection = opened;
      this.failures = 0;
      const isReconnect = this.hasSession;
      this.hasSession = true;
      this.transition('connected', isReconnect ? 'reconnected' : 'session ready');
    } catch (err) {
      if (this.pendingConnection === connection) this.pendingConnection = undefined;
      connection?.close('session attempt failed');
      if (this.isClosed) throw err;
      this.failures++;
      this.noteVenueWait(err);
      this.transition('disconnected', err instanceof Error ? err.message : String(err));
      if (this.hasSession) this.scheduleReconnect();
      throw err;
    }
  }

  /**
   * ProtoOAAccountAuthReq with the access token, renewed first when it is known to be spent,
   * and renewed once more when the venue rejects it (OA_AUTH_TOKEN_EXPIRED,
   * CH_ACCESS_TOKEN_INVALID). A token rejected again after a renewal is refused for good.
   */
  private async authorizeAccount(connection: OpenApiConnection): Promise<void> {
    const authorize = () =>
      this.call(connection, PayloadType.ACCOUNT_AUTH_REQ, this.forAccount({ accessToken: this.tokens.accessToken }), PayloadType.ACCOUNT_AUTH_RES);
    let isRenewed = false;
    if (this.tokens.shouldRefreshFirst(this.clock.now())) {
      await this.renewTokens(connection);
      isRenewed = true;
    }
    try {
      await authorize();
      return;
    } catch (err) {
      if (!isTokenRejection(err)) throw err;
      if (isRenewed || !this.tokens.canRefresh) throw this.tokens.refuse(err);
      this.tokens.markStale();
    }
    await this.renewTokens(connection);
    try {
      await authorize();
    } catch (err) {
      throw isTokenRejection(err) ? this.tokens.refuse(err) : err;
    }
  }

  /** A pair another process saved meanwhile, else ProtoOARefreshTokenReq on the application-authorized connection. */
  private async renewTokens(connection: OpenApiConnection): Promise<void> {
    if (this.tokens.adoptStored()) return;
    await this.tokens.refresh(
      async (refreshToken) =>
        parsePayload(
          RefreshTokenResSchema,
          await this.call(connection, PayloadType.REFRESH_TOKEN_REQ, { refreshToken }, PayloadType.REFRESH_TOKEN_RES),
          PayloadType.REFRESH_TOKEN_RES,
        ),
      () => this.clock.now(),
    );
  }

  private async loadCatalog(connection: OpenApiConnection): Promise<void> {
    const list = parsePayload(
      SymbolsListResSchema,
      await this.call(connection, PayloadType.SYMBOLS_LIST_REQ, this.forAccount({ includeArchivedSymbols: false }), PayloadType.SYMBOLS_LIST_RES),
      PayloadType.SYMBOLS_LIST_RES,
    );
    const details = new Map<number, FullSymbol>();
    for (const chunk of chunks(
      list.symbol.map((s) => s.symbolId),
      IDS_PER_REQUEST,
    )) {
      const response = parsePayload(
        SymbolByIdResSchema,
        await this.call(connection, PayloadType.SYMBOL_BY_ID_REQ, this.forAccount({ symbolId: chunk }), PayloadType.SYMBOL_BY_ID_RES),
        PayloadType.SYMBOL_BY_ID_RES,
      );
      for (const symbol of response.symbol) details.set(symbol.symbolId, symbol);
    }
    const byName = new Map<string, CatalogEntry>();
    const byId = new Map<number, CatalogEntry>();
    for (const light of list.symbol) {
      const full = details.get(light.symbolId);
      // Without digits no price can be decoded; without a name nobody can ask for it.
      if (!full || !light.symbolName || byName.has(light.symbolName)) continue;
      const entry: CatalogEntry = {
        symbol: {
          symbolId: light.symbolId,
          name: light.symbolName,
          digits: full.digits,
          pipPosition: full.pipPosition,
          enabled: light.enabled === true,
          description: light.description ?? '',
        },
        schedule: scheduleOf(full),
      };
      byName.set(entry.symbol.name, entry);
      byId.set(entry.symbol.symbolId, entry);
    }
    this.catalog = byName;
    this.catalogById = byId;
  }

  private async subscribeSpots(connection: OpenApiConnection, symbols: string[]): Promise<void> {
    const ids = symbols.map((s) => this.catalog?.get(s)?.symbol.symbolId).filter((id): id is number => id !== undefined);
    for (const chunk of chunks(ids, IDS_PER_REQUEST)) {
      // subscribeToSpotTimestamp: "If TRUE you will also receive the timestamp in ProtoOASpotEvent."
      await this.call(
        connection,
        PayloadType.SUBSCRIBE_SPOTS_REQ,
        this.forAccount({ symbolId: chunk, subscribeToSpotTimestamp: true }),
        PayloadType.SUBSCRIBE_SPOTS_RES,
      );
    }
  }

  /** Every bar opening in [fromMs, toMs), a span no wider than the period's widest request, oldest first. */
  private async readSpan(
    connection: OpenApiConnection,
    symbol: FeedSymbol,
    period: TrendbarPeriod,
    fromMs: number,
    toMs: number,
    nowMs: number,
  ): Promise<Bar[]> {
    const bars = new Map<number, Bar>();
    let upToMs = toMs;
    while (upToMs >= fromMs) {
      const response = parsePayload(
        GetTrendbarsResSchema,
        await this.call(
          connection,
          PayloadType.GET_TRENDBARS_REQ,
          this.forAccount({ fromTimestamp: fromMs, toTimestamp: upToMs, period: period.code, symbolId: symbol.symbolId }),
          PayloadType.GET_TRENDBARS_RES,
          this.historical,
        ),
        PayloadType.GET_TRENDBARS_RES,
      );
      for (const wire of response.trendbar) {
        const bar = decodeTrendbar(wire, symbol.digits, period.seconds, nowMs);
        if (bar.time * 1000 >= fromMs && bar.time * 1000 < toMs) bars.set(bar.time, bar);
      }
      if (response.hasMore !== true || response.trendbar.length === 0) break;
      // The venue kept the newest bars: the older ones of the span come with the next request.
      const oldestMs = Math.min(...response.trendbar.map((b) => b.utcTimestampInMinutes * 60_000));
      if (oldestMs <= fromMs || oldestMs > upToMs) break;
      upToMs = oldestMs - 1;
    }
    return [...bars.values()].sort((a, b) => a.time - b.time);
  }

  /**
   * A request paced within its rate limit. An account request the venue answers with an
   * expired or invalid token ends the session: the next one renews the token first.
   */
  private async call(
    connection: OpenApiConnection,
    payloadType: number,
    payload: Record<string, unknown>,
    expect: number,
    pacer = this.requests,
  ): Promise<Record<string, unknown>> {
    return this.paced(connection, pacer, () => connection.request(payloadType, payload, expect));
  }

  private async paced<T>(connection: OpenApiConnection, pacer: RatePacer, send: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      await pacer.acquire();
      try {
        return await send();
      } catch (err) {
        if (isTokenRejection(err) && connection === this.connection) {
          this.tokens.markStale();
          connection.close(`access token rejected: ${err.message}`);
        }
        // The venue counts a request when it arrives, the pacer when it leaves: a burst that took longer on
        // the way can land inside the next one's second. Every historical request is a read, so one refused
        // for it is sent again a second later.
        if (pacer !== this.historical || attempt >= HISTORICAL_ATTEMPTS || !isFrequencyRefusal(err)) throw err;
        await new Promise<void>((resolve) => this.clock.setTimeout(resolve, 1000));
      }
    }
  }

  /** Every account-level request names the account it is for. */
  private forAccount(payload: Record<string, unknown>): Record<string, unknown> {
    return { ctidTraderAccountId: this.options.accountId, ...payload };
  }

  private onEvent(connection: OpenApiConnection, event: Envelope): void {
    switch (event.payloadType) {
      case PayloadType.SPOT_EVENT:
        this.onSpot(event.payload);
        return;
      case PayloadType.ACCOUNT_DISCONNECT_EVENT: {
        const parsed = AccountDisconnectEventSchema.safeParse(event.payload);
        if (parsed.success && parsed.data.ctidTraderAccountId === this.options.accountId) {
          connection.close('the server ended the account session (ProtoOAAccountDisconnectEvent)');
        }
        return;
      }
      case PayloadType.ACCOUNTS_TOKEN_INVALIDATED_EVENT: {
        const parsed = TokenInvalidatedEventSchema.safeParse(event.payload);
        if (parsed.success && parsed.data.ctidTraderAccountIds.includes(this.options.accountId)) {
          this.tokens.markStale();
          connection.close(`access token invalidated${parsed.data.reason ? `: ${parsed.data.reason}` : ''} (ProtoOAAccountsTokenInvalidatedEvent)`);
        }
        return;
      }
      case PayloadType.CLIENT_DISCONNECT_EVENT: {
        const parsed = ClientDisconnectEventSchema.safeParse(event.payload);
        const reason = parsed.success && parsed.data.reason ? `: ${parsed.data.reason}` : '';
        connection.close(`the server disconnected the application${reason} (ProtoOAClientDisconnectEvent)`);
        return;
      }
      case PayloadType.HEARTBEAT_EVENT:
        // Heartbeats only prove the link is alive (the connection noted that).
        return;
      default:
        this.accountEvents.emit(event);
    }
  }

  private onSpot(payload: Record<string, unknown>): void {
    const parsed = SpotEventSchema.safeParse(payload);
    if (!parsed.success) return;
    const spot = parsed.data;
    const entry = this.catalogById.get(spot.symbolId);
    if (!entry) return;
    const last = this.lastSpot.get(spot.symbolId);
    const bid = spot.bid ?? last?.bid;
    const ask = spot.ask ?? last?.ask;
    this.lastSpot.set(spot.symbolId, { bid, ask });
    // The first event after subscribing carries both sides; until then there is no quote.
    if (bid === undefined || ask === undefined || !this.subscribed.has(entry.symbol.name)) return;
    const { digits, name } = entry.symbol;
    const quote: Quote = { symbol: name, bid: decodePrice(bid, digits), ask: decodePrice(ask, digits), time: spot.timestamp ?? this.clock.now() };
    this.emitQuote(quote);
  }

  private onConnectionLost(connection: OpenApiConnection, reason: string): void {
    if (this.connection !== connection) return;
    this.connection = undefined;
    this.lastSpot.clear();
    const lost = new BrokerError('disconnected', `the cTrader connection was lost (${reason})`);
    this.requests.cancel(lost);
    this.historical.cancel(lost);
    this.transition('disconnected', reason);
    this.scheduleReconnect();
  }

  /**
   * Why no session may be tried now: the token was refused for good (unless the store holds
   * another pair by now), or the venue's wait has not ended.
   */
  private heldBack(): BrokerError | undefined {
    if (this.tokens.refused && !this.tokens.adoptStored()) return this.tokens.refused;
    if (this.venueWait && this.clock.now() < this.venueWait.untilMs) return this.venueWait.error;
    this.venueWait = undefined;
    return undefined;
  }

  /**
   * A session refused with a wait (SERVER_IS_UNDER_MAINTENANCE's end, BLOCKED_PAYLOAD_TYPE's
   * `retryAfter`) holds the next one back until then, at most `venueWaitMaxMs` from now.
   */
  private noteVenueWait(err: unknown): void {
    if (!(err instanceof BrokerError) || err.retryAfterSeconds === undefined) return;
    const waitMs = Math.min(err.retryAfterSeconds * 1000, this.options.venueWaitMaxMs);
    const untilMs = this.clock.now() + waitMs;
    const error = new BrokerError(err.kind, `${err.message} (no session before ${new Date(untilMs).toISOString()})`, {
      venueCode: err.venueCode,
      retryAfterSeconds: Math.ceil(waitMs / 1000),
      cause: err,
    });
    this.venueWait = { untilMs, error };
  }

  private scheduleReconnect(): void {
    if (this.isClosed || this.reconnectTimer) return;
    const backoffMs = backoffDelayMs({ baseMs: this.options.reconnectInitialMs, capMs: this.options.reconnectMaxMs }, this.failures);
    const delayMs = Math.max(backoffMs, (this.venueWait?.untilMs ?? 0) - this.clock.now());
    this.reconnectTimer = this.clock
      .setTimeout(() => {
        this.reconnectTimer = undefined;
        if (this.current !== 'disconnected' || this.attempt || this.isClosed) return;
        if (this.heldBack()) {
          // A refused token: wait for another pair in the store, without a connection.
          this.scheduleReconnect();
          return;
        }
        this.startAttempt('reconnecting').catch(() => {
          // Reported through onState; the next attempt is already scheduled.
        });
      }, delayMs)
      .unref();
  }

  private cancelReconnect(): void {
    if (this.reconnectTimer) this.clock.clearTimer(this.reconnectTimer);
    this.reconnectTimer = undefined;
  }

  /** The established session, or `disconnected`. */
  private session(): OpenApiConnection {
    if (!this.connection || this.current !== 'connected') throw new BrokerError('disconnected', 'the cTrader feed is not connected');
    return this.connection;
  }

  private throwIfClosed(): void {
    if (this.isClosed) throw new BrokerError('disconnected', 'the cTrader feed was closed');
  }
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
