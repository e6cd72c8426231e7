import type { App } from '@fxdesk/core';
import { BrokerSymbolSchema, IntervalCandleSchema, TickSchema, TimeframeSchema, TIMEFRAMES } from '@fxdesk/schemas';
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
        security: [{ apiKey: [] }],
        querystring: TickQuerySchema,
        response: { 200: TickSchema },
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
        security: [{ apiKey: [] }],
        querystring: candlesQuerySchema(maxCandles),
        response: { 200: CandlesResponseSchema },
      },
    },
    async (request) => {
      const { symbol, timeframe, count } = request.query;
      return { symbol, timeframe, candles: await market.candles(symbol, timeframe, count) };
    },
  );
}
