import type { App } from '@fxdesk/core';
import {
  AccountSummaryReadSchema,
  ConsoleServicesSchema,
  DeliveryListQuerySchema,
  DeliveryListSchema,
  ErrorEnvelopeSchema,
  SignalIdParamsSchema,
  SignalListQuerySchema,
  SignalListSchema,
  SignalRecordSchema,
} from '@fxdesk/schemas';
import { CONSOLE_REFUSALS } from '../console-access.js';
import type { ConsoleReads } from '../console-reads.js';

/** The failures of a read through the strategy to another service. */
const READ_THROUGH_FAILURES = {
  404: ErrorEnvelopeSchema.describe('NOT_CONFIGURED: the strategy has no URL for that service'),
  502: ErrorEnvelopeSchema.describe('DOWNSTREAM_ERROR: the service answered with an error (its code in the message)'),
  503: ErrorEnvelopeSchema.describe('DOWNSTREAM_UNAVAILABLE: the service cannot be reached or is not ready'),
  504: ErrorEnvelopeSchema.describe('DOWNSTREAM_TIMEOUT: the service did not answer within DOWNSTREAM_TIMEOUT_MS'),
};

/** GET /console/services, /console/account, /console/orders[/{signal_id}], /console/deliveries: the other services read with the strategy's keys. */
export function registerConsoleReadRoutes(app: App, reads: ConsoleReads): void {
  app.get(
    '/console/services',
    {
      schema: {
        tags: ['console'],
        summary: "Each downstream service's readiness, read now from its /health/ready",
        response: { 200: ConsoleServicesSchema, ...CONSOLE_REFUSALS },
      },
    },
    async () => reads.services(),
  );

  app.get(
    '/console/account',
    {
      schema: {
        tags: ['console'],
        summary: "The account service's summary (ACCOUNT_URL), read with the strategy's key",
        response: { 200: AccountSummaryReadSchema, ...CONSOLE_REFUSALS, ...READ_THROUGH_FAILURES },
      },
    },
    async () => reads.account(),
  );

  app.get(
    '/console/orders',
    {
      schema: {
        tags: ['console'],
        summary: "The execution service's orders (GET /v1/signals), newest first",
        description: 'The same filters and cursor as the execution service: `state`, `symbol`, `source`, `from`, `to`, `limit`, `cursor`.',
        querystring: SignalListQuerySchema,
        response: { 200: SignalListSchema, ...CONSOLE_REFUSALS, ...READ_THROUGH_FAILURES },
      },
    },
    async (request) => reads.orders(request.query),
  );

  app.get(
    '/console/orders/:signal_id',
    {
      schema: {
        tags: ['console'],
        summary: 'One order as the execution service recorded it (GET /v1/signals/{signal_id})',
        params: SignalIdParamsSchema,
        response: {
          200: SignalRecordSchema,
          ...CONSOLE_REFUSALS,
          ...READ_THROUGH_FAILURES,
          404: ErrorEnvelopeSchema.describe('ORDER_NOT_FOUND: the execution service has no such signal; NOT_CONFIGURED: no EXECUTION_URL'),
        },
      },
    },
    async (request) => reads.order(request.params.signal_id),
  );

  app.get(
    '/console/deliveries',
    {
      schema: {
        tags: ['console'],
        summary: "The notification service's deliveries (GET /notifications), newest first",
        description: 'The same filters and cursor as the notification service: `source`, `recipient`, `status`, `channel`, `limit`, `cursor`.',
        querystring: DeliveryListQuerySchema,
        response: { 200: DeliveryListSchema, ...CONSOLE_REFUSALS, ...READ_THROUGH_FAILURES },
      },
    },
    async (request) => reads.deliveries(request.query),
  );
}
