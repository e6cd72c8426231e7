import type { AddressInfo } from 'node:net';
import type { Clock, TimerHandle } from '@fxdesk/primitives';
import { WebSocketServer, type WebSocket } from 'ws';
import { FAKE_SYMBOLS, type FakeSymbol } from './fake-symbols.js';
import { FAKE_ASSETS, FakeTradingAccount, volumeTerms, type FakeAccountOptions } from './fake-trading.js';
import { messageText } from '../../src/ctrader/wire.js';
import type { SimulatedMarket } from '../../src/simulated/market.js';
import type { Bar, Timeframe } from '../../src/types.js';

/**
 * A local stand-in for a cTrader Open API proxy on its JSON port: a `ws` server speaking the
 * documented envelope `{ clientMsgId, payloadType, payload }` and the messages the quote feed
 * uses, with the documented rules:
 * - application auth (2100 → 2101) before anything else (else CH_CLIENT_NOT_AUTHENTICATED),
 *   account auth (2102 → 2103) before account requests (else ACCOUNT_NOT_AUTHORIZED);
 *   wrong credentials answer ProtoOAErrorRes (2142) CH_CLIENT_AUTH_FAILURE /
 *   CH_ACCESS_TOKEN_INVALID, an expired token OA_AUTH_TOKEN_EXPIRED;
 * - symbols list (2114 → 2115), symbols by id (2116 → 2117) with digits, pip position and the
 *   weekly schedule; spot subscriptions (2127 → 2128, then one spot event with both sides
 *   "even if market is closed"), unsubscription (2129 → 2130); spot events (2131) every
 *   `spotIntervalMs` on the clock while the symbol's schedule is open, with prices in
 *   1/100000 and a side left out when it has not changed since the last event;
 * - trendbars (2137 → 2138) as low + deltas with `utcTimestampInMinutes`, newest `count` of
 *   [from, to] (INCORRECT_BOUNDARIES past the period's widest span, before 0 or after
 *   2147483646000), at most `trendbarChunkSize` of them (the newest, with `hasMore`), bars only
 *   where the market was open; at most 5 historical requests per second on each connection
 *   (REQUEST_FREQUENCY_EXCEEDED beyond);
 * - each heartbeat (51) answered with one; the version request (2104 → 2105);
 * - subscriptions belong to a connection: a new connection starts with none;
 * - tokens (help.ctrader.com/open-api/account-authentication; OpenApiMessages.proto): an access
 *   token may expire at a time or after a number of account requests; then every account
 *   session on it ends with ProtoOAAccountsTokenInvalidatedEvent (2147, "Access Token is
 *   expired or recalled") and account auth with it answers OA_AUTH_TOKEN_EXPIRED.
 *   ProtoOARefreshTokenReq (2173, application auth first) with the current refresh token answers
 *   ProtoOARefreshTokenRes (2174) with a new pair and `expiresIn`; the old access token and the
 *   old refresh token stop working at once (sessions on the old token get 2147, "token was
 *   refreshed"). The venue does not document its answer to a spent refresh token: the fake
 *   answers CH_ACCESS_TOKEN_INVALID;
 * - maintenance: every request (heartbeats aside) answered SERVER_IS_UNDER_MAINTENANCE until its
 *   end, as ProtoErrorRes (50, `maintenanceEndTimestamp` in Unix milliseconds) or as
 *   ProtoOAErrorRes (2142, in Unix seconds).
 * - trading and account messages on the same authorized connection: see FakeTradingAccount
 *   (fake-trading.ts); ProtoOADealListReq counts among the historical requests.
 * Prices: a still mid of each symbol that `priceSwing` moves, and deterministic trendbars; or,
 * with a `market`, the simulated market's ticks and bid bars for every symbol it lists (spots,
 * fills and trendbars alike), so a strategy decides on bars whose prices it trades at.
 * Faults on demand: go down (drop every connection and refuse new ones with HTTP 503), come
 * back, drop connections, stop answering anything while keeping the socket open, ignore one
 * payload type, change the valid token or expire it, push any event, push a spot event, a
 * maintenance.
 */

