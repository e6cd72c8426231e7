/**
 * The WhatsApp Cloud API webhook (https://developers.facebook.com/docs/graph-api/webhooks/getting-started,
 * https://developers.facebook.com/docs/whatsapp/cloud-api/webhooks/components).
 *
 * - GET: the verification request, `hub.mode=subscribe&hub.verify_token=…&hub.challenge=…`;
 *   answered 200 with the challenge as text when the token equals MESSENGER_APP_VERIFY_TOKEN, else 403.
 * - POST: event notifications, signed with `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw
 *   body keyed by the app secret>`. Status updates sit in `entry[].changes[].value.statuses[]`
 *   (`id` = the wamid, `status` sent | delivered | read | failed, `timestamp` in Unix seconds,
 *   `errors[]` on failure, `biz_opaque_callback_data` as we sent it).
 *
 * Neither route takes NOTIFICATION_API_KEY: the platform cannot send it. The verify token and the
 * signature protect them instead.
 */
import { createHmac } from 'node:crypto';
import { AppError, secretsEqual, type App } from '@fxdesk/core';
import { ErrorEnvelopeSchema } from '@fxdesk/schemas';
import { z } from 'zod';
import type { ProviderError } from '../records.js';
import type { NotificationStore } from '../store.js';

const WebhookErrorSchema = z
  .object({
    code: z.number().optional(),
    title: z.string().optional(),
    message: z.string().optional(),
    error_data: z.object({ details: z.string().optional() }).loose().optional(),
  })
  .loose();

const StatusSchema = z
  .object({
    id: z.string().min(1),
    status: z.string(),
    timestamp: z.string().optional(),
    recipient_id: z.string().optional(),
    biz_opaque_callback_data: z.string().optional(),
    errors: z.array(WebhookErrorSchema).optional(),
  })
  .loose();

const NotificationSchema = z
  .object({
    object: z.string().optional(),
    entry: z
      .array(
        z
          .object({
            changes: z.array(z.object({ field: z.string().optional(), value: z.object({ statuses: z.array(z.unknown()).optional() }).loose() }).loose()).default([]),
          })
          .loose(),
      )
      .default([]),
  })
  .loose();

const AckSchema = z
  .object({
    received: z.number().int().meta({ description: 'Status updates in the payload' }),
    applied: z.number().int(),
    unchanged: z.number().int().meta({ description: 'Known records the update did not move (never backwards)' }),
    unknown: z.number().int().meta({ description: 'Updates for messages this service does not know: acknowledged, ignored' }),
    ignored: z.number().int().meta({ description: 'Statuses other than sent, delivered, read, failed, or malformed entries' }),
  })
  .meta({ id: 'WebhookAck' });

export interface WebhookRoutesOptions {
  verifyToken: string | undefined;
  appSecret: string | undefined;
  store: NotificationStore;
  now: () => number;
}

/** `sha256=<hex>` of the raw body, compared in constant time. */
export function isValidSignature(rawBody: Buffer, header: string | string[] | undefined, appSecret: string): boolean {
  if (typeof header !== 'string' || !header.startsWith('sha256=')) return false;
  const expected = `sha256=${createHmac('sha256', appSecret).update(rawBody).digest('hex')}`;
  return secretsEqual(header.toLowerCase(), expected);
}

function platformError(errors: z.infer<typeof WebhookErrorSchema>[] | undefined): ProviderError {
  const first = errors?.[0];
  if (!first) return { code: 'failed', message: 'the platform reported the message as failed' };
  const text = first.message ?? first.title ?? 'failed';
  const details = first.error_data?.details;
  return { code: String(first.code ?? 'failed'), message: details && details !== text ? `${text}: ${details}` : text };
}

export async function webhookRoutes(app: App, o: WebhookRoutesOptions): Promise<void> {
  // The signature covers the exact bytes received: it is checked on them before they are parsed,
  // so an unsigned body is refused (401) whatever it holds.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, raw, done) => {
    const bytes = raw as Buffer;
    if (o.appSecret !== undefined && !isValidSignature(bytes, request.headers['x-hub-signature-256'], o.appSecret)) {
      done(new AppError('unauthorized', 'missing or invalid X-Hub-Signature-256'), undefined);
      return;
    }
    try {
      done(null, JSON.parse(bytes.toString('utf8')));
    } catch {
      done(new AppError('invalid_json', 'the request body is not valid JSON'), undefined);
    }
  });

  app.get(
    '/webhooks/messenger_app',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'Messenger-platform webhook verification',
        description: 'Answers `hub.challenge` as text when `hub.mode=subscribe` and `hub.verify_token` equals MESSENGER_APP_VERIFY_TOKEN; else 403.',
        querystring: z
          .object({
            'hub.mode': z.string().optional(),
            'hub.verify_token': z.string().optional(),
            'hub.challenge': z.string().max(1000).optional(),
          })
          .loose(),
        response: {
          200: { description: 'The `hub.challenge` sent, as text', content: { 'text/plain': { schema: z.string() } } },
          403: ErrorEnvelopeSchema.describe('Not a subscription, or the verify token does not match (`forbidden`)'),
        },
      },
    },
    async (request, reply) => {
      const q = request.query;
      const token = q['hub.verify_token'];
      const ok = o.verifyToken !== undefined && q['hub.mode'] === 'subscribe' && typeof token === 'string' && secretsEqual(token, o.verifyToken) && typeof q['hub.challenge'] === 'string';
      if (!ok) {
        request.log.warn({ mode: q['hub.mode'], tokenPresent: token !== undefined }, 'webhook verification refused');
        throw new AppError('forbidden', 'webhook verification failed');
      }
      return reply.type('text/plain; charset=utf-8').send(q['hub.challenge'] as string);
    },
  );

  app.post(
    '/webhooks/messenger_app',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'Delivery-status updates from the messenger platform',
        description:
          'Verifies `X-Hub-Signature-256` over the raw body when MESSENGER_APP_APP_SECRET is set (401 when missing or wrong), then applies ' +
          '`entry[].changes[].value.statuses[]` to the deliveries they name, never moving one backwards. Unknown message ids are acknowledged with 200.',
        body: NotificationSchema,
        response: {
          200: AckSchema,
          401: ErrorEnvelopeSchema.describe('MESSENGER_APP_APP_SECRET is set and X-Hub-Signature-256 is missing or wrong (`unauthorized`)'),
        },
      },
    },
    async (request) => {
      const counts = { received: 0, applied: 0, unchanged: 0, unknown: 0, ignored: 0 };
      for (const entry of request.body.entry) {
        for (const change of entry.changes) {
          for (const item of change.value.statuses ?? []) {
            counts.received += 1;
            const status = StatusSchema.safeParse(item);
            if (!status.success || !['sent', 'delivered', 'read', 'failed'].includes(status.data.status)) {
              counts.ignored += 1;
              continue;
            }
            const s = status.data;
            const seconds = Number(s.timestamp);
            const at = s.timestamp !== undefined && Number.isFinite(seconds) && seconds > 0 && seconds < 1e11 ? Math.round(seconds * 1000) : o.now();
            const update = { status: s.status as 'sent' | 'delivered' | 'read' | 'failed', at, ...(s.status === 'failed' ? { error: platformError(s.errors) } : {}) };
            const outcome = await o.store.applyPlatformStatus(s.id, s.biz_opaque_callback_data, update, o.now());
            counts[outcome] += 1;
          }
        }
      }
      if (counts.unknown > 0) request.log.info({ unknown: counts.unknown }, 'webhook: statuses for unknown messages acknowledged');
      return counts;
    },
  );
}
