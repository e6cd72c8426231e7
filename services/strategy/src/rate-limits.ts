import type {} from '@fastify/cookie';
import type {} from '@fastify/rate-limit';
import { AppError, type App } from '@fxdesk/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { StrategyConfig } from './config.js';

type OnRequestHook = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

const WINDOW_MS = 60_000;

/** Route options of a spec 000 endpoint: its scope's limiter counts it, so the kit's global one stays off. */
export const SCOPE_LIMITED = { config: { rateLimit: false as const } };

/**
 * An onRequest hook that counts each request on one counter per client IP for `group` (the kit's
 * store, Redis when REDIS_URL is set), answers the X-RateLimit-* headers, and past `max` in a
 * minute answers 429 RATE_LIMITED with Retry-After. `what` names the requests in the message.
 */
export function clientLimit(
  app: App,
  { group, max, what, clientOf = (request) => request.ip }: { group: string; max: number; what: string; clientOf?: (request: FastifyRequest) => string },
): OnRequestHook {
  const check = app.createRateLimit({ max, timeWindow: WINDOW_MS, keyGenerator: (request) => `${clientOf(request)}|${group}` });
  return async (request, reply) => {
    const result = await check(request);
    if (result.isAllowed) return;
    const resetSeconds = Math.max(1, result.ttlInSeconds);
    reply.header('x-ratelimit-limit', max);
    reply.header('x-ratelimit-remaining', result.remaining);
    reply.header('x-ratelimit-reset', resetSeconds);
    if (!result.isExceeded) return;
    throw new AppError('rate_limited', `more than ${max} ${what} in a minute from this client; retry in ${resetSeconds} s`, {
      headers: { 'retry-after': String(resetSeconds) },
    });
  };
}

/**
 * The console's reads (every GET and HEAD of the console's scope: its copies of spec 000's reads,
 * the read-through routes, /events), on a counter of their own per session, or per client IP
 * where there is no login: a desk page's reloads never spend the 60 GETs a minute that spec
 * 000's routes share with every script and bot of the machine, nor do those scripts spend the
 * page's. For a scope behind the console's access rules, which refuse a request whose session is
 * not valid before this counts it.
 */
export function consoleReadLimit(app: App, config: Pick<StrategyConfig, 'CONSOLE_READS_PER_MINUTE'>, sessionCookie: string): OnRequestHook {
  const reads = clientLimit(app, {
    group: 'console-reads',
    max: config.CONSOLE_READS_PER_MINUTE,
    what: 'console reads',
    clientOf: (request) => {
      const cookie = request.cookies[sessionCookie];
      const session = cookie === undefined ? null : request.unsignCookie(cookie);
      return session?.valid && session.value !== null ? `session:${session.value}` : request.ip;
    },
  });
  return async (request, reply) => {
    if (request.method === 'GET' || request.method === 'HEAD') await reads(request, reply);
  };
}

/**
 * Spec 000 "Limits": GET endpoints 60 and POST endpoints 10 requests per minute, counted per
 * client IP, each group on one counter. @fastify/rate-limit's route `groupId` cannot do this (it
 * gives each route its own store: fastify-rate-limit#463), so each group is one `clientLimit`.
 * The returned onRequest hook is for a scope holding only spec 000 endpoints (and the lab's,
 * under the same limits): a POST or a DELETE counts on the POST counter, any other request (GET,
 * HEAD) on the GET one.
 */
export function specRateLimit(app: App, config: Pick<StrategyConfig, 'RATE_LIMIT_GET_PER_MINUTE' | 'RATE_LIMIT_POST_PER_MINUTE'>): OnRequestHook {
  const get = clientLimit(app, { group: 'GET', max: config.RATE_LIMIT_GET_PER_MINUTE, what: 'GET requests' });
  const post = clientLimit(app, { group: 'POST', max: config.RATE_LIMIT_POST_PER_MINUTE, what: 'POST requests' });
  return (request, reply) => (request.method === 'POST' || request.method === 'DELETE' ? post : get)(request, reply);
}
