import http from 'node:http';
import type { Clock, TimerHandle } from '@fxdesk/primitives';
import type { SimulatedMarket } from '../../src/simulated/market.js';
import type { Quote } from '../../src/types.js';
import { LocalHttpServer } from '../local-http-server.js';
import { FAKE_INSTRUMENTS, FakeV20Account } from './fake-v20-account.js';
import { FakeV20Venue, type VenueAnswer } from './fake-v20-venue.js';

/**
 * A local stand-in for the OANDA v20 REST API (the Account endpoints), answering with the
 * documented shapes and statuses:
 * - `GET /v3/accounts/{id}/summary`, `GET /v3/accounts/{id}`, `GET /v3/accounts/{id}/instruments`
 *   (`instruments` csv filter), `GET /v3/accounts/{id}/changes?sinceTransactionID=N`;
 * - 401 `{ errorMessage: "Insufficient authorization to perform request." }` without the right
 *   `Authorization: Bearer <token>`, 403 "The provided request was forbidden." for another
 *   account id (Troubleshooting & Errors), 404 for unknown paths, 405 for other methods,
 *   416 for a sinceTransactionID past the last transaction.
 * Faults on demand, each for the next request: a status with an error body (429 with
 * Retry-After, 5xx…), any JSON body, a hang (never answers), a malformed JSON body, a reset
 * connection.
 * With a `market` (and its `clock`), the account trades: the Order, Trade, Transaction, Pricing
 * and Instrument endpoints answer from a `FakeV20Venue` over that market (see fake-v20-venue.ts),
 * the account's details, summary, changes and instruments are the venue's, and the pricing stream
 * (`GET /v3/accounts/{id}/pricing/stream?instruments=A,B`, the stream host's path) answers
 * newline-delimited JSON: a PRICE snapshot of each instrument, then a PRICE line for each of the
 * market's ticks and a HEARTBEAT line every 5 s (Pricing endpoints: "a PricingHeartbeat object is
 * injected into the Pricing stream to ensure that the HTTP connection remains active"). Stream
 * controls: `dropStreams()` (open streams are cut and new ones refused until `restoreStreams()`),
 * `silenceStreams()` (streams stay open and go quiet: no price, no heartbeat). `goDown()` holds
 * every request unanswered (a venue that cannot be reached) until `comeBack()`.
 * Route faults (`route`: `POST orders`, `PUT orders/cancel`, `PUT trades/close`,
 * `PUT trades/orders`, `GET` (any read)) apply to the next request of that route; besides the
 * kinds above, `execute-then-hang` and `execute-then-reset` carry the request out and lose the
 * answer. `onArrive` runs when the faulted request arrives (a test moves the adapter's clock there).
 * With `requestsPerSecond`, OANDA's Best Practices limit is enforced: a request past that many in
 * the last second (on `now`) is answered 429 and counted in `throttled`. New TCP connections are
 * timed on the wall clock (`mostConnectionsInOneSecond`), against the recommended 2 per second.
 */

export type FaultRoute = 'POST orders' | 'PUT orders/cancel' | 'PUT trades/close' | 'PUT trades/orders' | 'GET';

export type Fault = { route?: FaultRoute; onArrive?: () => void } & (
  | { kind: 'status'; status: number; errorMessage: string; errorCode?: string; headers?: Record<string, string> }
  | { kind: 'json'; status: number; body: unknown }
  | { kind: 'hang' }
  | { kind: 'malformed' }
  | { kind: 'reset' }
  | { kind: 'execute-then-hang' }
  | { kind: 'execute-then-reset' }
);

export interface RecordedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface FakeV20Options {
  token?: string;
  accountId?: string;
  now?: () => Date;
  /** Requests allowed in any one second; no limit when omitted. */
  requestsPerSecond?: number;
  /** A market to trade on, with the clock it runs on: turns on the trading endpoints and the pricing stream. */
  market?: SimulatedMarket;
  clock?: Clock;
  /** Units at the best price, per side (default 1 000 000). */
  liquidityUnits?: number;
}

