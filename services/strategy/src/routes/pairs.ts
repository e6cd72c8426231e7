import type { App } from '@fxdesk/core';
import { ErrorEnvelopeSchema, PairCandlesSchema, PairsResponseSchema, type Timeframe } from '@fxdesk/schemas';
import { z } from 'zod';
import type { StrategyEngine } from '../engine.js';
import { errors } from '../errors.js';
import type { RateLimitHooks } from '../rate-limits.js';
import { limitedBy, RATE_LIMITED_RESPONSE } from './options.js';

export interface PairRoutesOptions {
  engine: StrategyEngine;
  timeframe: Timeframe;
  chartCandles: number;
  limits: RateLimitHooks;
}

// Any text: a name that is malformed or too long is simply not a monitored pair (404), as spec 000 has it.
const InstrumentParamsSchema = z.object({ instrument: z.string().meta({ description: 'A monitored pair, e.g. EUR_USD' }) });

/** GET /pairs (spec 000) and GET /pairs/{instrument}/candles (for charting). */
export function registerPairRoutes(app: App, o: PairRoutesOptions): void {
  app.get(
    '/pairs',
    {
      ...limitedBy(o.limits.get),
      schema: {
        tags: ['pairs'],
        summary: 'Status of all monitored pairs',
        description: 'Pairs of the running start (or of the last one, `stopped`, when the strategy is not running). Status: warming_up, monitoring, stale, stopped.',
        response: { 200: PairsResponseSchema, ...RATE_LIMITED_RESPONSE },
      },
    },
    async () => ({ pairs: o.engine.pairRecords() }),
  );

  app.get(
    '/pairs/:instrument/candles',
    {
      ...limitedBy(o.limits.get),
      schema: {
        tags: ['pairs'],
        summary: 'Recent closed candles of a monitored pair, with each indicator after each candle (oldest first)',
        params: InstrumentParamsSchema,
        querystring: z.object({
          limit: z.coerce
            .number()
            .int()
            .min(1)
            .max(o.chartCandles)
            .default(Math.min(100, o.chartCandles))
            .meta({ description: `Newest candles to return; at most CHART_CANDLES (${o.chartCandles})` }),
        }),
        response: { 200: PairCandlesSchema, 404: ErrorEnvelopeSchema, ...RATE_LIMITED_RESPONSE },
      },
    },
    async (request) => {
      const { instrument } = request.params;
      const pair = o.engine.pair(instrument);
      if (!pair) throw errors.create('instrument_not_found', `${instrument.slice(0, 64)} is not a monitored pair; GET /pairs lists them`);
      return { instrument, timeframe: o.timeframe, candles: pair.chartCandles(request.query.limit) };
    },
  );
}
