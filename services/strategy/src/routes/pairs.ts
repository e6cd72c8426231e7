import type { App } from '@fxdesk/core';
import {
  ErrorEnvelopeSchema,
  MonitoredPairParamsSchema,
  PairCandlesSchema,
  pairCandlesQuerySchema,
  PairsResponseSchema,
  StrategyRateLimitedSchema,
} from '@fxdesk/schemas';
import { SCOPE_LIMITED } from '../rate-limits.js';
import type { StrategyControl } from '../strategy-control.js';

/** GET /pairs (spec 000) and GET /pairs/{instrument}/candles (for charting). */
export function registerPairRoutes(app: App, strategy: StrategyControl): void {
  app.get(
    '/pairs',
    {
      ...SCOPE_LIMITED,
      schema: {
        tags: ['pairs'],
        summary: 'Status of all monitored pairs',
        description:
          'Pairs of the running start (or of the last one, `stopped`, when the strategy is not running). Status: warming_up, monitoring, stale, stopped.',
        response: { 200: PairsResponseSchema, 429: StrategyRateLimitedSchema },
      },
    },
    async () => ({ pairs: strategy.pairs() }),
  );

  app.get(
    '/pairs/:instrument/candles',
    {
      ...SCOPE_LIMITED,
      schema: {
        tags: ['pairs'],
        summary: 'Recent closed candles of a monitored pair, with each indicator after each candle (oldest first)',
        params: MonitoredPairParamsSchema,
        querystring: pairCandlesQuerySchema(strategy.chartCandles),
        response: { 200: PairCandlesSchema, 404: ErrorEnvelopeSchema, 429: StrategyRateLimitedSchema },
      },
    },
    async (request) => strategy.pairCandles(request.params.instrument, request.query.limit),
  );
}
