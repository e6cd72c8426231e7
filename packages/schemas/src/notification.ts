import { z } from 'zod';

/**
 * The notification service's contract (spec 002 D): the request and response schemas of its
 * routes, shared by the service (validation, the OpenAPI document) and @fxdesk/client (each
 * answer checked with the same schema).
 */

/** The four channels, spelled as spec 002 (D) spells them. */
export const NOTIFICATION_CHANNELS = ['CHAT_APP', 'EMAIL', 'SMS', 'MESSENGER_APP'] as const;
export const NotificationChannelSchema = z
  .enum(NOTIFICATION_CHANNELS)
  .meta({ id: 'NotificationChannel', description: 'CHAT_APP = Telegram, EMAIL = SMTP, SMS = Twilio, MESSENGER_APP = WhatsApp' });
export type NotificationChannel = z.infer<typeof NotificationChannelSchema>;

/**
 * Delivery statuses. `pending` → `sending` → (`queued`) → `sent` → `delivered` → `read` is the
 * forward path; `queued` is a provider's acceptance into its own send queue (Twilio's 201), before
 * it has sent anything. `failed` ends it (the provider refused, the attempts ran out, or the
 * platform reported a failure); `undelivered` too: the provider sent it and the carrier reported it
 * could not reach the device (Twilio). The last two were added after the first six; the order of
 * this list is not the order of the path.
 */
export const DELIVERY_STATUSES = ['pending', 'sending', 'sent', 'delivered', 'read', 'failed', 'queued', 'undelivered'] as const;
export const DeliveryStatusSchema = z.enum(DELIVERY_STATUSES).meta({ id: 'DeliveryStatus' });
export type DeliveryStatus = z.infer<typeof DeliveryStatusSchema>;

/** Which transport sent a delivery. */
export const NOTIFICATION_PROVIDERS = ['telegram', 'smtp', 'twilio', 'whatsapp', 'sandbox'] as const;
export type NotificationProvider = (typeof NOTIFICATION_PROVIDERS)[number];

export const NotificationContentTypeSchema = z.enum(['text', 'html']);
export type NotificationContentType = z.infer<typeof NotificationContentTypeSchema>;

/** A provider's error as the provider reported it (`code` is its own code, as a string). */
export const ProviderErrorSchema = z
  .object({
    code: z.string().meta({
      description:
        "The provider's error code (Telegram error_code, Twilio code, WhatsApp code, SMTP reply code) or one of ours: network_error, timeout, attempts_exhausted, outcome_unknown",
    }),
    message: z.string(),
    httpStatus: z.number().int().optional(),
  })
  .meta({ id: 'ProviderError' });
export type ProviderError = z.infer<typeof ProviderErrorSchema>;

/** One delivery: one message to one recipient of one channel, and how far it got. */
export const DeliveryRecordSchema = z
  .object({
    id: z.uuid(),
    requestId: z.uuid(),
    channel: NotificationChannelSchema,
    recipient: z.string(),
    source: z.string(),
    status: DeliveryStatusSchema,
    attempts: z.number().int().meta({ description: 'Send attempts made so far' }),
    provider: z.enum(NOTIFICATION_PROVIDERS).nullable().meta({ description: 'Which transport sent it; null until the first attempt ends' }),
    providerMessageId: z
      .string()
      .nullable()
      .meta({
        description:
          "The provider's id of the message: Telegram message_id (of each part, comma-separated, for a message sent in parts; " +
          '<chat id>:<message_id> when sent to the supergroup a group moved to), the email Message-ID, Twilio SM… sid, WhatsApp wamid, sandbox-<id>',
      }),
    error: ProviderErrorSchema.nullable().meta({ description: 'The last error: the reason of a failure, or of the last retry while pending' }),
    subject: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
    nextAttemptAt: z.string().nullable().meta({ description: 'When a pending delivery is next tried' }),
    sentAt: z.string().nullable(),
    deliveredAt: z.string().nullable(),
    readAt: z.string().nullable(),
    sandboxRequest: z.unknown().optional().meta({ description: 'Sandbox only: the exact provider request that would have been sent' }),
  })
  .meta({ id: 'DeliveryRecord' });
export type DeliveryRecord = z.infer<typeof DeliveryRecordSchema>;

/** POST /notifications. */
export const NotificationRequestSchema = z
  .strictObject({
    message: z.string().min(1).max(65_536).meta({ description: 'Plain text or HTML body' }),
    channels: z.array(NotificationChannelSchema).min(1).max(16).meta({ description: 'At least one channel; repeats count once' }),
    source: z.string().min(1).max(100).meta({ description: 'Identifier of the calling service', example: 'strategy' }),
    subject: z.string().min(1).max(255).optional().meta({ description: 'The email subject; the first line on the other channels' }),
    contentType: NotificationContentTypeSchema.default('text'),
    idempotencyKey: z.string().min(1).max(200).optional().meta({ description: 'Deduplicates retries within the same source' }),
  })
  .meta({ id: 'NotificationRequest' });
/** A notification request as a caller sends it (`contentType` may be left out). */
export type NotificationRequest = z.input<typeof NotificationRequestSchema>;
/** A notification request as the service reads it (defaults applied). */
export type ValidNotificationRequest = z.output<typeof NotificationRequestSchema>;

/** POST /notifications 201: the request and its deliveries are stored. */
export const NotificationResponseSchema = z
  .object({
    requestId: z.uuid(),
    deliveryIds: z.array(z.uuid()),
    deliveriesAttempted: z.number().int().meta({ description: 'Deliveries created: one per (channel, configured recipient)' }),
  })
  .meta({ id: 'NotificationResponse' });
