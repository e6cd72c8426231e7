import http from 'node:http';
import { TIMEFRAME_SECONDS, TIMEFRAMES, type Timeframe } from '@fxdesk/schemas';
import { retcodeName } from '../../src/mt5-retcodes.js';
import { METAAPI_TIMEFRAMES } from '../../src/metaapi/normalize.js';
import type { SimulatedMarket } from '../../src/simulated/market.js';
import { SimulatedTerminal } from '../../src/simulated/terminal.js';
import { simulatedSymbolInfo } from '../../src/simulated/terminal-rules.js';
import type { TerminalDeal, TerminalRecord, TradeResult } from '../../src/terminal.js';
import { LocalHttpServer } from '../local-http-server.js';
import {
  brokerTime,
  dealOf,
  decimal,
  FILLING_MODES,
  iso,
  isNewOrder,
  orderOf,
  pendingOrderOf,
  positionOf,
  tradeBodyProblem,
  tradeRequestOf,
  type TradeBody,
} from './fake-metaapi-models.js';

/**
 * A local stand-in for MetaApi's client API and market data API, answering as MetaApi documents
 * (metaapi.cloud/docs/client): `auth-token` header, the Error model `{ id, error, message,
 * details?, metadata? }` (401 UnauthorizedError, 404 NotFoundError, 400 ValidationError, 429
 * TooManyRequestsError with Retry-After and `metadata.recommendedRetryTime`, 504 TimeoutError
 * when its terminal is not connected to the broker), MetatraderTrade in and
 * MetatraderTradeResponse out (HTTP 200 with the MT5 code, -10/-11 for a lost trade server).
 *
 * Behind it runs an MT5 terminal: the simulated terminal over the simulated market, so fills,
 * partial fills, pending orders, expiry, stops levels and margin follow MT5 rules, and orders,
 * deals and positions are kept. The broker's clock is the market's, its time zone UTC+2 (as many
 * MT5 servers); trade sessions follow the market's hours.
 *
 * The account's life as MetaApi reports it: `deployFor(ms)` answers every client and market data
 * request 202 Accepted with Retry-After (seconds, or an HTTP-date) while the account deploys, and
 * the provisioning route (GET /users/current/accounts/:id) DEPLOYING; `synchronizeFor(ms)` has
 * the terminal connecting and loading its history, reported DISCONNECTED, while the history routes
 * answer the bare array of what has loaded so far (nothing); a lost broker is
 * DISCONNECTED_FROM_BROKER. Trades are checked as MetaApi documents MetatraderTrade:
 * `fillingModes` holds only ORDER_FILLING_FOK / ORDER_FILLING_IOC (else 400 ValidationError) and a
 * market order none of whose modes the symbol allows is answered 10030 TRADE_RETCODE_INVALID_FILL.
 * POSITION_CLOSE_ID, POSITION_PARTIAL (with `volume`) and POSITION_MODIFY need `positionId`,
 * ORDER_CANCEL `orderId` (else 400 ValidationError); a position or order the terminal does not
 * hold is answered with MetaApi's 4753 ERR_TRADE_POSITION_NOT_FOUND / 4754
 * ERR_TRADE_ORDER_NOT_FOUND, and POSITION_MODIFY removes a stop it is not given. GET …/positions
 * and GET …/orders list what is open, GET …/symbols the market's symbols ("Array<string>"). The
 * candles back from a `startTime` in the past end with the candle holding it, whole (MT5's
 * history), and while the broker is lost they are still served (the market data API's own host).
 * With `creditLimit`, requests are charged CPU credits over a sliding second, the client API and
 * the market data API apart ("calculated independently"), and one past the limit is answered 429
 * TooManyRequestsError (counted in `throttled`).
 *
 * Faults on demand, each for the next request of a route: hang (never answers, after calling
 * `onArrive`, where a test moves the adapter's clock past its timeout), reset (the socket is
 * destroyed), an error status, a trade code without executing, or executing and then hanging or
 * resetting (the lost-answer cases). `setBrokerConnected(false)` is the terminal losing its broker;
 * `goDown()` holds every request unanswered (MetaApi cannot be reached) until `comeBack()`.
 */

