import type { App } from '@fxdesk/core';
import { DealListQuerySchema, DealListSchema, ErrorEnvelopeSchema, MAX_DEALS_RANGE_DAYS } from '@fxdesk/schemas';
import type { DealHistory } from '../deals.js';

export function registerDealRoutes(app: App, deals: DealHistory): void {
  app.get(
    '/v1/deals',
    {
      schema: {
        tags: ['positions'],
        operationId: 'listDeals',
        summary: 'History deals on the terminal: entries and exits, by the service, by hand or at a stop',
        description:
          `The terminal’s deals that traded in [from, to), at most ${MAX_DEALS_RANGE_DAYS} days, oldest first, filtered by position, symbol and the source of the ` +
          'position’s opening order comment, with profit, commission and swap in the account currency and the MT5 reason (expert, sl, tp, so, client…). ' +
          'Pass `next_cursor` back as `cursor`, with the same query, for the next page until it is null (another cursor: 422 invalid_cursor). Read live from the terminal, nothing is stored.',
        querystring: DealListQuerySchema,
        response: { 200: DealListSchema, 422: ErrorEnvelopeSchema, 503: ErrorEnvelopeSchema },
      },
    },
    async (request) => deals.list(request.query, request.log),
  );
}
