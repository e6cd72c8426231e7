import { retryAfterSeconds, systemClock, type Clock } from '@fxdesk/primitives';
import { Pool } from 'undici';
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
  /** Keep-alive connections to OANDA (Best Practices: reuse connections, at most 2 new per second). */
  connections?: number;
}

/**
 * GETs against the v20 REST API over one undici keep-alive pool. Every call sends
 * `Authorization: Bearer <token>` ("The string 'Bearer ' followed by the token", v20 OpenAPI
 * authorizationHeaderParam) and `Accept-Datetime-Format: RFC3339` (AcceptDatetimeFormat is
 * `UNIX` or `RFC3339`), runs under a timeout on the injected clock, and turns every failure
 * into a BrokerError. The token is never part of an error message or a log line.
 */
export class OandaHttpClient {
  private readonly pool: Pool;
  private readonly pathPrefix: string;
  private readonly clock: Clock;

  constructor(private readonly options: OandaHttpOptions) {
    const url = new URL(options.baseUrl);
    this.pathPrefix = url.pathname.replace(/\/+$/, '');
    this.clock = options.clock ?? systemClock;
    this.pool = new Pool(url.origin, {
      connections: options.connections ?? 4,
      // Best Practices: "using a persistent connection will allow more requests to be performed on an established connection".
      keepAliveTimeout: 30_000,
      keepAliveMaxTimeout: 600_000,
      connectTimeout: options.timeoutMs,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
    });
  }

  /** GETs `/v3/...` and validates the 200 body against `schema`. */
  async get<S extends z.ZodType>(path: string, query: Record<string, string | undefined>, schema: S): Promise<z.output<S>> {
    const text = await this.getText(pathWithQuery(this.pathPrefix, path, query));
    return parseJsonBody(schema, text, 'OANDA', path);
  }

  async close(): Promise<void> {
    await this.pool.close();
  }

  private async getText(path: string): Promise<string> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.attempt(path);
      } catch (err) {
        if (err instanceof BrokerError) throw err;
        // A GET is safe to repeat: retry once when a pooled keep-alive socket turned out closed.
        if (attempt === 1 && isStaleSocket(err)) continue;
        throw errorFromTransport(err, this.options.timeoutMs);
      }
    }
  }

  private async attempt(path: string): Promise<string> {
    const controller = new AbortController();
    const timer = this.clock.setTimeout(() => controller.abort(), this.options.timeoutMs);
    try {
      const response = await this.pool.request({
        method: 'GET',
        path,
        headers: {
          authorization: `Bearer ${this.options.token}`,
          'accept-datetime-format': 'RFC3339',
          accept: 'application/json',
        },
        signal: controller.signal,
      });
      const text = await response.body.text();
      if (response.statusCode === 200) return text;
      throw errorFromResponse(response.statusCode, text, retryAfterSeconds(response.headers['retry-after'], this.clock.now()));
    } catch (err) {
      if (err instanceof BrokerError) throw err;
      if (controller.signal.aborted) throw new BrokerError('timeout', `OANDA did not answer within ${this.options.timeoutMs} ms`, { cause: err });
      throw err;
    } finally {
      this.clock.clearTimer(timer);
    }
  }
}