export type FakeRoute =
  | 'account'
  | 'trade'
  | 'account-information'
  | 'symbols'
  | 'specification'
  | 'current-price'
  | 'calculate-margin'
  | 'positions'
  | 'orders'
  | 'history-orders'
  | 'history-deals'
  | 'candles'
  | 'any';

export type FakeFault = { route?: FakeRoute; onArrive?: () => void } & (
  | { kind: 'hang' }
  /** Served as usual, after `onArrive` (where a test moves the clock: a slow answer). */
  | { kind: 'pass' }
  | { kind: 'reset' }
  | { kind: 'status'; status: number; body: unknown; headers?: Record<string, string> }
  /** Answers the trade with this code; `execute` runs it first; `thenDisconnect` leaves the terminal without broker. */
  | { kind: 'trade-code'; numericCode: number; stringCode: string; message?: string; execute?: boolean; thenDisconnect?: boolean }
  /** Executes the trade and answers without these fields of the response. */
  | { kind: 'execute-without'; fields: ('orderId' | 'positionId')[] }
  | { kind: 'execute-then-hang' }
  | { kind: 'execute-then-reset' }
);

export interface RecordedRequest {
  method: string;
  path: string;
  route: FakeRoute;
  headers: http.IncomingHttpHeaders;
  body: unknown;
}

export interface FakeMetaApiOptions {
  market: SimulatedMarket;
  token?: string;
  accountId?: string;
  balance?: string;
  leverage?: number;
  /** The fake's time (deploying, synchronizing, the rate limit's window); default Date.now. */
  now?: () => number;
  /** The specification's `fillingModes` per symbol; default FOK and IOC for every symbol. */
  fillingModes?: Record<string, string[]>;
  /** CPU credits per second per API, and what each request costs; no limit when omitted. */
  creditLimit?: { creditsPerSecond: number; creditsPerRequest: number };
  /** account-information's `type` (ACCOUNT_TRADE_MODE_REAL: a real-money account); default ACCOUNT_TRADE_MODE_DEMO. */
  tradeMode?: string;
}

/** A Saturday, to ask the market whether it keeps weekend hours. */
const A_SATURDAY_NOON = Date.UTC(2026, 0, 10, 12);
const WEEKDAYS = ['SUNDAY', 'MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY'];

/** MetaApi's Error model. */
export function errorBody(error: string, message: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { id: 1, error, message, ...extra };
}

/** A 429 TooManyRequestsError fault as MetaApi sends it (client API model, Retry-After header). */
export function throttled(route: FakeRoute, retryAfterSeconds: number, nowMs: number): FakeFault {
  return {
    route,
    kind: 'status',
    status: 429,
    headers: { 'retry-after': String(retryAfterSeconds) },
    body: errorBody('TooManyRequestsError', 'The trade API allows 10 cpu credits per 1s to avoid overloading our servers.', {
      metadata: { periodInSeconds: 1, creditsAvailable: 0, creditsUsed: 10, creditsRequired: 10, recommendedRetryTime: iso(nowMs + retryAfterSeconds * 1000) },
    }),
  };
}

const json = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
};

export class FakeMetaApiServer {
  readonly token: string;
  readonly accountId: string;
  readonly terminal: SimulatedTerminal;
  readonly requests: RecordedRequest[] = [];
  private readonly market: SimulatedMarket;
  private readonly options: FakeMetaApiOptions;
  private readonly leverage: number;
  private readonly faults: FakeFault[] = [];
  /** Requests held unanswered while MetaApi cannot be reached (`goDown()`). */
  private held: http.ServerResponse[] | undefined;
  private readonly magics = new Set<number>([0]);
  /** The closing order of each deal a close made (MT5: a close is an order and its deal). */
  private readonly closingOrders = new Map<string, string>();
  private brokerConnected = true;
  private deployedAt = 0;
  private retryAfterAsDate = false;
  private synchronizedAt = 0;
  /** Arrival times and credits of the requests charged, per API, over the last second. */
  private readonly charged = { client: [] as number[], 'market-data': [] as number[] };
  /** Requests answered 429 for going past `creditLimit`. */
  throttled = 0;
  /** The most requests of each route under way at once. */
  readonly peakInFlight = new Map<FakeRoute, number>();
  private readonly inFlight = new Map<FakeRoute, number>();
  private readonly now: () => number;
  private server!: LocalHttpServer;

