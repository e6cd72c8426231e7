import type { App } from '@fxdesk/core';
import { z } from 'zod';
import type { AccountReads } from '../account-reads.js';
import { AccountDetailsSchema, AccountSummarySchema, SnapshotRefSchema } from '../schemas.js';
import { BROKER_ERROR_RESPONSES } from './responses.js';

const SummaryResponseSchema = z.object({ account: AccountSummarySchema, snapshot: SnapshotRefSchema }).meta({ id: 'AccountSummaryRead' });
const DetailsResponseSchema = z.object({ account: AccountDetailsSchema, snapshot: SnapshotRefSchema }).meta({ id: 'AccountDetailsRead' });

/** GET /summary and GET /details: one broker read each, persisted as one snapshot each. */
export function registerAccountRoutes(app: App, reads: AccountReads): void {
  app.get(
    '/summary',
    {
      schema: {
        tags: ['account'],
        summary: 'Normalized account summary; the read is persisted as a snapshot',
        response: { 200: SummaryResponseSchema, ...BROKER_ERROR_RESPONSES },
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
        response: { 200: DetailsResponseSchema, ...BROKER_ERROR_RESPONSES },
      },
    },
    async () => reads.details(),
  );
}
