import { z } from 'zod';
import { commonSettings, databaseSettings, envBoolean, envInt, envList } from '@fxdesk/core';
import { NOTIFICATION_CHANNELS } from '@fxdesk/schemas';

const TELEGRAM_CHAT_ID = /^(-?\d{1,20}|@[A-Za-z][A-Za-z0-9_]{3,31})$/;
const E164 = /^\+[1-9]\d{6,14}$/;
const WHATSAPP_NUMBER = /^\+?[1-9]\d{6,14}$/;
const EMAIL = /^[^\s@,<>]+@[^\s@,<>]+\.[^\s@,<>]+$/;

/** A comma-separated recipient list whose every item must match `pattern`. */
function recipientList(pattern: RegExp, what: string) {
  return envList().refine((items) => items.every((item) => pattern.test(item)), {
    message: `expected a comma-separated list of ${what}`,
  });
}

function baseUrl(defaultUrl: string) {
  return z
    .url({ protocol: /^https?$/, message: 'expected an http:// or https:// URL' })
    .default(defaultUrl)
    .transform((u) => u.replace(/\/+$/, ''));
}

/** Every setting of the notification service; `.env.example` and the README document each one. */
export const NotificationConfigSchema = z
  .object({
    ...commonSettings(3010),
    NOTIFICATION_API_KEY: z.string().min(8, { message: 'must be at least 8 characters' }).optional(),
    NOTIFICATIONS_ENABLED: envBoolean(true),

    // CHAT_APP: Telegram Bot API.
    CHAT_APP_BOT_TOKEN: z.string().min(1).optional(),
    CHAT_APP_CHAT_IDS: recipientList(TELEGRAM_CHAT_ID, 'Telegram chat ids (numbers) or @channel names'),
    CHAT_APP_BASE_URL: baseUrl('https://api.telegram.org'),

    // EMAIL: SMTP through nodemailer.
    EMAIL_SMTP_URL: z.url({ protocol: /^smtps?$/, message: 'expected an smtp:// or smtps:// URL' }).optional(),
    EMAIL_FROM: z.string().min(3).optional(),
    EMAIL_TO: recipientList(EMAIL, 'email addresses'),

    // SMS: Twilio Messages API.
    SMS_ACCOUNT_SID: z
      .string()
      .regex(/^AC[0-9a-fA-F]{32}$/, { message: 'expected a Twilio Account SID (AC + 32 hex)' })
      .optional(),
    SMS_AUTH_TOKEN: z.string().min(1).optional(),
    SMS_FROM: z
      .string()
      .regex(/^(\+[1-9]\d{6,14}|MG[0-9a-fA-F]{32}|[A-Za-z0-9 ]{1,11})$/, {
        message: 'expected an E.164 number, a Messaging Service SID (MG…) or an alphanumeric sender id',
      })
      .optional(),
    SMS_TO: recipientList(E164, 'E.164 phone numbers like +14155550100'),
    SMS_BASE_URL: baseUrl('https://api.twilio.com'),
    /** Where Twilio reaches this service (scheme, host, and any path prefix a proxy strips): its status callbacks go to `{it}/webhooks/sms`. */
    PUBLIC_BASE_URL: z
      .url({ protocol: /^https?$/, message: 'expected an http:// or https:// URL' })
      .transform((u) => u.replace(/\/+$/, ''))
      .optional(),

    // MESSENGER_APP: WhatsApp Cloud API.
    MESSENGER_APP_TOKEN: z.string().min(1).optional(),
    MESSENGER_APP_PHONE_NUMBER_ID: z
      .string()
      .regex(/^\d{1,30}$/, { message: 'expected the numeric phone number id' })
      .optional(),
    MESSENGER_APP_TO: recipientList(WHATSAPP_NUMBER, 'phone numbers with country code like 14155550100'),
    MESSENGER_APP_BASE_URL: baseUrl('https://graph.facebook.com'),
    MESSENGER_APP_API_VERSION: z
      .string()
      .regex(/^v\d+\.\d+$/, { message: 'expected a Graph API version like v23.0' })
      .default('v23.0'),
    MESSENGER_APP_VERIFY_TOKEN: z.string().min(8, { message: 'must be at least 8 characters' }).optional(),
    MESSENGER_APP_APP_SECRET: z.string().min(8, { message: 'must be at least 8 characters' }).optional(),
    /** The approved template a user gets when their 24-hour window is not open (unset: always free-form text). */
    MESSENGER_APP_TEMPLATE: z
      .string()
      .regex(/^[a-z0-9_]{1,512}$/, { message: 'expected a template name: lowercase letters, digits and underscores' })
      .optional(),
    MESSENGER_APP_TEMPLATE_LANGUAGE: z
      .string()
      .regex(/^[a-z]{2,3}(_[A-Za-z]{2,4})?$/, { message: 'expected a template language code like en or en_US' })
      .default('en_US'),
    /** What fills the template's body parameters {{1}}, {{2}}, …, in order. */
    MESSENGER_APP_TEMPLATE_PARAMETERS: envList(['message']).pipe(
      z
        .array(z.enum(['subject', 'message'], { message: 'expected subject or message' }))
        .min(1)
        .max(10),
    ),

    // The outbox.
    MAX_DELIVERY_ATTEMPTS: envInt(5, { min: 1, max: 100 }),
    RETRY_BASE_MS: envInt(1000, { min: 1, max: 3_600_000 }),
    RETRY_MAX_MS: envInt(300_000, { min: 1, max: 86_400_000 }),
    PROVIDER_TIMEOUT_MS: envInt(10_000, { min: 100, max: 300_000 }),
    OUTBOX_CONCURRENCY: envInt(32, { min: 1, max: 1000 }),
    OUTBOX_POLL_INTERVAL_MS: envInt(1000, { min: 10, max: 600_000 }),
    /** Channels sent at most once: a delivery whose outcome is unknown fails instead of being resent. */
    AT_MOST_ONCE_CHANNELS: envList().pipe(z.array(z.enum(NOTIFICATION_CHANNELS, { message: `expected channels among ${NOTIFICATION_CHANNELS.join(', ')}` }))),
    /** postgres://… keeps the notifications in PostgreSQL, for several replicas on one database; unset: SQLite in DATA_DIR. */
    /** DATABASE_URL, and REPLICA_ID: this replica's name on the deliveries it claims (only a claim's owner records its retry or failure). */
    ...databaseSettings(),
  })
  .superRefine((c, ctx) => {
    // A half-configured channel is a mistake, never a silent fall-back to the sandbox.
    const together = (names: (keyof typeof c)[]) => {
      const set = names.filter((n) => c[n] !== undefined);
      if (set.length === 0 || set.length === names.length) return;
      for (const n of names.filter((name) => c[name] === undefined)) {
        ctx.addIssue({ code: 'custom', path: [n], message: `is required when ${set.join(', ')} ${set.length > 1 ? 'are' : 'is'} set` });
      }
    };
    together(['EMAIL_SMTP_URL', 'EMAIL_FROM']);
    together(['SMS_ACCOUNT_SID', 'SMS_AUTH_TOKEN', 'SMS_FROM']);
    together(['MESSENGER_APP_TOKEN', 'MESSENGER_APP_PHONE_NUMBER_ID']);
    // A subscribed webhook with no secret refuses every update: a production desk must not start so.
    if (c.NODE_ENV === 'production' && c.MESSENGER_APP_VERIFY_TOKEN !== undefined && c.MESSENGER_APP_APP_SECRET === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['MESSENGER_APP_APP_SECRET'],
        message: 'is required when NODE_ENV=production and MESSENGER_APP_VERIFY_TOKEN is set (the webhook would refuse every status update)',
      });
    }
    if (c.RETRY_MAX_MS < c.RETRY_BASE_MS) {
      ctx.addIssue({ code: 'custom', path: ['RETRY_MAX_MS'], message: 'must be at least RETRY_BASE_MS' });
    }
  });

export type NotificationConfig = z.output<typeof NotificationConfigSchema>;