  private constructor(options: FakeMetaApiOptions) {
    this.market = options.market;
    this.token = options.token ?? 'fake-metaapi-token-5c1d';
    this.accountId = options.accountId ?? '865d3a4d-3803-486d-bdf3-a85679d9fad2';
    this.leverage = options.leverage ?? 100;
    this.now = options.now ?? Date.now;
    this.options = options;
    this.terminal = new SimulatedTerminal({ market: options.market, balance: options.balance ?? '100000', leverage: this.leverage, reconnectAfterMs: 0 });
  }

  static async start(options: FakeMetaApiOptions): Promise<FakeMetaApiServer> {
    const fake = new FakeMetaApiServer(options);
    await fake.terminal.connect();
    fake.server = await LocalHttpServer.listen((req, res) => void fake.handle(req, res));
    return fake;
  }

  get baseUrl(): string {
    return this.server.baseUrl;
  }

  /** Arms a fault for the next request of its route (any route when none is named). */
  inject(fault: FakeFault): void {
    this.faults.push(fault);
  }

  /** Whether MetaApi's terminal is connected to the broker (false: 504 on reads, -10 on trades). */
  setBrokerConnected(connected: boolean): void {
    this.brokerConnected = connected;
  }

  /** Holds every request from now on unanswered, as a MetaApi that cannot be reached, until `comeBack()`. */
  goDown(): void {
    this.held ??= [];
  }

  /** Answers again; the requests held meanwhile have their connections cut. */
  comeBack(): void {
    for (const res of this.held ?? []) res.socket?.destroy();
    this.held = undefined;
  }

  /** The account deploys for `ms` from now: 202 Accepted with Retry-After, as an HTTP-date when asked. */
  deployFor(ms: number, retryAfter: 'seconds' | 'date' = 'seconds'): void {
    this.deployedAt = this.now() + ms;
    this.retryAfterAsDate = retryAfter === 'date';
  }

  /** The terminal connects and loads its history for `ms` from now (history routes answer what loaded: nothing). */
  synchronizeFor(ms: number): void {
    this.synchronizedAt = this.now() + ms;
  }

  /** Requests of a route received so far. */
  count(route: FakeRoute): number {
    return this.requests.filter((r) => r.route === route).length;
  }

  close(): Promise<void> {
    return this.server.close();
  }

  // --- dispatch ------------------------------------------------------------------------------

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    const body = await readBody(req);
    const match = /^\/users\/current\/accounts\/([^/]+)(?:\/(.+))?$/.exec(url.pathname);
    const rest = match?.[2] ?? '';
    const route = routeOf(req.method ?? '', rest);
    this.requests.push({ method: req.method ?? '', path: `${url.pathname}${url.search}`, route, headers: req.headers, body });
    const under = (this.inFlight.get(route) ?? 0) + 1;
    this.inFlight.set(route, under);
    this.peakInFlight.set(route, Math.max(under, this.peakInFlight.get(route) ?? 0));
    let ended = false;
    const end = () => {
      if (!ended) this.inFlight.set(route, (this.inFlight.get(route) ?? 1) - 1);
      ended = true;
    };
    res.on('finish', end).on('close', end);
    if (this.held) return void this.held.push(res);

