import type { App } from '@fxdesk/core';
import {
  ErrorEnvelopeSchema,
  MonitoredPairParamsSchema,
  PairCandlesSchema,
  pairCandlesQuerySchema,
  PairsResponseSchema,
  StrategyRateLimitedSchema,
} from '@fxdesk/schemas';
import { CONSOLE_REFUSALS } from '../console-access.js';
import type { StrategyControl } from '../strategy-control.js';
import { readRouteOptions, type ReadRouteOptions } from './read-routes.js';

/** GET /pairs (spec 000) and GET /pairs/{instrument}/candles (for charting); with `prefix` '/console', the console's copies. */
export function registerPairRoutes(app: App, strategy: StrategyControl, options: ReadRouteOptions = {}): void {
  const { prefix, limits, tags } = readRouteOptions(options, 'pairs');
  const refusals = prefix ? CONSOLE_REFUSALS : {};
  app.get(
    `${prefix}/pairs`,
    {
      ...limits,
      schema: {
        tags,
        summary: 'Status of all monitored pairs',
        description:
          'Pairs of the running start (or of the last one, `stopped`, when the strategy is not running). Status: warming_up, monitoring, stale, stopped.',
        response: { 200: PairsResponseSchema, 429: StrategyRateLimitedSchema, ...refusals },
      },
    },
    async () => ({ pairs: strategy.pairs() }),
  );

  app.get(
    `${prefix}/pairs/:instrument/candles`,
    {
      ...limits,
      schema: {
        tags,
        summary: 'Recent closed candles of a monitored pair, with each indicator after each candle (oldest first)',
        description:
          "On the strategy's TIMEFRAME (default) the pair's own candles and indicators; on another `timeframe`, the pair's history read from the market (`limit` + WARMUP_CANDLES candles) with the indicators run over it on the strategy's settings.",
        params: MonitoredPairParamsSchema,
        querystring: pairCandlesQuerySchema(strategy.chartCandles),
        response: {
          200: PairCandlesSchema,
          404: ErrorEnvelopeSchema,
          429: StrategyRateLimitedSchema,
          ...refusals,
          502: ErrorEnvelopeSchema.describe('DOWNSTREAM_ERROR: the market-data service failed to answer the history of another timeframe'),
          503: ErrorEnvelopeSchema.describe('DOWNSTREAM_UNAVAILABLE: the market-data service cannot be reached (another timeframe)'),
          504: ErrorEnvelopeSchema.describe('DOWNSTREAM_TIMEOUT: the market-data service did not answer in time (another timeframe)'),
        },
      },
    },
    async (request) => strategy.pairCandles(request.params.instrument, request.query.limit, request.query.timeframe),
  );
}
