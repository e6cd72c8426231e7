import { AppError, protectRoutes, type App } from '@fxdesk/core';
import { ErrorEnvelopeSchema } from '@fxdesk/schemas';
import { z } from 'zod';
import type { Notifier } from '../notifier.js';
import { ChannelSchema, DeliveryRecordSchema, DeliveryStatusSchema, NotificationRequestSchema, NotificationResponseSchema } from '../records.js';
import { decodeCursor, encodeCursor, type NotificationStore } from '../store.js';

const SkippedSchema = z.object({ status: z.literal('skipped') }).meta({ id: 'NotificationSkipped' });

const ListQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(500).default(50).meta({ description: 'Records per page, 1 to 500; default 50' }),
  source: z.string().min(1).max(100).optional(),
  recipient: z.string().min(1).max(320).optional(),
  status: DeliveryStatusSchema.optional(),
  channel: ChannelSchema.optional(),
  cursor: z.string().min(1).max(200).optional().meta({ description: 'nextCursor of the previous page' }),
});

const ListResponseSchema = z
  .object({
    items: z.array(DeliveryRecordSchema),
    nextCursor: z.string().nullable().meta({ description: 'Pass as cursor for the next page; null on the last page' }),
  })
  .meta({ id: 'DeliveryList' });


export interface NotificationRoutesOptions {
  apiKey: string | undefined;
  enabled: boolean;
  notifier: Notifier;
  store: NotificationStore;
}

/** POST /notifications, GET /notifications, GET /notifications/:id — behind NOTIFICATION_API_KEY when set. */
export async function notificationRoutes(app: App, o: NotificationRoutesOptions): Promise<void> {
  protectRoutes(app, { header: 'x-api-key', key: o.apiKey, allowBearer: true, schemes: ['apiKey', 'bearer'] });

  app.post(
    '/notifications',
    {
      schema: {
        tags: ['notifications'],
        summary: 'Send a message to every configured recipient of each channel',
        description:
          'Stores the request and one delivery per (channel, recipient) in one transaction, then answers 201; the outbox sends them. ' +
          'A repeated (source, idempotencyKey) answers the original 201 body with `Idempotent-Replayed: true` and sends nothing. ' +
          'With NOTIFICATIONS_ENABLED=false the answer is 200 `{"status":"skipped"}` and nothing is stored.',
        body: NotificationRequestSchema,
        response: { 200: SkippedSchema, 201: NotificationResponseSchema },
      },
    },
    async (request, reply) => {
      if (!o.enabled) return reply.status(200).send({ status: 'skipped' as const });
      const result = await o.notifier.submit(request.body);
      if (result.replayed) reply.header('idempotent-replayed', 'true');
      return reply.status(201).send({ requestId: result.requestId, deliveryIds: result.deliveryIds, deliveriesAttempted: result.deliveriesAttempted });
    },
  );

  app.get(
    '/notifications',
    {
      schema: {
        tags: ['notifications'],
        summary: 'List delivery records, newest first',
        description: 'Filters match exactly; `limit` defaults to 50 (at most 500); follow `nextCursor` for the next page.',
        querystring: ListQuerySchema,
        response: { 200: ListResponseSchema },
      },
    },
    async (request) => {
      const { limit, cursor: cursorText, ...filters } = request.query;
      const cursor = cursorText === undefined ? undefined : decodeCursor(cursorText);
      if (cursorText !== undefined && !cursor) {
        throw new AppError('validation_error', 'query.cursor: not a cursor this service issued', {
          details: [{ path: 'query.cursor', message: 'not a cursor this service issued' }],
        });
      }
      const page = o.store.list(filters, limit, cursor);
      return { items: page.items, nextCursor: page.next ? encodeCursor(page.next) : null };
    },
  );

  app.get(
    '/notifications/:id',
    {
      schema: {
        tags: ['notifications'],
        summary: 'One delivery record',
        params: z.object({ id: z.string().min(1).max(200) }),
        response: { 200: DeliveryRecordSchema, 404: ErrorEnvelopeSchema },
      },
    },
    async (request) => {
      const record = o.store.get(request.params.id);
      if (!record) throw new AppError('not_found', `no delivery record ${request.params.id.slice(0, 100)}`);
      return record;
    },
  );
}