    if (req.headers['auth-token'] !== this.token) return json(res, 401, errorBody('UnauthorizedError', 'Authorization token invalid'));
    if (!match || route === 'any') return json(res, 404, errorBody('NotFoundError', `Route ${req.method} ${url.pathname} not found`));
    if (decodeURIComponent(match[1] as string) !== this.accountId) {
      return json(res, 404, errorBody('NotFoundError', `Trading account with id ${match[1]} not found`));
    }
    if (route === 'account') return json(res, 200, this.provisionedAccount());
    if (this.overCredits(route)) return this.tooManyRequests(res, route);
    if (this.now() < this.deployedAt) return this.accepted(res);
    const index = this.faults.findIndex((f) => f.route === undefined || f.route === 'any' || f.route === route);
    const fault = index >= 0 ? this.faults.splice(index, 1)[0] : undefined;
    if (fault) {
      fault.onArrive?.();
      if (await this.applyFault(fault, req, res, body)) return;
    }
    if (!this.brokerConnected && route !== 'candles') {
      if (route === 'trade')
        return json(res, 200, {
          numericCode: -10,
          stringCode: 'TRADE_RETCODE_DISCONNECTED_BEFORE_TRADE',
          message: 'Terminal is disconnected from the trade server',
        });
      return json(
        res,
        504,
        errorBody(
          'TimeoutError',
          `It seems like the account ${this.accountId} is not connected to broker yet. Please make sure account is connected to broker before retrying the request.`,
        ),
      );
    }
    const segments = rest.split('/').map(decodeURIComponent);
    switch (route) {
      case 'account-information':
        return json(res, 200, this.accountInformation());
      case 'symbols':
        return json(
          res,
          200,
          this.market.symbols().map((spec) => spec.symbol),
        );
      case 'specification':
        return this.specification(res, segments[1] as string);
      case 'current-price':
        return this.currentPrice(res, segments[1] as string);
      case 'calculate-margin':
        return this.calculateMargin(res, body);
      case 'trade':
        return void (await this.trade(res, body));
      case 'positions':
        return json(
          res,
          200,
          (await this.terminal.positions()).map((p) => positionOf(p, this.closePriceOf(p.symbol, p.side), this.tickValueOf(p.symbol))),
        );
      case 'orders':
        return json(
          res,
          200,
          (await this.terminal.orders()).map((o) => pendingOrderOf(o, this.closePriceOf(o.symbol, o.type.startsWith('buy') ? 'sell' : 'buy'))),
        );
      // Still synchronizing: the REST routes answer the bare array of what has loaded so far.
      case 'history-orders':
        return this.historyOrders(res, segments, url.searchParams, this.now() < this.synchronizedAt ? [] : await this.records());
      case 'history-deals':
        return this.historyDeals(res, segments, url.searchParams, this.now() >= this.synchronizedAt);
      case 'candles':
        return this.candles(res, segments, url.searchParams);
    }
  }

  /** Answers per the fault; false when the request should still be served normally. */
  private async applyFault(fault: FakeFault, req: http.IncomingMessage, res: http.ServerResponse, body: unknown): Promise<boolean> {
    switch (fault.kind) {
      case 'hang':
        return true;
      case 'pass':
        return false;
      case 'reset':
        req.socket.destroy();
        return true;
      case 'status':
        json(res, fault.status, fault.body, fault.headers);
        return true;
      case 'trade-code':
        if (fault.execute) await this.execute(body);
        if (fault.thenDisconnect) this.brokerConnected = false;
        json(res, 200, { numericCode: fault.numericCode, stringCode: fault.stringCode, message: fault.message ?? fault.stringCode });
        return true;
      case 'execute-without': {
        const response = await this.execute(body);
        for (const field of fault.fields) delete response[field];
        json(res, 200, response);
        return true;
      }
      case 'execute-then-hang':
        await this.execute(body);
        return true;
      case 'execute-then-reset':
        await this.execute(body);
        req.socket.destroy();
        return true;
    }
  }

  // --- account life and limits ----------------------------------------------------------------

  /** MetatraderAccount as the provisioning API answers it. */
  private provisionedAccount(): Record<string, unknown> {
    const now = this.now();
    const connectionStatus =
      now < this.deployedAt || now < this.synchronizedAt ? 'DISCONNECTED' : this.brokerConnected ? 'CONNECTED' : 'DISCONNECTED_FROM_BROKER';
    return {
      _id: this.accountId,
      name: 'Fake Trader',
      type: 'cloud-g2',
      login: '5012345',
      server: 'FakeMarkets-Demo',
      platform: 'mt5',
      region: 'new-york',
      state: now < this.deployedAt ? 'DEPLOYING' : 'DEPLOYED',
      connectionStatus,
      reliability: 'regular',
    };
  }

  /** 202 Accepted while deploying: "retry-after: interval in seconds to retry" (or an HTTP-date, which RFC 9110 allows). */
  private accepted(res: http.ServerResponse): void {
    const seconds = Math.max(1, Math.min(5, Math.ceil((this.deployedAt - this.now()) / 1000)));
    const retryAfter = this.retryAfterAsDate ? new Date(this.now() + seconds * 1000).toUTCString() : String(seconds);
    json(res, 202, { message: 'The account is being deployed, please retry later' }, { 'retry-after': retryAfter });
  }

  /** Whether this request would take its API past `creditLimit` over the last second; charges it when not. */
  private overCredits(route: FakeRoute): boolean {
    const limit = this.options.creditLimit;
    if (!limit) return false;
    const window = this.charged[route === 'candles' ? 'market-data' : 'client'];
    const now = this.now();
    while (window.length > 0 && (window[0] as number) <= now - 1000) window.shift();
    if ((window.length + 1) * limit.creditsPerRequest > limit.creditsPerSecond) return true;
    window.push(now);
    return false;
  }

  private tooManyRequests(res: http.ServerResponse, route: FakeRoute): void {
    this.throttled++;
    const limit = this.options.creditLimit as { creditsPerSecond: number; creditsPerRequest: number };
    const window = this.charged[route === 'candles' ? 'market-data' : 'client'];
    const retryAt = (window[0] as number) + 1000;
    json(
      res,
      429,
      errorBody('TooManyRequestsError', `The API allows ${limit.creditsPerSecond} cpu credits per 1s to avoid overloading our servers.`, {
        metadata: {
          periodInSeconds: 1,
          creditsAvailable: limit.creditsPerSecond,
          creditsUsed: window.length * limit.creditsPerRequest,
          creditsRequired: limit.creditsPerRequest,
          recommendedRetryTime: iso(retryAt),
        },
      }),
      { 'retry-after': String(Math.max(1, Math.ceil((retryAt - this.now()) / 1000))) },
    );
  }

  // --- terminal state ---------------------------------------------------------------------------

  private accountInformation(): Record<string, unknown> {
    const state = this.terminal.accountState();
    return {
      platform: 'mt5',
      broker: 'Fake Markets Ltd',
      currency: state.currency,
      server: 'FakeMarkets-Demo',
      balance: state.balance,
      equity: state.equity,
      margin: state.margin,
      freeMargin: state.marginFree,
      leverage: this.leverage,
      marginLevel: state.marginLevel,
      tradeAllowed: true,
      marginMode: 'ACCOUNT_MARGIN_MODE_RETAIL_HEDGING',
      name: 'Fake Trader',
      login: 5_012_345,
      credit: 0,
      type: this.options.tradeMode ?? 'ACCOUNT_TRADE_MODE_DEMO',
    };
  }

  /** MetatraderSymbolSpecification of a simulated symbol; sessions in broker time (UTC+2). */
  private specification(res: http.ServerResponse, symbol: string): void {
    const spec = this.market.spec(symbol);
    if (!spec) return json(res, 404, errorBody('NotFoundError', `Specification for ${symbol} symbol not found`));
    const info = simulatedSymbolInfo(spec, 'full');
    // Sunday 22:00 to Friday 22:00 UTC is Monday 00:00 to Saturday 00:00 at UTC+2.
    const weekendOpen = this.market.isOpen(A_SATURDAY_NOON);
    const sessions = Object.fromEntries(
      WEEKDAYS.map((day) => [day, weekendOpen || (day !== 'SATURDAY' && day !== 'SUNDAY') ? [{ from: '00:00:00.000', to: '23:59:59.999' }] : []]),
    );
    json(res, 200, {
      symbol,
      tickSize: spec.point,
      minVolume: Number(info.volumeMin),
      maxVolume: Number(info.volumeMax),
      volumeStep: Number(info.volumeStep),
      fillingModes: this.fillingModesOf(symbol),
      executionMode: 'SYMBOL_TRADE_EXECUTION_MARKET',
      contractSize: spec.contractSize,
      quoteSessions: sessions,
      tradeSessions: sessions,
      tradeMode: 'SYMBOL_TRADE_MODE_FULL',
      initialMargin: 0,
      maintenanceMargin: 0,
      hedgedMargin: spec.contractSize / 2,
      marginCurrency: spec.base,
      priceCalculationMode: 'SYMBOL_CALC_MODE_FOREX',
      baseCurrency: spec.base,
      profitCurrency: spec.quote,
      swapMode: 'SYMBOL_SWAP_MODE_POINTS',
      allowedExpirationModes: ['SYMBOL_EXPIRATION_GTC', 'SYMBOL_EXPIRATION_DAY', 'SYMBOL_EXPIRATION_SPECIFIED', 'SYMBOL_EXPIRATION_SPECIFIED_DAY'],
      allowedOrderTypes: [
        'SYMBOL_ORDER_MARKET',
        'SYMBOL_ORDER_LIMIT',
        'SYMBOL_ORDER_STOP',
        'SYMBOL_ORDER_STOP_LIMIT',
        'SYMBOL_ORDER_SL',
        'SYMBOL_ORDER_TP',
        'SYMBOL_ORDER_CLOSEBY',
      ],
      orderGTCMode: 'SYMBOL_ORDERS_GTC',
      digits: spec.digits,
      point: spec.point,
      path: `Forex\\${spec.symbol}`,
      description: spec.description,
      pipSize: spec.point * 10,
      stopsLevel: info.stopsLevel,
      freezeLevel: info.freezeLevel,
    });
  }

  private currentPrice(res: http.ServerResponse, symbol: string): void {
    const spec = this.market.spec(symbol);
    const tick = spec ? this.market.lastTick(symbol) : null;
    if (!spec || !tick) return json(res, 404, errorBody('NotFoundError', `Price for ${symbol} symbol not found`));
    const tickValue = this.tickValueOf(symbol);
    json(res, 200, {
      symbol,
      bid: tick.bid,
      ask: tick.ask,
      profitTickValue: tickValue,
      lossTickValue: tickValue,
      time: iso(tick.time),
      brokerTime: brokerTime(tick.time),
    });
  }

  /** The value of a point of one lot in the account currency (USD). */
  private tickValueOf(symbol: string): number {
    const spec = this.market.spec(symbol)!;
    return spec.contractSize * spec.point * (this.market.rate(spec.quote, 'USD') ?? 0);
  }

  /** The price a position of `side` closes at now: the bid for a buy, the ask for a sell. */
  private closePriceOf(symbol: string, side: 'buy' | 'sell'): number | undefined {
    const tick = this.market.lastTick(symbol);
    return tick ? (side === 'buy' ? tick.bid : tick.ask) : undefined;
  }

  /** The simulated terminal's margin: notional / leverage in the account currency. */
  private calculateMargin(res: http.ServerResponse, body: unknown): void {
    const order = body as { symbol?: string; type?: string; volume?: number; openPrice?: number };
    const spec = order.symbol ? this.market.spec(order.symbol) : undefined;
    if (!spec || typeof order.volume !== 'number' || !(order.volume > 0) || typeof order.openPrice !== 'number') {
      return json(
        res,
        400,
        errorBody('ValidationError', 'Validation failed', { details: [{ parameter: 'order', message: 'symbol, type, volume and openPrice are required' }] }),
      );
    }
    const rate = this.market.rate(spec.base, 'USD') ?? 0;
    json(res, 200, { margin: ((order.volume * spec.contractSize) / this.leverage) * rate });
  }

  private fillingModesOf(symbol: string): string[] {
    return this.options.fillingModes?.[symbol] ?? FILLING_MODES;
  }

  private async trade(res: http.ServerResponse, body: unknown): Promise<void> {
    const problem = tradeBodyProblem(body);
    if (problem) return json(res, 400, errorBody('ValidationError', 'Validation failed', { details: [problem] }));
    const trade = body as TradeBody;
    const isMarket = trade.actionType === 'ORDER_TYPE_BUY' || trade.actionType === 'ORDER_TYPE_SELL';
    const allowed = this.fillingModesOf(trade.symbol);
    if (isMarket && trade.fillingModes && !trade.fillingModes.some((m) => allowed.includes(m))) {
      return json(res, 200, { numericCode: 10030, stringCode: 'TRADE_RETCODE_INVALID_FILL', message: 'Unsupported filling mode' });
    }
    json(res, 200, await this.execute(body));
  }

  /** Runs a MetatraderTrade on the terminal and answers its MetatraderTradeResponse. */
  private async execute(body: unknown): Promise<Record<string, unknown>> {
    const trade = body as TradeBody;
    if (!isNewOrder(trade)) return this.actOnTicket(trade);
    const request = tradeRequestOf(trade, this.fillingModesOf(trade.symbol));
    this.magics.add(request.magic);
    return responseOf(await this.terminal.orderSend(request));
  }

  /** POSITION_CLOSE_ID, POSITION_PARTIAL, POSITION_MODIFY or ORDER_CANCEL on a position or order the terminal holds. */
  private async actOnTicket(trade: TradeBody): Promise<Record<string, unknown>> {
    if (trade.actionType === 'ORDER_CANCEL') {
      if (!(await this.terminal.orders()).some((o) => o.ticket === trade.orderId)) {
        return { numericCode: 4754, stringCode: 'ERR_TRADE_ORDER_NOT_FOUND', message: 'Order not found' };
      }
      return responseOf(await this.terminal.cancelOrder({ order: trade.orderId! }));
    }
    const position = (await this.terminal.positions()).find((p) => p.ticket === trade.positionId);
    if (!position) return { numericCode: 4753, stringCode: 'ERR_TRADE_POSITION_NOT_FOUND', message: 'Position not found' };
    if (trade.actionType === 'POSITION_MODIFY') {
      const stop = (value: number | undefined) => (value === undefined ? null : decimal(value));
      return responseOf(await this.terminal.modifyPosition({ position: position.ticket, sl: stop(trade.stopLoss), tp: stop(trade.takeProfit) }));
    }
    const magic = trade.magic ?? 0;
    this.magics.add(magic);
    const result = await this.terminal.closePosition({
      position: position.ticket,
      volume: trade.actionType === 'POSITION_CLOSE_ID' ? position.volume : decimal(trade.volume),
      deviation: trade.slippage,
      magic,
      comment: trade.comment ?? '',
    });
    if (result.deal && result.order) this.closingOrders.set(result.deal, result.order);
    return responseOf(result);
  }

  /** The order a deal belongs to: a close's own order, an opening deal's the position's (none for an SL/TP close). */
  private orderOfDeal(deal: TerminalRecord): string | undefined {
    return this.closingOrders.get(deal.ticket) ?? (this.isExit(deal) ? undefined : (deal.position ?? undefined));
  }

  /** A deal of a close or of an SL/TP (`[sl 1.0812]`) takes volume out of its position. */
  private isExit(deal: TerminalRecord): boolean {
    return this.closingOrders.has(deal.ticket) || deal.comment.startsWith('[');
  }

  /** Every order and deal of the terminal (its lookup is by magic: every magic seen is asked). */
  private async records(): Promise<TerminalRecord[]> {
    const byMagic = await Promise.all([...this.magics].map((magic) => this.terminal.findByComment('', magic)));
    return byMagic.flat();
  }

  /** history-orders/time/:startTime/:endTime (start inclusive, end exclusive), paginated. */
  private historyOrders(res: http.ServerResponse, segments: string[], query: URLSearchParams, all: TerminalRecord[]): void {
    const range = timeRangeOf(segments);
    if (!range) return json(res, 400, errorBody('ValidationError', 'startTime and endTime must be ISO dates'));
    const orders = all.filter((r) => r.kind === 'order' && r.state !== 'placed' && r.time >= range.from && r.time < range.to);
    const page = pageOf(orders, query);
    if (!page) return json(res, 400, errorBody('ValidationError', 'limit must be between 1 and 1000'));
    json(
      res,
      200,
      page.map((r) => orderOf(r, all, (d) => this.orderOfDeal(d))),
    );
  }

  /**
   * history-deals/time/:startTime/:endTime (start inclusive, end exclusive, paginated) or
   * history-deals/position/:positionId (not paginated), from the simulated MT5's deals.
   */
  private async historyDeals(res: http.ServerResponse, segments: string[], query: URLSearchParams, isLoaded: boolean): Promise<void> {
    let deals: TerminalDeal[];
    if (segments[1] === 'position') {
      deals = await this.terminal.deals({ from: 0, to: Number.MAX_SAFE_INTEGER, position: segments[2] });
    } else {
      const range = timeRangeOf(segments);
      if (!range) return json(res, 400, errorBody('ValidationError', 'startTime and endTime must be ISO dates'));
      const page = pageOf(await this.terminal.deals(range), query);
      if (!page) return json(res, 400, errorBody('ValidationError', 'limit must be between 1 and 1000'));
      deals = page;
    }
    json(res, 200, isLoaded ? deals.map(dealOf) : []);
  }

  /** historical-market-data/symbols/:symbol/timeframes/:tf/candles: the `limit` candles up to `startTime` (backwards). */
  private candles(res: http.ServerResponse, segments: string[], query: URLSearchParams): void {
    const symbol = segments[2] as string;
    const timeframe = TIMEFRAMES.find((t: Timeframe) => METAAPI_TIMEFRAMES[t] === segments[4]);
    if (!this.market.spec(symbol)) return json(res, 404, errorBody('NotFoundError', `Symbol ${symbol} not found`));
    const limit = Number(query.get('limit') ?? 1000);
    if (!timeframe || !(limit >= 1 && limit <= 1000)) return json(res, 400, errorBody('ValidationError', 'Validation failed'));
    // The candles up to the one holding startTime, that one whole when its period has passed (as MT5 keeps history).
    const startTime = query.get('startTime');
    const periodMs = TIMEFRAME_SECONDS[timeframe] * 1000;
    const at = startTime ? Math.min(this.now(), Math.floor(Date.parse(startTime) / periodMs) * periodMs + periodMs - 1) : undefined;
    const bars = this.market.bars(symbol, timeframe, limit, at);
    json(
      res,
      200,
      bars.map((b) => ({
        symbol,
        timeframe: segments[4],
        time: iso(b.time * 1000),
        brokerTime: brokerTime(b.time * 1000),
        open: b.open,
        high: b.high,
        low: b.low,
        close: b.close,
        tickVolume: b.tickVolume,
        spread: b.spread ?? 0,
        volume: 0,
      })),
    );
  }
}

