import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import cors from '@fastify/cors';
import rateLimit from '@fastify/rate-limit';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject, serializerCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DestinationStream, Logger } from 'pino';
import { requireApiKey, type ApiKeyOptions } from './auth.js';
import { clientErrorHandler, HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS, TIMEOUT_CHECK_INTERVAL_MS } from './client-errors.js';
import { errorAnswer, frameworkErrorHandler, installErrorHandlers } from './error-handler.js';
import { AppError, type ErrorCodeCase } from './errors.js';
import { processEventLoopDelay } from './event-loop-delay.js';
import { processLiveHeapBytes } from './heap-live.js';
import { installJsonParser } from './json-parser.js';
import { createLogger, loggableUrl } from './logger.js';
import { MetricsRegistry } from './metrics.js';
import { originGuard } from './origin-guard.js';
import { documentKitAnswers, withReachableSchemas } from './openapi.js';
import { refuseUnknownQueryParameters } from './strict-query.js';
import { answerUnmatchedRoutes } from './unmatched-route.js';

export type App = FastifyInstance<Server, IncomingMessage, ServerResponse, FastifyBaseLogger, ZodTypeProvider>;

export interface RateLimitOptions {
  /** Requests per window per client IP for every route that does not set its own. */
  max: number;
  timeWindowMs: number;
  /** Share counters across replicas through Redis. */
  redisUrl?: string;
}

export interface ServiceOptions {
  /** Short service name, e.g. `execution`; used in logs and metrics. */
  name: string;
  title: string;
  description: string;
  version: string;
  logLevel?: string;
  /** Where log lines go (tests capture them); stdout by default. */
  logStream?: DestinationStream;
  /** A ready logger instead of logLevel/logStream. */
  logger?: Logger;
  errorCodeCase?: ErrorCodeCase;
  bodyLimitBytes?: number;
  /** How long a client has to send a whole request, body included, before a 408; REQUEST_TIMEOUT_MS by default. */
  requestTimeoutMs?: number;
  corsOrigins?: string[];
  /** Global per-IP limit; routes may set `config.rateLimit`. Omit for no global limit. */
  rateLimit?: RateLimitOptions;
  /** Route prefix of Swagger UI; the OpenAPI document is at `<docsPath>/json`. */
  docsPath?: string;
  /** OpenAPI security schemes, by name. */
  securitySchemes?: Record<string, { type: 'apiKey'; in: 'header'; name: string } | { type: 'http'; scheme: 'bearer' }>;
  tags?: { name: string; description: string }[];
  metrics?: MetricsRegistry;
  now?: () => number;
  /** Proxies trusted to name the client in X-Forwarded-For (request.ip, the rate limit's key): true for any, or their addresses and ranges. */
  trustProxy?: boolean | string[];
  /** Puts the kit's own routes (`/docs…`, `/metrics`) behind this key, for a spec that keys every non-health route. */
  kitRoutesAuth?: ApiKeyOptions;
  /** Values that must never reach a log line, wherever a client puts them in a URL (the configured keys). */
  secrets?: string[];
}

const REQUEST_ID = /^[\w.:@-]{1,128}$/;

/**
 * Longer than any URL Node accepts (its header limit is 16 KiB), so the router never answers a
 * long path parameter itself (Fastify's default is 100 characters, answered 414 with its own body
 * before any hook): the route's key check runs first, then its own schema says how long an id
 * may be.
 */
const MAX_PARAM_LENGTH = 16 * 1024;

declare module 'fastify' {
  interface FastifyInstance {
    metrics: MetricsRegistry;
    serviceName: string;
  }
}

/**
 * The Fastify instance every fxdesk service starts from: zod validation and serialization,
 * the error envelope on every failure, request ids, redacted logs, /metrics, OpenAPI + Swagger
 * UI, optional CORS and rate limiting. The service registers its routes on what this returns.
 */
