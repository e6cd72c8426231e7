import type { App } from '@fxdesk/core';
import { BookQuerySchema, ErrorEnvelopeSchema, OpenPositionListSchema, RestingOrderListSchema, TerminalAccountSchema } from '@fxdesk/schemas';
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

  app.get(
    '/v1/account',
    {
      schema: {
        tags: ['positions'],
        operationId: 'account',
        summary: 'The terminal’s account: balance, equity, margin',
        description:
          'The account the terminal trades, now (MT5 account_info): its currency, balance, equity, margin, free margin and leverage. The account service reads it, with the positions, orders and deals, as the account of the desk.',
        response: { 200: TerminalAccountSchema, 503: ErrorEnvelopeSchema },
      },
    },
    async (request) => book.account(request.log),
  );
}
