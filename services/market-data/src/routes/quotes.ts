import type { App } from '@fxdesk/core';
import { candlesQuerySchema, marketDataResponses, TickQuerySchema } from '@fxdesk/schemas';
import type { MarketData } from '../market-data.js';

/** GET /v1/market-data/tick and GET /v1/market-data/candles. */
export function registerQuoteRoutes(app: App, market: MarketData): void {
  app.get(
    '/market-data/tick',
    {
      schema: {
        tags: ['market data'],
        summary: 'The latest cached quote of a symbol',
        description:
          '404 `symbol_not_found` for a symbol the catalog does not list, 404 `no_quote_yet` before its first quote (every enabled symbol has one once /health/ready answers 200).',
        querystring: TickQuerySchema,
        response: marketDataResponses.tick,
      },
    },
    (request) => market.latestTick(request.query.symbol),
  );

  app.get(
    '/market-data/candles',
    {
      schema: {
        tags: ['market data'],
        summary: 'Closed candles of a symbol, oldest first; `ts` is the end of each UTC interval',
        description: 'The bar still forming is never returned.',
        querystring: candlesQuerySchema(market.maxCandles),
        response: marketDataResponses.candles,
      },
    },
    async (request) => {
      const { symbol, timeframe, count } = request.query;
      return { symbol, timeframe, candles: await market.candles(symbol, timeframe, count) };
    },
  );
}
