import type { App } from '@fxdesk/core';
import { StrategyHealthSchema, StrategyRateLimitedSchema } from '@fxdesk/schemas';
import { SCOPE_LIMITED } from '../rate-limits.js';
import type { StrategyControl } from '../strategy-control.js';

/** GET /health, spec 000's health record (the kit's probes are /health/live and /health/ready). */
export function registerHealthRecordRoutes(app: App, strategy: StrategyControl): void {
  app.get(
    '/health',
    {
      ...SCOPE_LIMITED,
      schema: {
        tags: ['health'],
        summary: 'Health record (spec 000)',
        response: { 200: StrategyHealthSchema, 503: StrategyHealthSchema, 429: StrategyRateLimitedSchema },
      },
    },
    async (request, reply) => {
      const record = await strategy.healthRecord(request.log);
      return reply.status(record.status === 'healthy' ? 200 : 503).send(record);
    },
  );
}
