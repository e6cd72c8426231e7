import type { App } from '@fxdesk/core';
import { BrokerSymbolSchema, ErrorEnvelopeSchema, SourceSlugSchema } from '@fxdesk/schemas';
import { z } from 'zod';
import type { BookReads } from '../book.js';

const PriceSchema = z.string().meta({ description: 'Price, exact decimal string in the symbol digits' });
const StopSchema = z.string().nullable().meta({ description: 'Price, exact decimal string; null when not set' });
const MoneySchema = z.string().meta({ description: 'Account currency, decimal string' });

export const BookQuerySchema = z.strictObject({
  symbol: BrokerSymbolSchema.optional().meta({ description: 'Only this exact broker symbol' }),
  source: SourceSlugSchema.optional().meta({ description: 'Only what the order comment attributes to this source (slug as in the signal)' }),
});

export const BookPositionSchema = z
  .object({
    ticket: z.string().meta({ description: 'Position ticket' }),
    symbol: z.string(),
    side: z.enum(['buy', 'sell']),
    volume: z.string().meta({ description: 'Open volume, lots' }),
    open_price: PriceSchema,
    sl: StopSchema,
    tp: StopSchema,
    profit: MoneySchema.meta({ description: 'Floating profit of the open volume, account currency' }),
    swap: MoneySchema.meta({ description: 'Swap charged so far, account currency' }),
    magic: z.number().int(),
    comment: z.string().meta({ description: 'The opening order comment' }),
    source: z.string().nullable().meta({ description: 'The source slug the comment carries, null when the comment is not the service’s' }),
    opened_at: z.string().meta({ description: 'ISO 8601 UTC' }),
  })
  .meta({ id: 'OpenPosition' });

export const BookOrderSchema = z
  .object({
    ticket: z.string().meta({ description: 'Order ticket' }),
    symbol: z.string(),
    type: z.enum(['buy_limit', 'sell_limit', 'buy_stop', 'sell_stop']),
    volume: z.string().meta({ description: 'Volume still to fill, lots' }),
    price: PriceSchema,
    sl: StopSchema,
    tp: StopSchema,
    magic: z.number().int(),
    comment: z.string(),
    source: z.string().nullable(),
    placed_at: z.string().meta({ description: 'ISO 8601 UTC' }),
    expiration: z.string().nullable().meta({ description: 'ISO 8601 UTC; null = good till cancelled' }),
  })
  .meta({ id: 'RestingOrder' });

export function registerBookRoutes(app: App, book: BookReads): void {
  app.get(
    '/v1/positions',
    {
      schema: {
        tags: ['positions'],
        operationId: 'listPositions',
        summary: 'Open positions on the terminal',
        description: 'The terminal’s open positions in the order they opened, filtered by `symbol` and by the source of their order comment.',
        querystring: BookQuerySchema,
        response: { 200: z.object({ positions: z.array(BookPositionSchema) }).meta({ id: 'OpenPositionList' }), 503: ErrorEnvelopeSchema },
      },
    },
    async (request) => book.positions(request.query, request.log),
  );

  app.get(
    '/v1/orders',
    {
      schema: {
        tags: ['positions'],
        operationId: 'listOrders',
        summary: 'Resting pending orders on the terminal',
        description: 'The terminal’s resting orders in the order they were placed, filtered by `symbol` and by the source of their order comment.',
        querystring: BookQuerySchema,
        response: { 200: z.object({ orders: z.array(BookOrderSchema) }).meta({ id: 'RestingOrderList' }), 503: ErrorEnvelopeSchema },
      },
    },
    async (request) => book.orders(request.query, request.log),
  );
}