export async function buildService(options: ServiceOptions): Promise<App> {
  const now = options.now ?? Date.now;
  const metrics = options.metrics ?? new MetricsRegistry();
  const logger = options.logger ?? createLogger({ name: options.name, level: options.logLevel ?? 'info', stream: options.logStream });
  const answerError = errorAnswer(options.errorCodeCase ?? 'lower', now);
  const requestTimeoutMs = options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;

  const app = Fastify({
    loggerInstance: logger,
    bodyLimit: options.bodyLimitBytes ?? 1_048_576,
    trustProxy: options.trustProxy ?? false,
    logController: new RequestLogController(options.secrets ?? []),
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors: frameworkErrorHandler(answerError),
    clientErrorHandler: clientErrorHandler(options.errorCodeCase ?? 'lower', now),
    requestTimeout: requestTimeoutMs,
    http: { headersTimeout: Math.min(HEADERS_TIMEOUT_MS, requestTimeoutMs), connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS },
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    ajv: { customOptions: { strict: false } },
  }).withTypeProvider<ZodTypeProvider>() as unknown as App;

  app.decorate('metrics', metrics);
  app.decorate('serviceName', options.name);
  refuseUnknownQueryParameters(app);
  app.setSerializerCompiler(serializerCompiler);
  installErrorHandlers(app, answerError);
  installJsonParser(app);
  installRequestMetrics(app, metrics);
  const globalRateLimit = options.rateLimit !== undefined;
  app.addHook('onRoute', (route) => documentKitAnswers(route, { globalRateLimit }));

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  answerUnmatchedRoutes(app, answerError);
  // Refused before any body is read or any handler runs.
  app.addHook('onRequest', originGuard(options.corsOrigins ?? []));
  // A body is JSON (or what a route's own scope parses): Fastify's text/plain parser would hand
  // a JSON schema a string (422) where the README promises 415.
  app.removeContentTypeParser('text/plain');

  if (options.corsOrigins && options.corsOrigins.length > 0) {
    const origins = options.corsOrigins;
    await app.register(cors, { origin: origins.includes('*') ? true : origins, exposedHeaders: ['x-request-id', 'retry-after'] });
  }

  await registerRateLimit(app, options);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: options.title, description: options.description, version: options.version },
      tags: options.tags,
      components: options.securitySchemes ? { securitySchemes: options.securitySchemes } : {},
    },
    transform: jsonSchemaTransform,
    transformObject: (document) => withReachableSchemas(jsonSchemaTransformObject(document)),
  });
  const kitAuth = options.kitRoutesAuth ? requireApiKey(options.kitRoutesAuth) : undefined;
  await app.register(swaggerUi, {
    routePrefix: options.docsPath ?? '/docs',
    uiConfig: { deepLinking: true },
    // Fastify runs an async onRequest hook by its promise; swagger-ui's type names only the callback form.
    // eslint-disable-next-line @typescript-eslint/no-misused-promises
    ...(kitAuth ? { uiHooks: { onRequest: kitAuth } } : {}),
  });

  app.get('/metrics', { schema: { hide: true }, config: { rateLimit: false }, ...(kitAuth ? { onRequest: kitAuth } : {}) }, async (_request, reply) =>
    reply.type('text/plain; version=0.0.4; charset=utf-8').send(metrics.render()),
  );

  return app;
}

const QUIET_ROUTES = new Set(['/health/live', '/health/ready', '/health', '/metrics']);

/** Methods whose answer below 400 is a routine read, logged at debug. */
const READ_METHODS = new Set(['GET', 'HEAD']);

/**
 * One log line per answered request, `GET /v1/x 200 3.1 ms`: info for writes and for answers of
 * 400 or more, debug for routine reads (GET and HEAD answered below 400: the console, bots and
 * streams read all day), health probes and scrapes, so the log shows what changed and what failed.
 */
