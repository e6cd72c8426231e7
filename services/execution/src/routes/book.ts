import type { App } from '@fxdesk/core';
import { BookQuerySchema, ErrorEnvelopeSchema, OpenPositionListSchema, RestingOrderListSchema } from '@fxdesk/schemas';
import type { BookReads } from '../book.js';

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
        response: { 200: OpenPositionListSchema, 503: ErrorEnvelopeSchema },
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
        response: { 200: RestingOrderListSchema, 503: ErrorEnvelopeSchema },
      },
    },
    async (request) => book.orders(request.query, request.log),
  );
}
