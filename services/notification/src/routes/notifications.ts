import type { App } from '@fxdesk/core';
import {
  DeliveryIdParamsSchema,
  DeliveryListQuerySchema,
  DeliveryListSchema,
  DeliveryRecordSchema,
  ErrorEnvelopeSchema,
  NotificationRequestSchema,
  NotificationResponseSchema,
  NotificationSkippedSchema,
} from '@fxdesk/schemas';
import type { Notifier } from '../notifier.js';

/** POST /notifications, GET /notifications, GET /notifications/:id. */
export function registerNotificationRoutes(app: App, notifier: Notifier): void {
  app.post(
    '/notifications',
    {
      schema: {
        tags: ['notifications'],
        summary: 'Send a message to every configured recipient of each channel',
        description:
          'Stores the request and one delivery per (channel, recipient) in one transaction, then answers 201; the outbox sends them. ' +
          'A repeated (source, idempotencyKey) answers the original 201 body with `Idempotent-Replayed: true` and sends nothing. ' +
          'With NOTIFICATIONS_ENABLED=false the answer is 200 `{"status":"skipped"}` and nothing is stored. ' +
          'A `message` that shows no text (HTML that renders to nothing, e.g. only tags or comments, or white space only) is refused with 422.',
        body: NotificationRequestSchema,
        response: {
          200: NotificationSkippedSchema,
          201: NotificationResponseSchema,
          422: ErrorEnvelopeSchema.describe(
            'The body failed validation (`validation_error`, `details` naming each field), unknown fields included; ' +
              'or `message` renders to no text (`details[0].path` is `body.message`)',
          ),
        },
      },
    },
    async (request, reply) => {
      const result = await notifier.submit(request.body);
      if (result.status === 'skipped') return reply.status(200).send(result);
      if (result.replayed) reply.header('idempotent-replayed', 'true');
      return reply.status(201).send(result.response);
    },
  );

  app.get(
    '/notifications',
    {
      schema: {
        tags: ['notifications'],
        summary: 'List delivery records, newest first',
        description: 'Filters match exactly; `limit` defaults to 50 (at most 500); follow `nextCursor` for the next page.',
        querystring: DeliveryListQuerySchema,
        response: { 200: DeliveryListSchema },
      },
    },
    async (request) => notifier.list(request.query),
  );

  app.get(
    '/notifications/:id',
    {
      schema: {
        tags: ['notifications'],
        summary: 'One delivery record',
        params: DeliveryIdParamsSchema,
        response: { 200: DeliveryRecordSchema, 404: ErrorEnvelopeSchema },
      },
    },
    async (request) => notifier.get(request.params.id),
  );
}
