import type { App } from '@fxdesk/core';
import { BrokerSymbolSchema, ErrorEnvelopeSchema, IntervalCandleSchema, TickSchema, TimeframeSchema, TIMEFRAMES } from '@fxdesk/schemas';
import { z } from 'zod';
import type { MarketData } from '../market-data.js';

const TickQuerySchema = z.object({ symbol: BrokerSymbolSchema });

function candlesQuerySchema(maxCandles: number) {
  return z.object({
    symbol: BrokerSymbolSchema,
    timeframe: TimeframeSchema.default('M1').meta({ description: `One of ${TIMEFRAMES.join(' ')}; default M1` }),
    count: z.coerce
      .number()
      .int()
      .min(1)
      .max(maxCandles)
      .default(100)
      .meta({ description: `Closed candles to return, newest last; default 100, at most MAX_CANDLES (${maxCandles})` }),
  });
}

const CandlesResponseSchema = z
  .object({
    symbol: z.string(),
    timeframe: TimeframeSchema,
    candles: z.array(IntervalCandleSchema),
  })
  .meta({ id: 'Candles' });

/** What a route that asks the broker can answer beside its own 200. */
const BROKER_READ_ERRORS = {
  404: ErrorEnvelopeSchema.describe('A symbol the catalog does not list (`symbol_not_found`)'),
  502: ErrorEnvelopeSchema.describe('The broker failed to answer (`broker_error`)'),
  503: ErrorEnvelopeSchema.describe('The broker session is not connected (`broker_unavailable`)'),
  504: ErrorEnvelopeSchema.describe('The broker did not answer in time (`broker_timeout`)'),
};

/** GET /v1/market-data/tick and GET /v1/market-data/candles. */
export function registerQuoteRoutes(app: App, market: MarketData, maxCandles: number): void {
  app.get(
    '/market-data/tick',
    {
      schema: {
        tags: ['market data'],
        summary: 'The latest cached quote of a symbol',
        description:
          '404 `symbol_not_found` for a symbol the catalog does not list, 404 `no_quote_yet` before its first quote (every enabled symbol has one once /health/ready answers 200).',
        querystring: TickQuerySchema,
        response: {
          200: TickSchema,
          404: ErrorEnvelopeSchema.describe('An unknown symbol (`symbol_not_found`), or none of its quotes yet (`no_quote_yet`)'),
          503: ErrorEnvelopeSchema.describe('The symbol catalog is not loaded yet (`broker_unavailable`)'),
        },
      },
    },
    async (request) => market.latestTick(request.query.symbol),
  );

  app.get(
    '/market-data/candles',
    {
      schema: {
        tags: ['market data'],
        summary: 'Closed candles of a symbol, oldest first; `ts` is the end of each UTC interval',
        description: 'The bar still forming is never returned.',
        querystring: candlesQuerySchema(maxCandles),
        response: { 200: CandlesResponseSchema, ...BROKER_READ_ERRORS },
      },
    },
    async (request) => {
      const { symbol, timeframe, count } = request.query;
      return { symbol, timeframe, candles: await market.candles(symbol, timeframe, count) };
    },
  );
}
