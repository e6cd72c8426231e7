import http from 'node:http';
import { LocalHttpServer } from '../local-http-server.js';
import { FAKE_INSTRUMENTS, FakeV20Account } from './fake-v20-account.js';

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
 * With `requestsPerSecond`, OANDA's Best Practices limit is enforced: a request past that many in
 * the last second (on `now`) is answered 429 and counted in `throttled`. New TCP connections are
 * timed on the wall clock (`mostConnectionsInOneSecond`), against the recommended 2 per second.
 */

export type Fault =
  | { kind: 'status'; status: number; errorMessage: string; errorCode?: string; headers?: Record<string, string> }
  | { kind: 'json'; status: number; body: unknown }
  | { kind: 'hang' }
  | { kind: 'malformed' }
  | { kind: 'reset' };

export interface RecordedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
}

export interface FakeV20Options {
  token?: string;
  accountId?: string;
  now?: () => Date;
  /** Requests allowed in any one second; no limit when omitted. */
  requestsPerSecond?: number;
}

const json = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), RequestID: '24825957340123456', ...headers });
  res.end(text);
};

export class FakeV20Server {
  readonly token: string;
  readonly account: FakeV20Account;
  readonly requests: RecordedRequest[] = [];
  private readonly faults: Fault[] = [];
  private readonly waiters: { count: number; resolve: () => void }[] = [];
  /** Arrival times of the requests served over the last second. */
  private readonly served: number[] = [];
  /** Requests answered 429 for going past `requestsPerSecond`. */
  throttled = 0;
  private server!: LocalHttpServer;

  private constructor(private readonly options: FakeV20Options) {
    this.token = options.token ?? 'fake-oanda-token-7f3a9c';
    this.account = new FakeV20Account({ id: options.accountId ?? '101-004-1435156-001', now: options.now });
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

  close(): Promise<void> {
    return this.server.close();
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    this.requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    for (const waiter of this.waiters.filter((w) => this.requests.length >= w.count)) {
      this.waiters.splice(this.waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
    if (this.overLimit()) {
      this.throttled++;
      return json(res, 429, { errorMessage: 'Too many requests: the rate limit was exceeded.' });
    }
    const fault = this.faults.shift();
    if (fault) return this.applyFault(fault, req, res);
    if (req.headers.authorization !== `Bearer ${this.token}`) {
      return json(res, 401, { errorMessage: 'Insufficient authorization to perform request.' });
    }
    const url = new URL(req.url ?? '/', 'http://fake');
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
        req.socket.destroy();
        return;
    }
  }
}