export const FAKE_CREDENTIALS = {
  clientId: '7_fakeClientIdForTests',
  clientSecret: 'fake-client-secret-9d2e',
  accessToken: 'fake-access-token-51ab',
  accountId: 22_334_455,
} as const;

/** The refresh token granted with FAKE_CREDENTIALS.accessToken (a feed holds one only when told). */
export const FAKE_REFRESH_TOKEN = 'fake-refresh-token-7c40';

export interface ReceivedMessage {
  /** Which connection (1, 2, …) sent it. */
  connection: number;
  at: number;
  clientMsgId?: string;
  payloadType: number;
  payload: Record<string, unknown>;
}

export interface FakeCTraderOptions {
  clock: Clock;
  symbols?: FakeSymbol[];
  spotIntervalMs?: number;
  /** Write int64 fields as decimal strings, as protobuf's JSON mapping may. */
  int64AsStrings?: boolean;
  /** Send the spot event that follows a subscription (default true). */
  technicalSpotEvent?: boolean;
  /**
   * Most trendbars in one response: beyond it the newest ones are sent with `hasMore: true`
   * ("the number of records by filter is larger than chunkSize"; the venue does not publish
   * its chunk size). Default: no limit.
   */
  trendbarChunkSize?: number;
  /** ProtoOARefreshTokenRes.expiresIn; default 2,628,000 s, the documented lifetime of an access token. */
  accessTokenLifetimeSeconds?: number;
  /** The trading account behind the server. */
  account?: FakeAccountOptions;
  /** Moves every mid price up and down by up to `points` (in 1/100000) over `periodTicks` ticks, so that stops get hit. Default: still. */
  priceSwing?: { points: number; periodTicks: number };
  /** Historical requests allowed in any second on one connection (the documented 5 by default). */
  historicalRequestsPerSecond?: number;
  /** Prices of the symbols it lists, on the server's clock: its ticks are the spots, its bars the trendbars. */
  market?: SimulatedMarket;
}

/** A fault armed on the next request of one of `payloadTypes` (any account request when absent). */
export interface FakeFault {
  payloadTypes?: number[];
  /**
   * `hang`: never answer; `execute-then-hang`: do it, answer nothing; `drop`: cut every
   * connection, doing nothing; `execute-then-drop`: do it, then cut every connection unanswered.
   */
  kind: 'hang' | 'execute-then-hang' | 'drop' | 'execute-then-drop';
  /** Called once the request has arrived (a test moves the clock past the adapter's timeout here). */
  onArrive?: () => void;
}

interface Session {
  id: number;
  socket: WebSocket;
  isAppAuthed: boolean;
  isAccountAuthed: boolean;
  /** The access token the account session was authorized with. */
  token: string | undefined;
  subscribed: Set<number>;
  lastSent: Map<number, { bid: number; ask: number }>;
  /** Arrival times of its historical requests over the last second (the limit is per connection). */
  historicalTimes: number[];
}

const PERIOD_MINUTES: Record<string, number> = { M1: 1, M5: 5, M15: 15, M30: 30, H1: 60, H4: 240, D1: 1440 };
const PERIOD_NAMES: Record<number, string> = { 1: 'M1', 5: 'M5', 7: 'M15', 8: 'M30', 9: 'H1', 10: 'H4', 12: 'D1' };
const MAX_SPAN_MS: Record<string, number> = {
  M1: 302_400_000,
  M5: 302_400_000,
  M15: 21_168_000_000,
  M30: 21_168_000_000,
  H1: 21_168_000_000,
  H4: 31_622_400_000,
  D1: 31_622_400_000,
};
/** "Smaller or equal to 2147483646000 (19th Jan 2038)" (ProtoOAGetTrendbarsReq.toTimestamp). */
const MAX_TO_TIMESTAMP_MS = 2_147_483_646_000;
const INT64_FIELDS = new Set([
  'expiresIn',
  'maintenanceEndTimestamp',
  'ctidTraderAccountId',
  'symbolId',
  'bid',
  'ask',
  'timestamp',
  'low',
  'deltaOpen',
  'deltaClose',
  'deltaHigh',
  'volume',
]);

