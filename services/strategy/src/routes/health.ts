import type { App } from '@fxdesk/core';
import type { Clock } from '@fxdesk/primitives';
import { StrategyHealthSchema } from '@fxdesk/schemas';
import type { RateLimitHooks } from '../rate-limits.js';
import type { StrategyStore } from '../store.js';
import { limitedBy, RATE_LIMITED_RESPONSE } from './options.js';

export interface HealthRouteOptions {
  store: StrategyStore;
  clock: Clock;
  startedAt: number;
  version: string;
  limits: RateLimitHooks;
}

/**
 * GET /health, spec 000's health record: `healthy` while the signal database answers, else
 * `unhealthy` with 503 (the strategy could not record signals). A failing downstream service
 * does not make the strategy unhealthy: it shows in /status.
 */
export function registerHealthRoute(app: App, o: HealthRouteOptions): void {
  app.get(
    '/health',
    {
      ...limitedBy(o.limits.get),
      schema: {
        tags: ['health'],
        summary: 'Health record (spec 000)',
        response: { 200: StrategyHealthSchema, 503: StrategyHealthSchema, ...RATE_LIMITED_RESPONSE },
      },
    },
    async (request, reply) => {
      let healthy = true;
      try {
        o.store.ping();
      } catch (err) {
        healthy = false;
        request.log.error({ err }, 'the signal database does not answer');
      }
      const now = o.clock.now();
      return reply.status(healthy ? 200 : 503).send({
        status: healthy ? 'healthy' : 'unhealthy',
        timestamp: new Date(now).toISOString(),
        uptime_seconds: Math.max(0, Math.floor((now - o.startedAt) / 1000)),
        version: o.version,
      });
    },
  );
}