/** :startTime/:endTime of a history route (segments 2 and 3), or undefined when either is not a date. */
function timeRangeOf(segments: string[]): { from: number; to: number } | undefined {
  const from = Date.parse(segments[2] as string);
  const to = Date.parse(segments[3] as string);
  return Number.isNaN(from) || Number.isNaN(to) ? undefined : { from, to };
}

/** The page `offset` and `limit` ask for ("limit … default: 1000, min: 1, max: 1000"), oldest first; undefined for a limit out of range. */
function pageOf<T extends { time: number }>(items: T[], query: URLSearchParams): T[] | undefined {
  const offset = Number(query.get('offset') ?? 0);
  const limit = Number(query.get('limit') ?? 1000);
  if (!(limit >= 1 && limit <= 1000)) return undefined;
  return [...items].sort((a, b) => a.time - b.time).slice(offset, offset + limit);
}

/** A MetatraderTradeResponse of the terminal's result. */
function responseOf(result: TradeResult): Record<string, unknown> {
  return {
    numericCode: result.retcode,
    stringCode: retcodeName(result.retcode),
    message: result.comment,
    ...(result.order ? { orderId: result.order } : {}),
    ...(result.position ? { positionId: result.position } : {}),
  };
}

function routeOf(method: string, rest: string): FakeRoute {
  if (method === 'GET' && rest === '') return 'account';
  if (method === 'POST' && rest === 'trade') return 'trade';
  if (method === 'POST' && rest === 'calculate-margin') return 'calculate-margin';
  if (method !== 'GET') return 'any';
  if (rest === 'account-information') return 'account-information';
  if (rest === 'positions') return 'positions';
  if (rest === 'orders') return 'orders';
  if (rest === 'symbols') return 'symbols';
  if (/^symbols\/[^/]+\/specification$/.test(rest)) return 'specification';
  if (/^symbols\/[^/]+\/current-price$/.test(rest)) return 'current-price';
  if (/^history-orders\/time\/[^/]+\/[^/]+$/.test(rest)) return 'history-orders';
  if (/^history-deals\/(time\/[^/]+\/[^/]+|position\/[^/]+)$/.test(rest)) return 'history-deals';
  if (/^historical-market-data\/symbols\/[^/]+\/timeframes\/[^/]+\/candles$/.test(rest)) return 'candles';
  return 'any';
}

async function readBody(req: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  if (chunks.length === 0) return undefined;
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    return null;
  }
}
