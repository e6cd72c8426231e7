import { retryAfterSeconds } from '@fxdesk/primitives';
import { ErrorEnvelopeSchema } from '@fxdesk/schemas';
import { Agent, request, type Dispatcher } from 'undici';
import type { z } from 'zod';
import { ServiceError } from './errors.js';
import { callPath, type ServiceCall } from './service-call.js';

export type { ServiceCall } from './service-call.js';

export interface ClientOptions {
  /** Where the service listens, e.g. `http://127.0.0.1:8001` (a path prefix is kept). */
  baseUrl: string;
  /** The service's key; sent in the header the service reads. */
  apiKey?: string;
  /** Longest wait for a complete answer (headers and body) of one call. Default 10 000 ms. */
  timeoutMs?: number;
  /** An undici dispatcher to use instead of the client's own keep-alive agent. */
  dispatcher?: Dispatcher;
}

export type Query = Record<string, string | number | boolean | undefined>;

export interface CallOptions<S extends z.ZodType> {
  method: ServiceCall['method'];
  path: string;
  query?: Query;
  /** Sent as JSON. */
  body?: unknown;
  /** Shape of a successful answer's body. */
  schema: S;
  /** Statuses that count as success (default 200 and 201). */
  statuses?: readonly number[];
  headers?: Record<string, string>;
}

/** What one sending of a ServiceCall carries. */
export interface CallParts {
  /** Values of the path's `{name}` parameters. */
  params?: Record<string, string>;
  query?: Query;
  body?: unknown;
  headers?: Record<string, string>;
  /** Statuses besides the call's own whose body the same schema reads. */
  alsoStatuses?: readonly number[];
}

export interface CallResult<T> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  data: T;
}

const DEFAULT_TIMEOUT_MS = 10_000;
const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT']);

function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The HTTP core every fxdesk client shares: undici with a keep-alive agent, a timeout on every
 * call, JSON in and out, the answer checked against its zod schema, and any failure turned into
 * a ServiceError carrying the service's error envelope.
 */
export class HttpClient {
  readonly service: string;
  private readonly base: URL;
  private readonly timeoutMs: number;
  private readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  private readonly fixedHeaders: Record<string, string>;

  /** `keyHeader`: the header the service reads its key from, sent when `options.apiKey` is set. */
  constructor(service: string, options: ClientOptions, keyHeader?: string) {
    this.service = service;
    this.base = new URL(options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`);
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.ownsDispatcher = options.dispatcher === undefined;
    this.dispatcher = options.dispatcher ?? new Agent({ keepAliveTimeout: 10_000, connections: 16 });
    this.fixedHeaders = { accept: 'application/json', ...(keyHeader && options.apiKey ? { [keyHeader]: options.apiKey } : {}) };
  }

  /** Sends one of a client's calls, its path parameters filled in, and reads its answer with the call's schema. */
  send<S extends z.ZodType>(call: ServiceCall<S>, parts: CallParts = {}): Promise<CallResult<z.output<S>>> {
    const path = callPath(call, parts.params);
    const { query, body, headers, alsoStatuses = [] } = parts;
    return this.call({ method: call.method, path, query, body, headers, schema: call.schema, statuses: [call.status, ...alsoStatuses] });
  }

  /** The absolute URL of `path` (relative to the base URL) with `query`. */
  url(path: string, query: Query = {}): URL {
    const url = new URL(path.replace(/^\/+/, ''), this.base);
    for (const [name, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(name, String(value));
    return url;
  }

  async call<S extends z.ZodType>(options: CallOptions<S>): Promise<CallResult<z.output<S>>> {
    const url = this.url(options.path, options.query);
    const headers: Record<string, string> = { ...this.fixedHeaders, ...options.headers };
    let body: string | undefined;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] = 'application/json';
    }
    let status: number;
    let responseHeaders: Record<string, string | string[] | undefined>;
    let text: string;
    try {
      const res = await request(url, {
        method: options.method,
        headers,
        body,
        dispatcher: this.dispatcher,
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      status = res.statusCode;
      responseHeaders = res.headers;
      text = await res.body.text();
    } catch (err) {
      throw this.transportError(err, `${options.method} ${url.pathname}`);
    }
    const accepted = options.statuses ?? [200, 201];
    if (!accepted.includes(status)) throw this.httpError(status, responseHeaders, text);
    // 204 has no body to check: a call that accepts it types its answer as possibly undefined.
    if (status === 204) return { status, headers: responseHeaders, data: undefined as z.output<S> };
    let json: unknown;
    try {
      json = text.length === 0 ? undefined : JSON.parse(text);
    } catch (err) {
      throw this.invalid(`${options.method} ${url.pathname} answered ${status} with a body that is not JSON`, status, err);
    }
    const parsed = options.schema.safeParse(json);
    if (!parsed.success) {
      const first = parsed.error.issues[0];
      const where = first ? `${first.path.join('.') || '(body)'}: ${first.message}` : 'unexpected shape';
      throw this.invalid(`${options.method} ${url.pathname} answered ${status} with an unexpected body (${where})`, status, parsed.error);
    }
    return { status, headers: responseHeaders, data: parsed.data };
  }

  /** Builds the error of a non-success answer from its envelope (or its status alone). */
  httpError(status: number, headers: Record<string, string | string[] | undefined>, text: string): ServiceError {
    let envelope: z.infer<typeof ErrorEnvelopeSchema> | undefined;
    try {
      const parsed = ErrorEnvelopeSchema.safeParse(JSON.parse(text));
      if (parsed.success) envelope = parsed.data;
    } catch {
      // not JSON: a proxy's page, or nothing
    }
    return new ServiceError({
      service: this.service,
      kind: 'http',
      status,
      code: envelope?.code ?? `http_${status}`,
      message: envelope?.message ?? `answered HTTP ${status}`,
      requestId: envelope?.requestId ?? header(headers, 'x-request-id'),
      details: envelope?.details,
      retryAfterSeconds: retryAfterSeconds(header(headers, 'retry-after'), Date.now()),
    });
  }

  transportError(err: unknown, what: string): ServiceError {
    if (err instanceof ServiceError) return err;
    const e = err as { name?: string; code?: string; message?: string; cause?: { code?: string } };
    const isTimeout = e?.name === 'TimeoutError' || TIMEOUT_CODES.has(e?.code ?? '') || TIMEOUT_CODES.has(e?.cause?.code ?? '');
    if (isTimeout) {
      return new ServiceError({
        service: this.service,
        kind: 'timeout',
        code: 'timeout',
        message: `${what}: no answer within ${this.timeoutMs} ms`,
        cause: err,
      });
    }
    const code = e?.code ?? e?.cause?.code;
    return new ServiceError({
      service: this.service,
      kind: 'network',
      code: 'network_error',
      message: `${what}: ${code ? `${code} ` : ''}${e?.message ?? String(err)}`.trim(),
      cause: err,
    });
  }

  async close(): Promise<void> {
    if (this.ownsDispatcher) await this.dispatcher.close();
  }

  /** Headers every call sends (accept, and the service's key). */
  get defaultHeaders(): Record<string, string> {
    return { ...this.fixedHeaders };
  }

  /** The dispatcher calls go through (streams reuse it). */
  get agent(): Dispatcher {
    return this.dispatcher;
  }

  private invalid(message: string, status: number, cause: unknown): ServiceError {
    return new ServiceError({ service: this.service, kind: 'invalid_response', code: 'invalid_response', status, message, cause });
  }
}