/** v20 PricingHeartbeat period on the stream: every 5 seconds. */
export const HEARTBEAT_MS = 5_000;

interface OpenStream {
  res: http.ServerResponse;
  instruments: Set<string>;
  lines: number;
}

const json = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), RequestID: '24825957340123456', ...headers });
  res.end(text);
};

export class FakeV20Server {
  readonly token: string;
  readonly account: FakeV20Account;
  /** The trading account, when started with a market. */
  readonly venue: FakeV20Venue | undefined;
  readonly requests: RecordedRequest[] = [];
  /** Lines written to pricing streams so far (PRICE and HEARTBEAT). */
  streamLines = 0;
  /** Pricing stream requests accepted so far. */
  streamsOpened = 0;
  private readonly streams = new Set<OpenStream>();
  private streamsDown = false;
  /** Requests held unanswered while the venue cannot be reached (`goDown()`). */
  private held: http.ServerResponse[] | undefined;
  private streamsSilent = false;
  private heartbeat: TimerHandle | undefined;
  private unsubscribeTicks: (() => void) | undefined;
  private readonly faults: Fault[] = [];
  private readonly waiters: { count: number; resolve: () => void }[] = [];
  /** Arrival times of the requests served over the last second. */
  private readonly served: number[] = [];
  /** Requests answered 429 for going past `requestsPerSecond`. */
  throttled = 0;
  private server!: LocalHttpServer;

  private constructor(private readonly options: FakeV20Options) {
    this.token = options.token ?? 'fake-oanda-token-7f3a9c';
    const id = options.accountId ?? '101-004-1435156-001';
    this.account = new FakeV20Account({ id, now: options.now });
    const { market, clock } = options;
    if (market && clock) {
      this.venue = new FakeV20Venue({ market, accountId: id, now: () => clock.now(), liquidityUnits: options.liquidityUnits });
    }
  }

  static async start(options: FakeV20Options = {}): Promise<FakeV20Server> {
    const fake = new FakeV20Server(options);
    fake.server = await LocalHttpServer.listen((req, res) => fake.handle(req, res));
    return fake;
  }

  get baseUrl(): string {
    return this.server.baseUrl;
  }

  /** TCP connections accepted so far (keep-alive reuses them). */
  get connections(): number {
    return this.server.connections;
  }

  /** The most new TCP connections accepted within any one second of wall-clock time. */
  mostConnectionsInOneSecond(): number {
    const times = this.server.connectedAt;
    return Math.max(0, ...times.map((start) => times.filter((t) => t >= start && t < start + 1000).length));
  }

  /** Queues a fault for the next request. */
  inject(fault: Fault): void {
    this.faults.push(fault);
  }

