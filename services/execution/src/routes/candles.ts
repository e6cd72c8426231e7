import type { App } from '@fxdesk/core';
import { ErrorEnvelopeSchema, TerminalCandlesQuerySchema, TerminalCandlesSchema } from '@fxdesk/schemas';
import type { CandleReader } from '../candles.js';

export function registerCandleRoutes(app: App, candles: CandleReader): void {
  app.get(
    '/v1/market-data/candles',
    {
      schema: {
        tags: ['market data'],
        summary: 'Historical OHLC candles from the terminal',
        querystring: TerminalCandlesQuerySchema,
        response: { 200: TerminalCandlesSchema, 422: ErrorEnvelopeSchema, 503: ErrorEnvelopeSchema },
      },
    },
    async (request) => candles.read(request.query, request.log),
  );
}
