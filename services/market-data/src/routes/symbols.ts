import type { App } from '@fxdesk/core';
import { ErrorEnvelopeSchema } from '@fxdesk/schemas';
import { z } from 'zod';
import type { MarketData } from '../market-data.js';

const CatalogEntrySchema = z
  .object({
    symbol: z.string().meta({ description: 'Name as the broker spells it, e.g. EURUSD' }),
    symbolId: z.number().int().meta({ description: "The broker's integer symbol id" }),
    digits: z.number().int().meta({ description: 'Decimal places of a price' }),
    enabled: z.boolean().meta({ description: 'Whether the service subscribes to its quotes' }),
    description: z.string(),
  })
  .meta({ id: 'CatalogEntry' });

const CatalogSchema = z.object({ symbols: z.array(CatalogEntrySchema) }).meta({ id: 'Catalog' });

/** GET /v1/symbols: the catalog resolved from the broker at connection. */
export function registerSymbolRoutes(app: App, market: MarketData): void {
  app.get(
    '/symbols',
    {
      schema: {
        tags: ['symbols'],
        summary: 'The resolved symbol catalog',
        response: { 200: CatalogSchema, 503: ErrorEnvelopeSchema.describe('The catalog is not loaded yet: the broker session has not connected (`broker_unavailable`)') },
      },
    },
    async () => ({
      symbols: market.symbols().map((s) => ({ symbol: s.name, symbolId: s.symbolId, digits: s.digits, enabled: s.enabled, description: s.description })),
    }),
  );
}
