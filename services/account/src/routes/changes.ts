import type { App } from '@fxdesk/core';
import { AccountChangesQuerySchema, AccountChangesSchema, accountErrorResponses } from '@fxdesk/schemas';
import type { AccountReads } from '../account-reads.js';

/** GET /changes?sinceTransactionId=N: the normalized changes and the new lastTransactionId. */
export function registerChangeRoutes(app: App, reads: AccountReads): void {
  app.get(
    '/changes',
    {
      schema: {
        tags: ['account'],
        summary: 'Account changes since a broker transaction id',
        description: 'Poll with the `lastTransactionId` of the previous answer. 422 when `sinceTransactionId` is missing or not a number.',
        querystring: AccountChangesQuerySchema,
        response: {
          200: AccountChangesSchema,
          ...accountErrorResponses.unknownTransaction,
          ...accountErrorResponses.broker,
          ...accountErrorResponses.badQuery,
        },
      },
    },
    async (request) => reads.changes(request.query.sinceTransactionId),
  );
}
