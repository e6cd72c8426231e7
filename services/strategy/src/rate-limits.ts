import type {} from '@fastify/rate-limit';
import { AppError, type App } from '@fxdesk/core';
import type { FastifyReply, FastifyRequest } from 'fastify';

export interface RateLimitHooks {
  /** Every GET endpoint of spec 000 shares this counter per client. */
  get: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
  /** Every POST endpoint of spec 000 shares this counter per client. */
  post: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
}

const WINDOW_MS = 60_000;

/**
 * Spec 000 "Limits": GET endpoints 60 and POST endpoints 10 requests per minute, counted per
 * client IP, each group on one counter. @fastify/rate-limit's route `groupId` cannot do this (it
 * gives each route its own store: fastify-rate-limit#463), so each group is one limiter made
 * with `createRateLimit` (the kit's store, Redis when REDIS_URL is set) and run as an onRequest
 * hook of the group's routes. Over the limit: 429 RATE_LIMITED with Retry-After.
 */
export function createRateLimitHooks(app: App, limits: { getPerMinute: number; postPerMinute: number }): RateLimitHooks {
  const hook = (group: string, max: number) => {
    const check = app.createRateLimit({ max, timeWindow: WINDOW_MS, keyGenerator: (request) => `${request.ip}|${group}` });
    return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
      const result = await check(request);
      if (result.isAllowed) return;
      const resetSeconds = Math.max(1, result.ttlInSeconds);
      reply.header('x-ratelimit-limit', max);
      reply.header('x-ratelimit-remaining', result.remaining);
      reply.header('x-ratelimit-reset', resetSeconds);
      if (!result.isExceeded) return;
      throw new AppError('rate_limited', `more than ${max} ${group} requests in a minute from this client; retry in ${resetSeconds} s`, {
        headers: { 'retry-after': String(resetSeconds) },
      });
    };
  };
  return { get: hook('GET', limits.getPerMinute), post: hook('POST', limits.postPerMinute) };
}
