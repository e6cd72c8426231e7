import type { App } from '@fxdesk/core';
import { accountErrorResponses, AccountDetailsReadSchema, AccountSummaryReadSchema } from '@fxdesk/schemas';
import type { AccountReads } from '../account-reads.js';

/** GET /summary and GET /details: one broker read each, persisted as one snapshot each. */
export function registerAccountRoutes(app: App, reads: AccountReads): void {
  app.get(
    '/summary',
    {
      schema: {
        tags: ['account'],
        summary: 'Normalized account summary; the read is persisted as a snapshot',
        response: { 200: AccountSummaryReadSchema, ...accountErrorResponses.broker, ...accountErrorResponses.storedRead },
      },
    },
    async () => reads.summary(),
  );

  app.get(
    '/details',
    {
      schema: {
        tags: ['account'],
        summary: 'Normalized account details (open trades, positions, pending orders); persisted as a snapshot',
        response: { 200: AccountDetailsReadSchema, ...accountErrorResponses.broker, ...accountErrorResponses.storedRead },
      },
    },
    async () => reads.details(),
  );
}
