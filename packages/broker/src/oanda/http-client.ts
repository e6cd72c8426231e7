import { Pacer, PacerDeadlineError, retryAfterSeconds, systemClock, type Clock } from '@fxdesk/primitives';
import { buildConnector, Pool } from 'undici';
import type { z } from 'zod';
import { BrokerError } from '../errors.js';
import { parseJsonBody, pathWithQuery } from '../http-helpers.js';
import { errorFromResponse, errorFromTransport, isStaleSocket } from './error-mapping.js';

export interface OandaHttpOptions {
  baseUrl: string;
  token: string;
  /** Longest wait for one call, connection to last body byte. */
  timeoutMs: number;
  clock?: Clock;
  /** Keep-alive connections to OANDA (default 2). */
  connections?: number;
  /** Requests per second over every one-second window (default 100). */
  requestsPerSecond?: number;
  /** New TCP connections per second, on the wall clock (default 2). */
  newConnectionsPerSecond?: number;
}

/**
 * OANDA's Best Practices (developer.oanda.com/rest-live-v20/best-practices, "Connection Limits"):
 * "For new connections, we recommend you limit this to twice per second (2/s)" and "For an
 * established connection, we recommend limiting this to one hundred per second (100/s)".
 */
export const OANDA_NEW_CONNECTIONS_PER_SECOND = 2;
export const OANDA_REQUESTS_PER_SECOND = 100;

/** An answer of the v20 REST API, whatever its status. */
export interface OandaAnswer {
  status: number;
  text: string;
  retryAfterSeconds: number | undefined;
}

type Method = 'GET' | 'POST' | 'PUT';

/** Transport failures that prove the request never left: nothing reached OANDA. */
const NEVER_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

/**
 * Requests to the v20 REST API over one undici keep-alive pool. Every call sends
 * `Authorization: Bearer <token>` ("The string 'Bearer ' followed by the token", v20 OpenAPI
 * authorizationHeaderParam) and `Accept-Datetime-Format: RFC3339` (AcceptDatetimeFormat is
 * `UNIX` or `RFC3339`), runs under a timeout on the injected clock, and turns every failure
 * into a BrokerError. The token is never part of an error message or a log line.
 *
 * Paced under OANDA's Best Practices: every request takes a token of a pacer of
 * `requestsPerSecond` over every second (on the injected clock; a token that would come only past
 * the call's timeout fails it at once as `rate_limited`, unsent), and every new TCP connection one
 * of 2 per second (on the wall clock, as sockets open in real time) from a pool of 2 kept alive.
 */
export class OandaHttpClient {
  private readonly pool: Pool;
  private readonly pathPrefix: string;
  private readonly clock: Clock;
  private readonly requests: Pacer;
  /** HTTP requests sent and not yet answered or failed. */
  requestsInFlight = 0;

  constructor(private readonly options: OandaHttpOptions) {
    const url = new URL(options.baseUrl);
    this.pathPrefix = url.pathname.replace(/\/+$/, '');
    this.clock = options.clock ?? systemClock;
    this.requests = Pacer.within(options.requestsPerSecond ?? OANDA_REQUESTS_PER_SECOND, 1000, this.clock);
    const newConnections = Pacer.within(options.newConnectionsPerSecond ?? OANDA_NEW_CONNECTIONS_PER_SECOND, 1000);
    const connect = buildConnector({ timeout: options.timeoutMs });
    this.pool = new Pool(url.origin, {
      connections: options.connections ?? 2,
      // Best Practices: "using a persistent connection will allow more requests to be performed on an established connection".
      keepAliveTimeout: 30_000,
      keepAliveMaxTimeout: 600_000,
      connect: (connectOptions, callback) => {
        newConnections.acquire().then(
          () => connect(connectOptions, callback),
          (err: Error) => callback(err, null),
        );
      },
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
    });
  }

  /** GETs `/v3/...` and validates the 200 body against `schema`. */
  async get<S extends z.ZodType>(path: string, query: Record<string, string | undefined>, schema: S): Promise<z.output<S>> {
    const answer = await this.read(path, query);
    if (answer.status !== 200) throw errorFromResponse(answer.status, answer.text, answer.retryAfterSeconds);
    return parseJsonBody(schema, answer.text, 'OANDA', path);
  }

