import { PacerDeadlineError, retryAfterMs, type Clock, type Pacer } from '@fxdesk/primitives';
import { Pool } from 'undici';
import type { z } from 'zod';
import { BrokerError } from '../errors.js';
import { parseJsonBody, pathWithQuery } from '../http-helpers.js';
import { errorFromResponse, errorFromTransport } from './error-mapping.js';

export interface MetaApiHttpOptions {
  baseUrl: string;
  token: string;
  clock: Clock;
  /** Keep-alive connections to the host. */
  connections?: number;
  /** Buckets every request takes its credits from (the account's, the application's), in order. */
  pacers?: Pacer[];
  /** CPU credits one request costs. */
  creditsPerRequest?: number;
  /** Requests in flight at once; no limit when omitted. */
  maxInFlight?: number;
}

/** A raw answer: status, body text and the Retry-After header. */
export interface HttpAnswer {
  status: number;
  text: string;
  retryAfter: string | string[] | undefined;
}

/** Statuses after which an idempotent GET is tried once more. */
const RETRIED_STATUSES = new Set([500, 502, 503]);
/** The wait after a 202 that names none (the SDK waits only when Retry-After is there; we wait a second). */
const ACCEPTED_WAIT_MS = 1000;

/**
 * Requests to one MetaApi host over an undici keep-alive pool. Every request carries the
 * `auth-token` header ("auth-token | string | Yes | authorization token", REST API pages) and
 * runs under a timeout on the injected clock (undici's own connect/headers/body timeouts are
 * backstops). GETs change nothing, so a GET that meets a dropped connection or a 500/502/503 is
 * tried once more; `send` never resends a request MetaApi took. The token never appears in an
 * error message.
 *
 * Each request first takes its CPU credits from the pacers, and `send` waits out a 202 Accepted
 * (the account still deploying, market data still loading) for its Retry-After and asks again, as
 * the SDK's HttpClient does; both within the call's deadline (its `timeoutMs` from the start):
 * a wait that would pass it fails at once, `rate_limited` for credits, `unavailable` for a 202.
 * The request sent after the waits has the time left, and never less than half `timeoutMs`.
 */
export class MetaApiHttp {
  private readonly pool: Pool;
  private readonly pathPrefix: string;
  private slotsTaken = 0;
  private readonly waitingForSlot: (() => void)[] = [];
  /** HTTP requests sent and not yet answered or failed. */
  requestsInFlight = 0;

  constructor(private readonly options: MetaApiHttpOptions) {
    const url = new URL(options.baseUrl);
    this.pathPrefix = url.pathname.replace(/\/+$/, '');
    this.pool = new Pool(url.origin, {
      connections: options.connections ?? 4,
      keepAliveTimeout: 30_000,
      keepAliveMaxTimeout: 600_000,
      connectTimeout: 60_000,
      headersTimeout: 600_000,
      bodyTimeout: 600_000,
    });
  }

  /** GETs `path` and validates a 200 body; other statuses become BrokerErrors. */
  async get<S extends z.ZodType>(path: string, query: Record<string, string | undefined>, schema: S, timeoutMs: number): Promise<z.output<S>> {
    const full = this.pathFor(path, query);
    let answer: HttpAnswer;
    try {
      answer = await this.send('GET', full, undefined, timeoutMs);
      if (RETRIED_STATUSES.has(answer.status)) answer = await this.send('GET', full, undefined, timeoutMs);
    } catch (err) {
      if (!(err instanceof BrokerError) || err.kind !== 'disconnected') throw err;
      answer = await this.send('GET', full, undefined, timeoutMs);
    }
    if (answer.status !== 200) throw this.errorOf(answer);
    return parseBody(schema, answer.text, path);
  }

