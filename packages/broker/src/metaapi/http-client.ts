import type { Clock } from '@fxdesk/primitives';
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
}

/** A raw answer: status, body text and the Retry-After header. */
export interface HttpAnswer {
  status: number;
  text: string;
  retryAfter: string | string[] | undefined;
}

/** Statuses after which an idempotent GET is tried once more. */
const RETRIED_STATUSES = new Set([500, 502, 503]);

/**
 * Requests to one MetaApi host over an undici keep-alive pool. Every request carries the
 * `auth-token` header ("auth-token | string | Yes | authorization token", REST API pages) and
 * runs under a timeout on the injected clock (undici's own connect/headers/body timeouts are
 * backstops). GETs change nothing, so a GET that meets a dropped connection or a 500/502/503 is
 * tried once more; `send` never retries. The token never appears in an error message.
 */
export class MetaApiHttp {
  private readonly pool: Pool;
  private readonly pathPrefix: string;

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

  /** Sends once to `path` (from `pathFor`) and answers whatever status came back; throws only when no status came back. */
  async send(method: 'GET' | 'POST', path: string, body: unknown, timeoutMs: number): Promise<HttpAnswer> {
    const { clock } = this.options;
    const controller = new AbortController();
    const timer = clock.setTimeout(() => controller.abort(), timeoutMs);
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
