import { z } from 'zod';

/** The four channels, spelled as spec 002 (D) spells them. */
export const CHANNELS = ['CHAT_APP', 'EMAIL', 'SMS', 'MESSENGER_APP'] as const;
export const ChannelSchema = z.enum(CHANNELS).meta({ id: 'Channel', description: 'CHAT_APP = Telegram, EMAIL = SMTP, SMS = Twilio, MESSENGER_APP = WhatsApp' });
export type Channel = z.infer<typeof ChannelSchema>;

/**
 * Delivery statuses. `pending` → `sending` → `sent` → `delivered` → `read` is the forward path;
 * `failed` ends it (the provider refused, the attempts ran out, or the platform reported a failure).
 */
export const DELIVERY_STATUSES = ['pending', 'sending', 'sent', 'delivered', 'read', 'failed'] as const;
export const DeliveryStatusSchema = z.enum(DELIVERY_STATUSES).meta({ id: 'DeliveryStatus' });
export type DeliveryStatus = z.infer<typeof DeliveryStatusSchema>;

export const PROVIDERS = ['telegram', 'smtp', 'twilio', 'whatsapp', 'sandbox'] as const;
export type Provider = (typeof PROVIDERS)[number];

/** A provider's error as the provider reported it (`code` is its own code, as a string). */
export const ProviderErrorSchema = z
  .object({
    code: z.string().meta({ description: "The provider's error code (Telegram error_code, Twilio code, WhatsApp code, SMTP reply code) or one of ours: network_error, timeout, attempts_exhausted, outcome_unknown" }),
    message: z.string(),
    httpStatus: z.number().int().optional(),
  })
  .meta({ id: 'ProviderError' });
export type ProviderError = z.infer<typeof ProviderErrorSchema>;

export const DeliveryRecordSchema = z
  .object({
    id: z.uuid(),
    requestId: z.uuid(),
    channel: ChannelSchema,
    recipient: z.string(),
    source: z.string(),
    status: DeliveryStatusSchema,
    attempts: z.number().int().meta({ description: 'Send attempts made so far' }),
    provider: z.enum(PROVIDERS).nullable().meta({ description: 'Which transport sent it; null until the first attempt ends' }),
    providerMessageId: z.string().nullable(),
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

export const NotificationRequestSchema = z
  .strictObject({
    message: z.string().min(1).max(65_536).meta({ description: 'Plain text or HTML body' }),
    channels: z.array(ChannelSchema).min(1).max(16).meta({ description: 'At least one channel; repeats count once' }),
    source: z.string().min(1).max(100).meta({ description: 'Identifier of the calling service', example: 'strategy' }),
    subject: z.string().min(1).max(255).optional().meta({ description: 'The email subject; the first line on the other channels' }),
    contentType: z.enum(['text', 'html']).default('text'),
    idempotencyKey: z.string().min(1).max(200).optional().meta({ description: 'Deduplicates retries within the same source' }),
  })
  .meta({ id: 'NotificationRequest' });

export const NotificationResponseSchema = z
  .object({
    requestId: z.uuid(),
    deliveryIds: z.array(z.uuid()),
    deliveriesAttempted: z.number().int().meta({ description: 'Deliveries created: one per (channel, configured recipient)' }),
  })
  .meta({ id: 'NotificationResponse' });
export type NotificationRequest = z.output<typeof NotificationRequestSchema>;