class RequestLogController extends LogController {
  constructor(private readonly secrets: string[]) {
    super({ requestIdLogLabel: 'requestId' });
  }
  override incomingRequest(): void {}
  override requestCompleted(error: Error | null, request: FastifyRequest, reply: FastifyReply): void {
    const route = request.routeOptions.url ?? '';
    const line = `${request.method} ${loggableUrl(request.url, this.secrets)} ${reply.statusCode} ${reply.elapsedTime.toFixed(1)} ms`;
    if (error) reply.log.error({ err: error }, line);
    else if (QUIET_ROUTES.has(route) || route.startsWith('/docs') || (READ_METHODS.has(request.method) && reply.statusCode < 400)) reply.log.debug(line);
    else reply.log.info(line);
  }
}

function installRequestMetrics(app: App, metrics: MetricsRegistry): void {
  const requests = metrics.counter('http_requests_total', 'HTTP requests answered, by method, route and status.');
  const duration = metrics.histogram('http_request_duration_seconds', 'Time to answer HTTP requests.');
  const started = process.hrtime.bigint();
  metrics.gauge('process_resident_memory_bytes', 'Resident set size of the process.', () => process.memoryUsage.rss());
  metrics.gauge('process_heap_used_bytes', 'V8 heap in use.', () => process.memoryUsage().heapUsed);
  processLiveHeapBytes();
  metrics.gauge(
    'process_heap_live_bytes',
    'V8 heap in use right after the latest full collection (0 before the first): climbs with a leak, unlike RSS and heap_used, which swing with the collector.',
    processLiveHeapBytes,
  );
  metrics.gauge('process_uptime_seconds', 'Seconds since the process started.', () => Number(process.hrtime.bigint() - started) / 1e9);
  const loopDelay = processEventLoopDelay();
  metrics.gauge(
    'process_event_loop_delay_seconds',
    'How late the event loop runs a timer, over the last 30 to 60 s: quantile 0.5, 0.99 and 1 (the maximum).',
    () => {
      const delay = loopDelay.read();
      return [
        [{ quantile: '0.5' }, delay.p50Seconds],
        [{ quantile: '0.99' }, delay.p99Seconds],
        [{ quantile: '1' }, delay.maxSeconds],
      ];
    },
  );
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const labels = { method: request.method, route, status: reply.statusCode };
    requests.inc(labels);
    duration.observe(reply.elapsedTime / 1000, { method: request.method, route });
  });
}

async function registerRateLimit(app: App, options: ServiceOptions): Promise<void> {
  const limit = options.rateLimit;
  let redis: import('ioredis').Redis | undefined;
  if (limit?.redisUrl) {
    const { Redis } = await import('ioredis');
    const client = new Redis(limit.redisUrl, { connectTimeout: 2000, maxRetriesPerRequest: 1, enableOfflineQueue: false });
    // While Redis is down the limiter lets requests through (skipOnError); say so once per outage.
    let down = false;
    client.on('error', (err: Error) => {
      if (!down) app.log.warn({ err: err.message }, 'rate-limit store unreachable; requests are not limited until it returns');
      down = true;
    });
    client.on('ready', () => {
      if (down) app.log.info('rate-limit store reachable again');
      down = false;
    });
    app.addHook('onClose', async () => {
      client.disconnect();
    });
    // Commands sent before the connection is up fail (no offline queue), so the first requests
    // would go uncounted: wait for it, but never longer than the connect timeout.
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 2000);
      client.once('ready', () => {
        clearTimeout(timer);
        resolve();
      });
    });
    redis = client;
  }
  await app.register(rateLimit, {
    global: limit !== undefined,
    max: limit?.max ?? 1000,
    timeWindow: limit?.timeWindowMs ?? 60_000,
    // Services may share one Redis: each counts under its own name, so a client's budget at one
    // service is not spent at another.
    ...(redis ? { redis, nameSpace: `fxdesk:${options.name}:rate-limit:`, skipOnError: true } : {}),
    errorResponseBuilder: (_request, context) =>
      new AppError('rate_limited', `too many requests; retry in ${Math.ceil(context.ttl / 1000)} s`, {
        headers: { 'retry-after': String(Math.max(1, Math.ceil(context.ttl / 1000))) },
      }),
  });
}
