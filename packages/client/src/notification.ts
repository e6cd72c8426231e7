import { z } from 'zod';
import { HttpClient, type ClientOptions, type Query } from './http.js';

export const NOTIFICATION_CHANNELS = ['CHAT_APP', 'EMAIL', 'SMS', 'MESSENGER_APP'] as const;
export type NotificationChannel = (typeof NOTIFICATION_CHANNELS)[number];

export interface NotificationRequest {
  message: string;
  channels: NotificationChannel[];
  source: string;
  subject?: string;
  contentType?: 'text' | 'html';
  /** Deduplicates retries within the same source: a repeat is answered, never sent again. */
  idempotencyKey?: string;
}

const AcceptedSchema = z.looseObject({ requestId: z.string(), deliveryIds: z.array(z.string()), deliveriesAttempted: z.number().int() });
const SkippedSchema = z.looseObject({ status: z.literal('skipped') });

export type NotificationResult =
  | { status: 'accepted'; requestId: string; deliveryIds: string[]; deliveriesAttempted: number; replayed: boolean }
  | { status: 'skipped' };

/** One delivery record (spec 002 D); other fields pass through. */
export const DeliveryRecordSchema = z.looseObject({
  id: z.string(),
  requestId: z.string(),
  channel: z.enum(NOTIFICATION_CHANNELS),
  recipient: z.string(),
  source: z.string(),
  status: z.enum(['pending', 'sending', 'sent', 'delivered', 'read', 'failed']),
  attempts: z.number().int(),
  provider: z.string().nullable(),
  createdAt: z.string(),
});
export type DeliveryRecord = z.infer<typeof DeliveryRecordSchema>;

const DeliveryListSchema = z.looseObject({ items: z.array(DeliveryRecordSchema), nextCursor: z.string().nullable() });

/** Client of the notification service (X-API-Key, when the service has a key). */
export class NotificationClient {
  private readonly http: HttpClient;

  constructor(options: ClientOptions) {
    this.http = new HttpClient('notification', options, options.apiKey ? { 'x-api-key': options.apiKey } : {});
  }

  /** POST /notifications: 201 accepted (or replayed for a repeated idempotencyKey), or 200 skipped. */
  async send(request: NotificationRequest): Promise<NotificationResult> {
    const res = await this.http.call({
      method: 'POST',
      path: '/notifications',
      body: request,
      schema: z.union([AcceptedSchema, SkippedSchema]),
      statuses: [200, 201],
    });
    const data = res.data;
    if ('status' in data && data.status === 'skipped') return { status: 'skipped' };
    const accepted = AcceptedSchema.parse(data);
    return {
      status: 'accepted',
      requestId: accepted.requestId,
      deliveryIds: accepted.deliveryIds,
      deliveriesAttempted: accepted.deliveriesAttempted,
      replayed: res.headers['idempotent-replayed'] === 'true',
    };
  }

  /** GET /notifications: delivery records, newest first. */
  async deliveries(query: Query & { source?: string; status?: string; channel?: NotificationChannel; limit?: number; cursor?: string } = {}) {
    return (await this.http.call({ method: 'GET', path: '/notifications', query, schema: DeliveryListSchema })).data;
  }

  close(): Promise<void> {
    return this.http.close();
  }
}