  /** GETs `/v3/...` and answers whatever status came back (a 404 that means "no such thing"), retried once on a stale socket. */
  async read(path: string, query: Record<string, string | undefined> = {}): Promise<OandaAnswer> {
    const target = pathWithQuery(this.pathPrefix, path, query);
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.attempt('GET', target, undefined);
      } catch (err) {
        if (err instanceof BrokerError) throw err;
        // A GET is safe to repeat: retry once when a pooled keep-alive socket turned out closed.
        if (attempt === 1 && isStaleSocket(err)) continue;
        throw errorFromTransport(err, this.options.timeoutMs);
      }
    }
  }

  /**
   * POSTs or PUTs a JSON body, exactly once, and answers whatever status came back. A failure
   * that proves nothing was sent (refused, unresolved, paced out) is definite; silence past the
   * timeout is an ambiguous `timeout`, a connection lost once the request may have left an
   * ambiguous `disconnected`: OANDA may have carried it out.
   */
  async write(method: 'POST' | 'PUT', path: string, body: unknown): Promise<OandaAnswer> {
    try {
      return await this.attempt(method, pathWithQuery(this.pathPrefix, path, {}), JSON.stringify(body));
    } catch (err) {
      if (err instanceof BrokerError) throw err;
      const code = String((err as { code?: unknown }).code ?? (err as { cause?: { code?: unknown } }).cause?.code);
      if (NEVER_SENT_CODES.has(code)) throw errorFromTransport(err, this.options.timeoutMs);
      throw new BrokerError('disconnected', `the connection to OANDA was lost during ${method} ${path} (${code}): it may have been carried out`, {
        cause: err,
      });
    }
  }

  async close(): Promise<void> {
    await this.pool.close();
  }

  /** Takes a request token before the call's timeout would pass, or fails `rate_limited` without sending. */
  private async pace(): Promise<void> {
    try {
      await this.requests.acquire(1, { deadlineMs: this.clock.now() + this.options.timeoutMs });
    } catch (err) {
      if (!(err instanceof PacerDeadlineError)) throw err;
      throw new BrokerError(
        'rate_limited',
        `OANDA's request rate leaves no room for this call within ${this.options.timeoutMs} ms (next in ${err.waitMs} ms); not sent`,
        {
          retryAfterSeconds: Math.ceil(err.waitMs / 1000),
          cause: err,
        },
      );
    }
  }

  private async attempt(method: Method, path: string, body: string | undefined): Promise<OandaAnswer> {
    await this.pace();
    const controller = new AbortController();
    const timer = this.clock.setTimeout(() => controller.abort(), this.options.timeoutMs);
    this.requestsInFlight++;
    const exchange = (async (): Promise<OandaAnswer> => {
      const response = await this.pool.request({
        method,
        path,
        headers: {
          authorization: `Bearer ${this.options.token}`,
          'accept-datetime-format': 'RFC3339',
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body,
        signal: controller.signal,
      });
      const text = await response.body.text();
      return { status: response.statusCode, text, retryAfterSeconds: retryAfterSeconds(response.headers['retry-after'], this.clock.now()) };
    })();
    // undici notices the abort of a request waiting for its connection (a new one waits its turn of 2 a second) only once that connection opens: the timeout ends the call at once, and the exchange's late failure is left unheard.
    exchange.catch(() => undefined);
    const timedOut = new Promise<never>((_, reject) =>
      controller.signal.addEventListener('abort', () => reject(new Error('aborted at the timeout')), { once: true }),
    );
    try {
      return await Promise.race([exchange, timedOut]);
    } catch (err) {
      if (err instanceof BrokerError) throw err;
      if (controller.signal.aborted) throw new BrokerError('timeout', `OANDA did not answer within ${this.options.timeoutMs} ms`, { cause: err });
      throw err;
    } finally {
      this.requestsInFlight--;
      this.clock.clearTimer(timer);
    }
  }
}