export class FakeCTraderServer {
  readonly received: ReceivedMessage[] = [];
  /** Clock times of every WebSocket handshake, accepted or refused. */
  readonly handshakes: number[] = [];
  /** Errors the server answered, by code. */
  readonly errorsSent: string[] = [];
  /** Each trendbars answer: the request's bounds, how many bars it held, whether it was cut short. */
  readonly trendbarResponses: { from: number; to: number; bars: number; hasMore: boolean }[] = [];
  /** Every spot event sent, with the prices it carried (in 1/100000; a side left out is absent). */
  readonly spotsSent: { symbolId: number; bid?: number; ask?: number; timestamp: number }[] = [];
  clientId: string = FAKE_CREDENTIALS.clientId;
  clientSecret: string = FAKE_CREDENTIALS.clientSecret;
  accessToken: string = FAKE_CREDENTIALS.accessToken;
  refreshToken: string = FAKE_REFRESH_TOKEN;
  readonly accountId: number = FAKE_CREDENTIALS.accountId;
  isTokenExpired = false;
  /** Pairs issued by ProtoOARefreshTokenReq so far. */
  refreshes = 0;
  private readonly clock: Clock;
  private readonly symbols: FakeSymbol[];
  private readonly int64AsStrings: boolean;
  private readonly technicalSpotEvent: boolean;
  private readonly trendbarChunkSize: number;
  private readonly accessTokenLifetimeSeconds: number;
  private readonly priceSwing: { points: number; periodTicks: number } | undefined;
  private readonly historicalLimit: number;
  private readonly market: SimulatedMarket | undefined;
  private readonly faults: FakeFault[] = [];
  /** Symbols with a holiday today (closeMarket). */
  private readonly closedSymbols = new Set<number>();
  readonly trading: FakeTradingAccount;
  private tokenExpiry: { atMs?: number; requestsLeft?: number } | undefined;
  private maintenance: { untilMs: number; payloadType: 50 | 2142 } | undefined;
  private readonly sessions = new Set<Session>();
  private readonly ignored = new Set<number>();
  private server!: WebSocketServer;
  private spotTimer: TimerHandle | undefined;
  private tick = 0;
  private nextSessionId = 1;
  private isDown = false;
  private isSilent = false;

  private constructor(options: FakeCTraderOptions) {
    this.clock = options.clock;
    this.symbols = options.symbols ?? FAKE_SYMBOLS;
    this.int64AsStrings = options.int64AsStrings ?? false;
    this.technicalSpotEvent = options.technicalSpotEvent ?? true;
    this.trendbarChunkSize = options.trendbarChunkSize ?? Number.POSITIVE_INFINITY;
    this.accessTokenLifetimeSeconds = options.accessTokenLifetimeSeconds ?? 2_628_000;
    this.priceSwing = options.priceSwing;
    this.historicalLimit = options.historicalRequestsPerSecond ?? 5;
    this.market = options.market;
    this.trading = new FakeTradingAccount(
      this.accountId,
      () => this.clock.now(),
      (id) => this.symbol(id),
      (symbol) => this.quoteOf(symbol),
      (symbol) => this.isTrading(symbol),
      (payloadType, payload) => this.pushEvent(payloadType, payload),
      options.account,
    );
    this.spotTimer = this.clock.setInterval(() => this.streamSpots(), options.spotIntervalMs ?? 1000).unref();
  }

  static async start(options: FakeCTraderOptions): Promise<FakeCTraderServer> {
    const fake = new FakeCTraderServer(options);
    fake.server = new WebSocketServer({
      host: '127.0.0.1',
      port: 0,
      verifyClient: (_info, done) => {
        fake.handshakes.push(fake.clock.now());
        if (fake.isDown) done(false, 503, 'Service Unavailable');
        else done(true);
      },
    });
    fake.server.on('connection', (socket) => fake.accept(socket));
    await new Promise<void>((resolve) => fake.server.once('listening', () => resolve()));
    return fake;
  }