export type NotificationResponse = z.infer<typeof NotificationResponseSchema>;

/** POST /notifications 200 while NOTIFICATIONS_ENABLED=false: nothing is stored. */
export const NotificationSkippedSchema = z.object({ status: z.literal('skipped') }).meta({ id: 'NotificationSkipped' });
export type NotificationSkipped = z.infer<typeof NotificationSkippedSchema>;

/** GET /notifications. */
export const DeliveryListQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(500).default(50).meta({ description: 'Records per page, 1 to 500; default 50' }),
  source: z.string().min(1).max(100).optional(),
  recipient: z.string().min(1).max(320).optional(),
  status: DeliveryStatusSchema.optional(),
  channel: NotificationChannelSchema.optional(),
  cursor: z.string().min(1).max(200).optional().meta({ description: 'nextCursor of the previous page' }),
});
export type DeliveryListQuery = z.output<typeof DeliveryListQuerySchema>;

export const DeliveryListSchema = z
  .object({
    items: z.array(DeliveryRecordSchema),
    nextCursor: z.string().nullable().meta({ description: 'Pass as cursor for the next page; null on the last page' }),
  })
  .meta({ id: 'DeliveryList' });
export type DeliveryList = z.infer<typeof DeliveryListSchema>;

/** GET /notifications/:id. */
export const DeliveryIdParamsSchema = z.object({ id: z.string().min(1).max(200) });

/**
 * GET /webhooks/messenger_app: the platform's subscription check
 * (https://developers.facebook.com/docs/graph-api/webhooks/getting-started).
 */
export const WebhookVerificationQuerySchema = z
  .object({
    'hub.mode': z.string().optional(),
    'hub.verify_token': z.string().optional(),
    'hub.challenge': z.string().max(1000).optional(),
  })
  .loose();
export type WebhookVerificationQuery = z.infer<typeof WebhookVerificationQuerySchema>;

/** The answer to a good verification: the `hub.challenge` sent, as text. */
export const WebhookChallengeSchema = z.string();

/** One of the platform's `errors[]` on a failed status. */
export const WebhookErrorSchema = z
  .object({
    code: z.number().optional(),
    title: z.string().optional(),
    message: z.string().optional(),
    error_data: z.object({ details: z.string().optional() }).loose().optional(),
  })
  .loose();
export type WebhookError = z.infer<typeof WebhookErrorSchema>;

/**
 * One item of `entry[].changes[].value.statuses[]`
 * (https://developers.facebook.com/docs/whatsapp/cloud-api/webhooks/components): read item by
 * item, so a malformed one is ignored rather than refusing the whole payload.
 */
export const WebhookStatusSchema = z
  .object({
    id: z.string().min(1),
    status: z.string(),
    timestamp: z.string().optional(),
    recipient_id: z.string().optional(),
    biz_opaque_callback_data: z.string().optional(),
    errors: z.array(WebhookErrorSchema).optional(),
  })
  .loose();
export type WebhookStatus = z.infer<typeof WebhookStatusSchema>;

/** POST /webhooks/messenger_app: the WhatsApp Business Account notification object. */
export const WebhookNotificationSchema = z
  .object({
    object: z.string().optional(),
    entry: z
      .array(
        z
          .object({
            changes: z
              .array(z.object({ field: z.string().optional(), value: z.object({ statuses: z.array(z.unknown()).optional() }).loose() }).loose())
              .default([]),
          })
          .loose(),
      )
      .default([]),
  })
  .loose();
export type WebhookNotification = z.output<typeof WebhookNotificationSchema>;

/**
 * POST /webhooks/sms: the query of the StatusCallback URL we give Twilio with each message
 * (`delivery`: our delivery id, so a report finds its record before the message's sid is stored).
 */
export const SmsStatusQuerySchema = z.object({ delivery: z.string().max(200).optional() }).loose();
export type SmsStatusQuery = z.infer<typeof SmsStatusQuerySchema>;

/**
 * POST /webhooks/sms: Twilio's outbound message status callback, form-encoded
 * (https://www.twilio.com/docs/usage/webhooks/messaging-webhooks): `ErrorCode` comes with
 * `failed` and `undelivered`; Twilio may add parameters, which are kept (and signed).
 */
export const SmsStatusCallbackSchema = z
  .object({
    MessageSid: z.string().min(1).max(64),
    MessageStatus: z.string().min(1).max(40),
    ErrorCode: z.string().max(20).optional(),
    AccountSid: z.string().optional(),
    To: z.string().optional(),
    From: z.string().optional(),
  })
  .loose()
  .meta({ id: 'SmsStatusCallback' });
export type SmsStatusCallback = z.infer<typeof SmsStatusCallbackSchema>;

/** POST /webhooks/messenger_app 200: what became of the status updates. */
export const WebhookAckSchema = z
  .object({
    received: z.number().int().meta({ description: 'Status updates in the payload' }),
    applied: z.number().int(),
    unchanged: z.number().int().meta({ description: 'Known records the update did not move (never backwards)' }),
    unknown: z.number().int().meta({ description: 'Updates for messages this service does not know: acknowledged, ignored' }),
    ignored: z.number().int().meta({ description: 'Statuses other than sent, delivered, read, failed, or malformed entries' }),
  })
  .meta({ id: 'WebhookAck' });
export type WebhookAck = z.infer<typeof WebhookAckSchema>;