  /**
   * Sends to `path` (from `pathFor`) once MetaApi can take it: paced, and again after each 202
   * Accepted, all within `timeoutMs`. Answers whatever other status came back; throws when no
   * status came back or a wait would pass the deadline.
   */
  async send(method: 'GET' | 'POST', path: string, body: unknown, timeoutMs: number): Promise<HttpAnswer> {
    const { clock } = this.options;
    const deadline = clock.now() + timeoutMs;
    for (;;) {
      await this.pace(deadline, method);
      // Waits end by the deadline, but the request itself always gets half its timeout at least:
      // a trade cut short by our own waiting would be an ambiguous timeout.
      const answer = await this.inSlot(() => this.once(method, path, body, Math.max(deadline - clock.now(), timeoutMs / 2)));
      if (answer.status !== 202) return answer;
      // 202 Accepted: "retry-after: interval in seconds to retry" (MetaApi REST pages; the SDK's
      // HttpClient waits it and asks again until its own deadline, then throws TimeoutError).
      const waitMs = retryAfterMs(answer.retryAfter, clock.now()) ?? ACCEPTED_WAIT_MS;
      if (clock.now() + waitMs >= deadline) {
        const seconds = Math.ceil(waitMs / 1000);
        throw new BrokerError(
          'unavailable',
          `MetaApi is still preparing the account (202 Accepted, retry after ${seconds} s), past this call's ${timeoutMs} ms`,
          {
            venueCode: '202',
            retryAfterSeconds: seconds,
          },
        );
      }
      await new Promise<void>((resolve) => clock.setTimeout(resolve, waitMs));
    }
  }

  /** Takes this request's credits from every pacer before the deadline, or fails `rate_limited` without sending. */
  private async pace(deadlineMs: number, method: string): Promise<void> {
    const credits = this.options.creditsPerRequest ?? 1;
    for (const pacer of this.options.pacers ?? []) {
      try {
        await pacer.acquire(credits, { deadlineMs });
      } catch (err) {
        if (!(err instanceof PacerDeadlineError)) throw err;
        const seconds = Math.ceil(err.waitMs / 1000);
        throw new BrokerError(
          'rate_limited',
          `MetaApi's rate limits leave no credits for this ${method} before its deadline (next in ${err.waitMs} ms); not sent`,
          {
            retryAfterSeconds: seconds,
            cause: err,
          },
        );
      }
    }
  }

  /** Runs `request` once fewer than `maxInFlight` requests are under way. */
  private async inSlot<T>(request: () => Promise<T>): Promise<T> {
    const max = this.options.maxInFlight;
    // A freed slot passes straight to the first waiter, so no newcomer slips in between.
    if (max !== undefined && this.slotsTaken >= max) await new Promise<void>((resolve) => this.waitingForSlot.push(resolve));
    else this.slotsTaken++;
    try {
      return await request();
    } finally {
      const next = this.waitingForSlot.shift();
      if (next) next();
      else this.slotsTaken--;
    }
  }

  private async once(method: 'GET' | 'POST', path: string, body: unknown, timeoutMs: number): Promise<HttpAnswer> {
    const { clock } = this.options;
    const controller = new AbortController();
    const timer = clock.setTimeout(() => controller.abort(), timeoutMs);
    this.requestsInFlight++;
    try {
      const response = await this.pool.request({
        method,
        path,
        headers: {
          'auth-token': this.options.token,
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: controller.signal,
      });
      const text = await response.body.text();
      return { status: response.statusCode, text, retryAfter: response.headers['retry-after'] };
    } catch (err) {
      if (controller.signal.aborted) throw new BrokerError('timeout', `MetaApi did not answer ${method} within ${timeoutMs} ms`, { cause: err });
      throw errorFromTransport(err, timeoutMs);
    } finally {
      this.requestsInFlight--;
      clock.clearTimer(timer);
    }
  }

  errorOf(answer: HttpAnswer): BrokerError {
    return errorFromResponse(answer.status, answer.text, answer.retryAfter, this.options.clock.now());
  }

  pathFor(path: string, query: Record<string, string | undefined> = {}): string {
    return pathWithQuery(this.pathPrefix, path, query);
  }

  /** Fails every request under way (they answer `disconnected`) and closes the pool. */
  async close(): Promise<void> {
    await this.pool.destroy();
  }
}

/** Validates a JSON body against `schema`; a body that is not JSON or not of the shape is a protocol error. */
export function parseBody<S extends z.ZodType>(schema: S, text: string, path: string): z.output<S> {
  return parseJsonBody(schema, text, 'MetaApi', path);
}
