import type { App } from '@fxdesk/core';
import { marketDataResponses } from '@fxdesk/schemas';
import type { MarketData } from '../market-data.js';

/** GET /v1/symbols: the catalog resolved from the broker at connection. */
export function registerSymbolRoutes(app: App, market: MarketData): void {
  app.get(
    '/symbols',
    {
      schema: {
        tags: ['symbols'],
        summary: 'The resolved symbol catalog',
        response: marketDataResponses.symbols,
      },
    },
    () => ({ symbols: market.symbols() }),
  );
}