  /** Resolves once `count` requests in all have arrived. */
  waitForRequests(count: number): Promise<void> {
    if (this.requests.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ count, resolve }));
  }

  /** Pricing streams open now. */
  get openStreams(): number {
    return this.streams.size;
  }

  /** Cuts every open pricing stream and refuses new ones until `restoreStreams()`. */
  dropStreams(): void {
    this.streamsDown = true;
    for (const stream of this.streams) stream.res.socket?.destroy();
    this.streams.clear();
  }

  restoreStreams(): void {
    this.streamsDown = false;
    this.streamsSilent = false;
  }

  /** Holds every request from now on unanswered, as a venue that cannot be reached, until `comeBack()`. */
  goDown(): void {
    this.held ??= [];
  }

  /** Answers again; the requests held meanwhile have their connections cut. */
  comeBack(): void {
    for (const res of this.held ?? []) res.socket?.destroy();
    this.held = undefined;
  }

  /** Open streams stay open and write nothing more (no price, no heartbeat): a stalled link. */
  silenceStreams(): void {
    this.streamsSilent = true;
  }

  close(): Promise<void> {
    this.unsubscribeTicks?.();
    this.options.market?.stop();
    if (this.heartbeat) this.options.clock?.clearTimer(this.heartbeat);
    for (const stream of this.streams) stream.res.destroy();
    this.streams.clear();
    return this.server.close();
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => this.route(req, res, Buffer.concat(chunks).toString('utf8')));
  }

  private route(req: http.IncomingMessage, res: http.ServerResponse, bodyText: string): void {
    this.requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: bodyText });
    for (const waiter of this.waiters.filter((w) => this.requests.length >= w.count)) {
      this.waiters.splice(this.waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
    if (this.held) return void this.held.push(res);
    if (this.overLimit()) {
      this.throttled++;
      return json(res, 429, { errorMessage: 'Too many requests: the rate limit was exceeded.' });
    }
    const url = new URL(req.url ?? '/', 'http://fake');
    const fault = this.takeFault(req.method ?? '', url.pathname);
    if (fault) {
      fault.onArrive?.();
      if (fault.kind !== 'execute-then-hang' && fault.kind !== 'execute-then-reset') return this.applyFault(fault, req, res);
    }
    if (req.headers.authorization !== `Bearer ${this.token}`) {
      return json(res, 401, { errorMessage: 'Insufficient authorization to perform request.' });
    }
    if (this.venue) {
      const answer = this.venueAnswer(req.method ?? '', url, bodyText, req, res);
      if (answer === 'streaming') return;
      if (answer) {
        if (fault?.kind === 'execute-then-hang') return;
        if (fault?.kind === 'execute-then-reset') return void req.socket.destroy();
        return json(res, answer.status, answer.body);
      }
    }
    const match = /^\/v3\/accounts\/([^/]+)(\/summary|\/instruments|\/changes)?$/.exec(url.pathname);
    if (!match) return json(res, 404, { errorMessage: `The path ${url.pathname} was not found.` });
    if (req.method !== 'GET') return json(res, 405, { errorMessage: `The method ${req.method} is not allowed.` });
    if (decodeURIComponent(match[1] as string) !== this.account.id) return json(res, 403, { errorMessage: 'The provided request was forbidden.' });
    switch (match[2]) {
      case '/summary':
        return json(res, 200, this.account.summaryBody());
      case undefined:
        return json(res, 200, this.account.detailsBody());
      case '/instruments':
        return this.instruments(url, res);
      default:
        return this.changes(url, res);
    }
  }

  /** Whether this request would be past `requestsPerSecond` over the last second; counts it when not. */
  private overLimit(): boolean {
    const limit = this.options.requestsPerSecond;
    if (limit === undefined) return false;
    const now = (this.options.now ?? (() => new Date()))().getTime();
    while (this.served.length > 0 && (this.served[0] as number) <= now - 1000) this.served.shift();
    if (this.served.length >= limit) return true;
    this.served.push(now);
    return false;
  }

  /** The next queued fault for this request: one of its route, or one for any request. */
  private takeFault(method: string, path: string): Fault | undefined {
    const route = routeOf(method, path);
    const index = this.faults.findIndex((f) => f.route === undefined || f.route === route || (f.route === 'GET' && method === 'GET'));
    return index < 0 ? undefined : this.faults.splice(index, 1)[0];
  }

  /** The trading endpoints, answered by the venue; undefined for a path the venue does not serve. */
  private venueAnswer(method: string, url: URL, bodyText: string, req: http.IncomingMessage, res: http.ServerResponse): VenueAnswer | 'streaming' | undefined {
    const venue = this.venue as FakeV20Venue;
    const candles = /^\/v3\/instruments\/([^/]+)\/candles$/.exec(url.pathname);
    if (candles && method === 'GET') return venue.candles(decodeURIComponent(candles[1] as string), url.searchParams);
    const match = /^\/v3\/accounts\/([^/]+)(\/.*)?$/.exec(url.pathname);
    if (!match) return undefined;
    if (decodeURIComponent(match[1] as string) !== venue.accountId) return { status: 403, body: { errorMessage: 'The provided request was forbidden.' } };
    const rest = match[2] ?? '';
    let body: Record<string, unknown> = {};
    if (bodyText) {
      try {
        body = JSON.parse(bodyText) as Record<string, unknown>;
      } catch {
        return { status: 400, body: { errorMessage: 'Invalid JSON in the request body' } };
      }
    }
    const list = (name: string) => (url.searchParams.get(name) ?? '').split(',').filter(Boolean);
    const specifier = (m: RegExpExecArray) => decodeURIComponent(m[1] as string);
    const ok = (b: Record<string, unknown>): VenueAnswer => ({ status: 200, body: b });
    let m: RegExpExecArray | null;
    const route = `${method} ${rest}`;
    if (route === 'GET ') return ok(venue.detailsBody());
    if (route === 'GET /summary') return ok(venue.summaryBody());
    if (route === 'GET /changes') return venue.changes(url.searchParams);
    if (route === 'GET /instruments')
      return ok({ instruments: venue.instruments(list('instruments').length ? list('instruments') : undefined), lastTransactionID: venue.lastTransactionID });
    if (route === 'GET /pricing') return venue.pricing(list('instruments'));
    if (route === 'GET /pricing/stream') return this.openStream(list('instruments'), req, res);
    if (route === 'POST /orders') return venue.createOrder(body);
    if (route === 'GET /pendingOrders') return ok(venue.pendingOrders());
    if (route === 'GET /openTrades') return ok(venue.openTradesBody());
    if (route === 'GET /transactions') return venue.transactionPages(this.baseUrl, url.searchParams);
    if (route === 'GET /transactions/idrange') return venue.transactionRange(url.searchParams);
    if (method === 'GET' && (m = /^\/orders\/([^/]+)$/.exec(rest))) return venue.getOrder(specifier(m));
    if (method === 'PUT' && (m = /^\/orders\/([^/]+)\/cancel$/.exec(rest))) return venue.cancelOrder(specifier(m));
    if (method === 'GET' && (m = /^\/trades\/([^/]+)$/.exec(rest))) return venue.getTrade(specifier(m));
    if (method === 'PUT' && (m = /^\/trades\/([^/]+)\/close$/.exec(rest))) return venue.closeTrade(specifier(m), body);
    if (method === 'PUT' && (m = /^\/trades\/([^/]+)\/orders$/.exec(rest))) return venue.setDependentOrders(specifier(m), body);
    if (method === 'PUT' && (m = /^\/trades\/([^/]+)\/clientExtensions$/.exec(rest))) return venue.setTradeClientExtensions(specifier(m), body);
    return undefined;
  }

  /** Opens a pricing stream: a snapshot of each instrument's price, then its ticks and the heartbeats. */
  private openStream(instruments: string[], req: http.IncomingMessage, res: http.ServerResponse): 'streaming' | VenueAnswer {
    if (this.streamsDown) {
      req.socket.destroy();
      return 'streaming';
    }
    const venue = this.venue as FakeV20Venue;
    const known = new Set(venue.instruments().map((i) => i.name as string));
    if (instruments.length === 0 || instruments.some((i) => !known.has(i)))
      return { status: 400, body: { errorMessage: "Invalid value specified for 'instruments'" } };
    this.streamsOpened++;
    this.startTicking();
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'transfer-encoding': 'chunked', RequestID: '24825957340123457' });
    const stream: OpenStream = { res, instruments: new Set(instruments), lines: 0 };
    this.streams.add(stream);
    res.on('close', () => this.streams.delete(stream));
    for (const instrument of instruments) {
      const price = venue.priceOf(instrument);
      if (price) this.writeLine(stream, price);
    }
    return 'streaming';
  }

  /** The market ticks live (and heartbeats run) once a first stream opens: a fake that only trades replays ticks lazily. */
  private startTicking(): void {
    const { market, clock } = this.options;
    if (this.heartbeat || !market || !clock) return;
    market.start();
    this.unsubscribeTicks = market.onTick((tick) => this.streamTick(tick));
    this.heartbeat = clock.setInterval(() => this.writeHeartbeats(), HEARTBEAT_MS);
  }

  /** Lines written so far on each pricing stream open now. */
  linesPerOpenStream(): number[] {
    return [...this.streams].map((s) => s.lines);
  }

  private streamTick(tick: Quote): void {
    if (this.streamsSilent || this.streams.size === 0) return;
    const instrument = `${tick.symbol.slice(0, 3)}_${tick.symbol.slice(3)}`;
    for (const stream of this.streams) {
      if (!stream.instruments.has(instrument)) continue;
      const price = this.venue?.priceOf(instrument, tick);
      if (price) this.writeLine(stream, price);
    }
  }

  private writeHeartbeats(): void {
    if (this.streamsSilent) return;
    const time = new Date(this.options.clock!.now()).toISOString().replace(/\.(\d{3})Z$/, '.$1000000Z');
    for (const stream of this.streams) this.writeLine(stream, { type: 'HEARTBEAT', time });
  }

  private writeLine(stream: OpenStream, body: unknown): void {
    this.streamLines++;
    stream.lines++;
    stream.res.write(`${JSON.stringify(body)}\n`);
  }

  private instruments(url: URL, res: http.ServerResponse): void {
    const filter = url.searchParams.get('instruments');
    const names = filter ? filter.split(',') : undefined;
    const unknown = names?.filter((n) => !FAKE_INSTRUMENTS.some((i) => i.name === n)) ?? [];
    if (unknown.length > 0) return json(res, 400, { errorMessage: "Invalid value specified for 'instruments'" });
    const instruments = names ? FAKE_INSTRUMENTS.filter((i) => names.includes(i.name as string)) : FAKE_INSTRUMENTS;
    json(res, 200, { instruments, lastTransactionID: this.account.lastTransactionID });
  }

  private changes(url: URL, res: http.ServerResponse): void {
    const since = url.searchParams.get('sinceTransactionID');
    if (since === null || !/^\d+$/.test(since)) return json(res, 400, { errorMessage: "Invalid value specified for 'sinceTransactionID'" });
    if (Number(since) > Number(this.account.lastTransactionID)) {
      return json(res, 416, { errorCode: 'INVALID_RANGE', errorMessage: 'The sinceTransactionID is beyond the last transaction of the Account.' });
    }
    json(res, 200, this.account.changesBody(Number(since)));
  }

  private applyFault(fault: Fault, req: http.IncomingMessage, res: http.ServerResponse): void {
    switch (fault.kind) {
      case 'status':
        return json(res, fault.status, { ...(fault.errorCode ? { errorCode: fault.errorCode } : {}), errorMessage: fault.errorMessage }, fault.headers);
      case 'json':
        return json(res, fault.status, fault.body);
      case 'hang':
        return; // never answers; close() destroys the socket
      case 'malformed':
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"account": {"id": "101-004-1435156-001", "balance": "1000');
        return;
      case 'reset':
      case 'execute-then-reset':
        req.socket.destroy();
        return;
      case 'execute-then-hang':
        return;
    }
  }
}

function routeOf(method: string, path: string): FaultRoute | undefined {
  if (method === 'POST' && /\/orders$/.test(path)) return 'POST orders';
  if (method === 'PUT' && /\/orders\/[^/]+\/cancel$/.test(path)) return 'PUT orders/cancel';
  if (method === 'PUT' && /\/trades\/[^/]+\/close$/.test(path)) return 'PUT trades/close';
  if (method === 'PUT' && /\/trades\/[^/]+\/orders$/.test(path)) return 'PUT trades/orders';
  return method === 'GET' ? 'GET' : undefined;
}