  /** `ws://127.0.0.1:<port>` (the feed appends nothing: pass it as the feed's url). */
  get url(): string {
    return `ws://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  get openConnections(): number {
    return this.sessions.size;
  }

  /** Messages of one payload type, in arrival order. */
  messages(payloadType: number): ReceivedMessage[] {
    return this.received.filter((m) => m.payloadType === payloadType);
  }

  /** Drops every connection and refuses new handshakes (HTTP 503) until `comeBack()`. */
  goDown(): void {
    this.isDown = true;
    this.dropConnections();
  }

  comeBack(): void {
    this.isDown = false;
  }

  /** Cuts every open connection without a close frame (a network loss). */
  dropConnections(): void {
    for (const session of this.sessions) session.socket.terminate();
  }

  /** Answers nothing and streams nothing (the socket stays open): a half-dead link. */
  stopAnswering(): void {
    this.isSilent = true;
  }

  resumeAnswering(): void {
    this.isSilent = false;
  }

  /** Never answers requests of this payload type. */
  ignore(payloadType: number): void {
    this.ignored.add(payloadType);
  }

  /** The current access token expires at `atMs` on the clock, or after `requests` more account requests. */
  expireAccessToken(after: { atMs?: number; requests?: number }): void {
    this.tokenExpiry = { atMs: after.atMs, requestsLeft: after.requests };
  }

  /**
   * Drops every connection; until `untilMs` every request is answered SERVER_IS_UNDER_MAINTENANCE
   * in `payloadType`: 50 (ProtoErrorRes) or 2142 (ProtoOAErrorRes).
   */
  startMaintenance(untilMs: number, payloadType: 50 | 2142): void {
    this.maintenance = { untilMs, payloadType };
    this.dropConnections();
  }

  /** Arms a fault on the next matching request. */
  inject(fault: FakeFault): void {
    this.faults.push(fault);
  }

  /** A holiday today for the symbol: its trading requests answer MARKET_CLOSED and its details list the holiday. */
  closeMarket(symbolName: string): void {
    const symbol = this.symbols.find((s) => s.symbolName === symbolName);
    if (symbol) this.closedSymbols.add(symbol.symbolId);
  }

  /** Answers requests of this payload type again (after `ignore`). */
  answerAgain(payloadType: number): void {
    this.ignored.delete(payloadType);
  }

  /** Sends an event to every authorized connection. */
  pushEvent(payloadType: number, payload: Record<string, unknown>): void {
    for (const session of this.sessions) if (session.isAccountAuthed) this.send(session, { payloadType, payload });
  }

  /** A spot event with exactly these fields to every connection subscribed to the symbol. */
  pushSpot(symbolId: number, prices: { bid?: number; ask?: number; timestamp?: number }): void {
    for (const session of this.sessions) {
      if (session.subscribed.has(symbolId)) this.send(session, { payloadType: 2131, payload: { ctidTraderAccountId: this.accountId, symbolId, ...prices } });
    }
  }

  async close(): Promise<void> {
    if (this.spotTimer) this.clock.clearTimer(this.spotTimer);
    this.dropConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(socket: WebSocket): void {
    const session: Session = {
      id: this.nextSessionId++,
      socket,
      isAppAuthed: false,
      isAccountAuthed: false,
      token: undefined,
      subscribed: new Set(),
      lastSent: new Map(),
      historicalTimes: [],
    };
    this.sessions.add(session);
    socket.on('close', () => this.sessions.delete(session));
    socket.on('error', () => {});
    socket.on('message', (data) => this.receive(session, messageText(data)));
  }

  private receive(session: Session, text: string): void {
    const message = JSON.parse(text) as { clientMsgId?: string; payloadType: number; payload?: Record<string, unknown> };
    const payload = message.payload ?? {};
    this.received.push({ connection: session.id, at: this.clock.now(), clientMsgId: message.clientMsgId, payloadType: message.payloadType, payload });
    if (this.isSilent || this.ignored.has(message.payloadType)) return;
    const answer = (payloadType: number, body: Record<string, unknown>) => this.send(session, { clientMsgId: message.clientMsgId, payloadType, payload: body });
    const fail = (errorCode: string, description: string) => {
      this.errorsSent.push(errorCode);
      answer(2142, { errorCode, description, ...(session.isAccountAuthed ? { ctidTraderAccountId: this.accountId } : {}) });
    };
    if (message.payloadType === 51) return this.send(session, { payloadType: 51, payload: {} });
    this.checkTokenExpiry();
    if (this.maintenance && this.clock.now() < this.maintenance.untilMs) return this.underMaintenance(session, message.clientMsgId, this.maintenance);
    if (message.payloadType === 2104) return answer(2105, { version: '92' });
    if (message.payloadType === 2100) {
      if (payload.clientId !== this.clientId || payload.clientSecret !== this.clientSecret) {
        return fail('CH_CLIENT_AUTH_FAILURE', 'Open API client is not activated or wrong client credentials');
      }
      session.isAppAuthed = true;
      return answer(2101, {});
    }
    if (!session.isAppAuthed) return fail('CH_CLIENT_NOT_AUTHENTICATED', 'Open API application is not authorized');
    if (message.payloadType === 2173) {
      if (payload.refreshToken !== this.refreshToken) return fail('CH_ACCESS_TOKEN_INVALID', 'Refresh token is invalid');
      return answer(2174, this.issuePair());
    }
    if (message.payloadType === 2102) {
      if (Number(payload.ctidTraderAccountId) !== this.accountId) return fail('CH_CTID_TRADER_ACCOUNT_NOT_FOUND', 'Trading account is not found');
      if (payload.accessToken !== this.accessToken) return fail('CH_ACCESS_TOKEN_INVALID', 'Access token is invalid');
      if (this.isTokenExpired) return fail('OA_AUTH_TOKEN_EXPIRED', 'Access token expired');
      session.isAccountAuthed = true;
      session.token = this.accessToken;
      return answer(2103, { ctidTraderAccountId: this.accountId });
    }
    if (session.isAccountAuthed && this.tokenExpiry?.requestsLeft !== undefined && this.tokenExpiry.requestsLeft-- <= 0) this.expireToken();
    if (!session.isAccountAuthed || Number(payload.ctidTraderAccountId) !== this.accountId)
      return fail('ACCOUNT_NOT_AUTHORIZED', 'Trading account is not authorized');
    const fault = this.faults.find((f) => f.payloadTypes === undefined || f.payloadTypes.includes(message.payloadType));
    if (fault) {
      this.faults.splice(this.faults.indexOf(fault), 1);
      if (fault.kind.startsWith('execute')) this.trading.handle(message.payloadType, payload, () => {});
      if (fault.kind.endsWith('drop')) this.dropConnections();
      fault.onArrive?.();
      return;
    }
    const account = { ctidTraderAccountId: this.accountId };
    const ids = Array.isArray(payload.symbolId) ? payload.symbolId.map(Number) : [];
    switch (message.payloadType) {
      case 2114:
        return answer(2115, {
          ...account,
          symbol: this.symbols.map((s) => ({
            symbolId: s.symbolId,
            symbolName: s.symbolName,
            enabled: s.enabled,
            description: s.description,
            baseAssetId: FAKE_ASSETS[s.symbolName.slice(0, 3)],
            quoteAssetId: FAKE_ASSETS[s.symbolName.slice(3)],
          })),
        });
      case 2116:
        return answer(2117, { ...account, symbol: this.symbols.filter((s) => ids.includes(s.symbolId)).map((s) => this.fullSymbol(s)) });
      case 2127: {
        const unknown = ids.filter((id) => !this.symbol(id));
        if (unknown.length > 0) return fail('SYMBOL_NOT_FOUND', `Symbol not found: ${unknown.join(',')}`);
        const already = ids.filter((id) => session.subscribed.has(id));
        if (already.length > 0) return fail('ALREADY_SUBSCRIBED', `Already subscribed: ${already.join(',')}`);
        answer(2128, account);
        for (const id of ids) {
          session.subscribed.add(id);
          // "You'll receive technical ProtoOASpotEvent with current price shortly after this response."
          if (this.technicalSpotEvent) this.sendSpot(session, this.symbol(id) as FakeSymbol, true);
        }
        return;
      }
      case 2129:
        for (const id of ids) session.subscribed.delete(id);
        return answer(2130, account);
      case 2137:
        return this.trendbars(session, payload, answer, fail);
      case 2133:
        if (!this.takeHistoricalSlot(session)) return fail('REQUEST_FREQUENCY_EXCEEDED', 'Request frequency is reached');
        this.trading.handle(message.payloadType, payload, answer);
        return;
      default:
        if (this.trading.handle(message.payloadType, payload, answer)) return;
        return fail('UNSUPPORTED_MESSAGE', `payload type ${message.payloadType} is not supported by the fake`);
    }
  }

  private trendbars(
    session: Session,
    payload: Record<string, unknown>,
    answer: (type: number, body: Record<string, unknown>) => void,
    fail: (code: string, text: string) => void,
  ): void {
    const now = this.clock.now();
    if (!this.takeHistoricalSlot(session)) return fail('REQUEST_FREQUENCY_EXCEEDED', 'Request frequency is reached');
    const period = typeof payload.period === 'number' ? PERIOD_NAMES[payload.period] : String(payload.period);
    const symbol = this.symbol(Number(payload.symbolId));
    if (!symbol) return fail('SYMBOL_NOT_FOUND', 'Symbol not found');
    if (!period || !(period in PERIOD_MINUTES)) return fail('INVALID_REQUEST', `unknown period ${String(payload.period)}`);
    const from = Number(payload.fromTimestamp);
    const to = Number(payload.toTimestamp);
    if (!(from >= 0) || !(to >= from) || to > MAX_TO_TIMESTAMP_MS || to - from > (MAX_SPAN_MS[period] as number)) {
      return fail('INCORRECT_BOUNDARIES', 'Incorrect boundaries');
    }
    // count: "Limit number of trend bars in response back from toTimestamp".
    const count = payload.count === undefined ? Infinity : Number(payload.count);
    const stepMs = (PERIOD_MINUTES[period] as number) * 60_000;
    const marketBars = this.marketBars(symbol, period, from, Math.min(to, now), count);
    const bars: Record<string, unknown>[] = [];
    let hasMore = false;
    for (let open = Math.floor(to / stepMs) * stepMs; open >= from && bars.length < count; open -= stepMs) {
      if (open > now || open < (symbol.historyStartMs ?? 0) || !isOpen(symbol, open)) continue;
      const bar = marketBars ? marketBars.get(open) : trendbar(symbol, open / 60_000, period);
      if (!bar) continue;
      if (bars.length === this.trendbarChunkSize) {
        hasMore = true;
        break;
      }
      bars.unshift(bar);
    }
    this.trendbarResponses.push({ from, to, bars: bars.length, hasMore });
    answer(2138, { ctidTraderAccountId: this.accountId, period, symbolId: symbol.symbolId, trendbar: bars, hasMore });
  }

  /** The market's bars of the symbol from `from` to `atMs` (the last one forming), by open time; undefined without a market that lists it. */
  private marketBars(symbol: FakeSymbol, period: string, from: number, atMs: number, count: number): Map<number, Record<string, unknown>> | undefined {
    if (!this.market?.spec(symbol.symbolName) || atMs < from) return undefined;
    const stepMs = (PERIOD_MINUTES[period] as number) * 60_000;
    const wanted = Math.min(count, Math.floor(atMs / stepMs) - Math.floor(from / stepMs) + 1);
    const bars = this.market.bars(symbol.symbolName, period as Timeframe, wanted, atMs);
    return new Map(bars.map((bar) => [bar.time * 1000, trendbarOf(bar, period)]));
  }

  /** One more historical request in the sliding second, or false past the limit. */
  private takeHistoricalSlot(session: Session): boolean {
    const now = this.clock.now();
    const times = session.historicalTimes;
    while (times.length > 0 && (times[0] as number) <= now - 1000) times.shift();
    if (times.length >= this.historicalLimit) return false;
    times.push(now);
    return true;
  }

  /** A new access and refresh token; the old ones stop working and sessions on the old token end. */
  private issuePair(): Record<string, unknown> {
    this.refreshes++;
    const old = this.accessToken;
    this.accessToken = `fake-access-token-r${this.refreshes}`;
    this.refreshToken = `fake-refresh-token-r${this.refreshes}`;
    this.isTokenExpired = false;
    this.tokenExpiry = undefined;
    this.endAccountSessions(old, 'token was refreshed');
    return { accessToken: this.accessToken, tokenType: 'bearer', expiresIn: this.accessTokenLifetimeSeconds, refreshToken: this.refreshToken };
  }

  private checkTokenExpiry(): void {
    if (this.tokenExpiry?.atMs !== undefined && this.clock.now() >= this.tokenExpiry.atMs) this.expireToken();
  }

  private expireToken(): void {
    this.tokenExpiry = undefined;
    this.isTokenExpired = true;
    this.endAccountSessions(this.accessToken, 'Access Token is expired or recalled');
  }

  /** ProtoOAAccountsTokenInvalidatedEvent to every account session on `token`, which ends. */
  private endAccountSessions(token: string, reason: string): void {
    for (const session of this.sessions) {
      if (!session.isAccountAuthed || session.token !== token) continue;
      session.isAccountAuthed = false;
      session.subscribed.clear();
      this.send(session, { payloadType: 2147, payload: { ctidTraderAccountIds: [this.accountId], reason } });
    }
  }

  private underMaintenance(session: Session, clientMsgId: string | undefined, maintenance: { untilMs: number; payloadType: 50 | 2142 }): void {
    this.errorsSent.push('SERVER_IS_UNDER_MAINTENANCE');
    // ProtoErrorRes: "Unix time in milliseconds"; ProtoOAErrorRes: "Unix time in seconds".
    const end = maintenance.payloadType === 50 ? maintenance.untilMs : Math.floor(maintenance.untilMs / 1000);
    this.send(session, {
      clientMsgId,
      payloadType: maintenance.payloadType,
      payload: { errorCode: 'SERVER_IS_UNDER_MAINTENANCE', description: 'Server is under maintenance', maintenanceEndTimestamp: end },
    });
  }

  private streamSpots(): void {
    this.tick++;
    this.checkTokenExpiry();
    if (this.isSilent) return;
    this.trading.onTick();
    for (const session of this.sessions) {
      for (const id of session.subscribed) {
        const symbol = this.symbol(id);
        if (symbol && isOpen(symbol, this.clock.now())) this.sendSpot(session, symbol, false);
      }
    }
  }

  /** Bid and ask of the current tick; a side equal to the last one sent is left out. */
  private sendSpot(session: Session, symbol: FakeSymbol, isFull: boolean): void {
    const { bid, ask } = this.quoteOf(symbol);
    const last = session.lastSent.get(symbol.symbolId);
    session.lastSent.set(symbol.symbolId, { bid, ask });
    const payload: Record<string, unknown> = { ctidTraderAccountId: this.accountId, symbolId: symbol.symbolId, timestamp: this.clock.now() };
    if (isFull || last?.bid !== bid) payload.bid = bid;
    if (isFull || last?.ask !== ask) payload.ask = ask;
    this.spotsSent.push({
      symbolId: symbol.symbolId,
      bid: payload.bid as number | undefined,
      ask: payload.ask as number | undefined,
      timestamp: this.clock.now(),
    });
    this.send(session, { payloadType: 2131, payload });
  }

  private send(session: Session, message: { clientMsgId?: string; payloadType: number; payload: Record<string, unknown> }): void {
    const text = JSON.stringify(message, (key, value: unknown) =>
      this.int64AsStrings && INT64_FIELDS.has(key) && typeof value === 'number' ? String(value) : value,
    );
    session.socket.send(text);
  }

  private symbol(id: number): FakeSymbol | undefined {
    return this.symbols.find((s) => s.symbolId === id);
  }

  /** Bid and ask of the current tick, in 1/100000. */
  private quoteOf(symbol: FakeSymbol): { bid: number; ask: number } {
    const tick = this.market?.spec(symbol.symbolName) ? this.market.lastTick(symbol.symbolName) : null;
    if (tick) return { bid: Math.round(tick.bid * 100_000), ask: Math.round(tick.ask * 100_000) };
    const swing = this.priceSwing ? Math.round(triangle(this.tick, this.priceSwing.periodTicks) * this.priceSwing.points) : 0;
    const ask = symbol.basePrice + swing + symbol.spread + (Math.floor(this.tick / 2) % 5) * 3;
    return { bid: ask - symbol.spread - (this.tick % 3), ask };
  }

  private isTrading(symbol: FakeSymbol): boolean {
    return isOpen(symbol, this.clock.now()) && !this.closedSymbols.has(symbol.symbolId);
  }

  private fullSymbol(s: FakeSymbol): Record<string, unknown> {
    const today = {
      holidayId: 900,
      name: 'Closed by the test',
      scheduleTimeZone: 'UTC',
      holidayDate: Math.floor(this.clock.now() / 86_400_000),
      isRecurring: false,
    };
    const holiday = [...(s.holiday ?? []), ...(this.closedSymbols.has(s.symbolId) ? [today] : [])];
    return {
      symbolId: s.symbolId,
      digits: s.digits,
      pipPosition: s.pipPosition,
      schedule: s.schedule,
      scheduleTimeZone: s.scheduleTimeZone,
      ...(holiday.length > 0 ? { holiday } : {}),
      tradingMode: 'ENABLED',
      ...volumeTerms(s),
      slDistance: s.slDistance ?? 0,
      tpDistance: s.tpDistance ?? 0,
      distanceSetIn: 'SYMBOL_DISTANCE_IN_POINTS',
    };
  }
}

/** -1 … 1 … -1 over `period` ticks. */
function triangle(tick: number, period: number): number {
  const phase = (tick % period) / period;
  return phase < 0.5 ? 4 * phase - 1 : 3 - 4 * phase;
}

/** A deterministic bar per (symbol, minute): low wanders, deltas from the minute. */
export function trendbar(symbol: FakeSymbol, minute: number, period: string): Record<string, unknown> {
  const low = symbol.basePrice - symbol.spread * 4 + ((minute * 7) % 23) * 5;
  return { volume: 10 + (minute % 50), period, low, deltaOpen: (minute % 7) * 4, deltaClose: (minute % 5) * 6, deltaHigh: 40, utcTimestampInMinutes: minute };
}

/** A bar of the market as a trendbar: low and deltas in 1/100000. */
function trendbarOf(bar: Bar, period: string): Record<string, unknown> {
  const low = Math.round(bar.low * 100_000);
  const points = (price: number) => Math.round(price * 100_000) - low;
  return {
    volume: bar.tickVolume,
    period,
    low,
    deltaOpen: points(bar.open),
    deltaClose: points(bar.close),
    deltaHigh: points(bar.high),
    utcTimestampInMinutes: bar.time / 60,
  };
}

/** The symbol's weekly schedule (UTC in this fake). */
function isOpen(symbol: FakeSymbol, epochMs: number): boolean {
  const weekSecond = Math.floor((((epochMs / 1000 - 3 * 86_400) % 604_800) + 604_800) % 604_800);
  return symbol.schedule.some((i) => weekSecond >= i.startSecond && weekSecond < i.endSecond);
}
