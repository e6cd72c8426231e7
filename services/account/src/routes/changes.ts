import type { App } from '@fxdesk/core';
import { ErrorEnvelopeSchema } from '@fxdesk/schemas';
import { z } from 'zod';
import type { AccountReads } from '../account-reads.js';
import { AccountChangesSchema } from '../schemas.js';
import { BROKER_ERROR_RESPONSES, VALIDATION_RESPONSE } from './responses.js';

const ChangesQuerySchema = z.object({
  // OANDA TransactionID: "String representation of the numerical OANDA-assigned TransactionID".
  sinceTransactionId: z
    .string({ message: 'is required' })
    .regex(/^\d{1,20}$/, { message: 'expected a numeric transaction id like 6358' })
    .meta({ description: 'Report what changed after this broker transaction id (required)', example: '6358' }),
});

/** GET /changes?sinceTransactionId=N: the normalized changes and the new lastTransactionId. */
export function registerChangeRoutes(app: App, reads: AccountReads): void {
  app.get(
    '/changes',
    {
      schema: {
        tags: ['account'],
        summary: 'Account changes since a broker transaction id',
        description: 'Poll with the `lastTransactionId` of the previous answer. 422 when `sinceTransactionId` is missing or not a number.',
        querystring: ChangesQuerySchema,
        response: {
          200: AccountChangesSchema,
          404: ErrorEnvelopeSchema.describe('The broker knows no such transaction id, e.g. one past the last (`transaction_not_found`)'),
          ...BROKER_ERROR_RESPONSES,
          ...VALIDATION_RESPONSE,
        },
      },
    },
    async (request) => reads.changes(request.query.sinceTransactionId),
  );
}
