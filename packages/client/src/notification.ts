import {
  DeliveryListSchema,
  NotificationResponseSchema,
  NotificationSkippedSchema,
  type DeliveryList,
  type DeliveryStatus,
  type NotificationChannel,
  type NotificationRequest,
} from '@fxdesk/schemas';
import { z } from 'zod';
import { HttpClient, type ClientOptions, type Query, type ServiceCall } from './http.js';

export { NOTIFICATION_CHANNELS, type DeliveryRecord, type NotificationChannel, type NotificationRequest } from '@fxdesk/schemas';

export type NotificationResult =
  { status: 'accepted'; requestId: string; deliveryIds: string[]; deliveriesAttempted: number; replayed: boolean } | { status: 'skipped' };

/** Each call NotificationClient makes, as the service's OpenAPI document names it, with the schema its answer is checked with. */
export const notificationCalls = {
  send: { method: 'POST', path: '/notifications', status: 201, schema: NotificationResponseSchema },
  sendSkipped: { method: 'POST', path: '/notifications', status: 200, schema: NotificationSkippedSchema },
  deliveries: { method: 'GET', path: '/notifications', status: 200, schema: DeliveryListSchema },
} as const satisfies Record<string, ServiceCall>;

/** Client of the notification service (X-API-Key, when the service has a key). */
export class NotificationClient {
  private readonly http: HttpClient;

  constructor(options: ClientOptions) {
    this.http = new HttpClient('notification', options, 'x-api-key');
  }

  /** POST /notifications: 201 accepted (or replayed for a repeated idempotencyKey), or 200 skipped. */
  async send(request: NotificationRequest): Promise<NotificationResult> {
    const { send, sendSkipped } = notificationCalls;
    const res = await this.http.call({
      method: send.method,
      path: send.path,
      body: request,
      schema: z.union([send.schema, sendSkipped.schema]),
      statuses: [send.status, sendSkipped.status],
    });
    if ('status' in res.data) return { status: 'skipped' };
    return { status: 'accepted', ...res.data, replayed: res.headers['idempotent-replayed'] === 'true' };
  }

  /** GET /notifications: delivery records, newest first. */
  async deliveries(
    query: Query & { source?: string; recipient?: string; status?: DeliveryStatus; channel?: NotificationChannel; limit?: number; cursor?: string } = {},
  ): Promise<DeliveryList> {
    return (await this.http.send(notificationCalls.deliveries, { query })).data;
  }

  close(): Promise<void> {
    return this.http.close();
  }
}
