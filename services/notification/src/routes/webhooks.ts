/**
 * The messenger platform's webhook. Neither route takes NOTIFICATION_API_KEY: the platform cannot
 * send it. The verify token (GET) and the signature over the raw body (POST) protect them instead.
 */
import { AppError, type App } from '@fxdesk/core';
import { ErrorEnvelopeSchema, WebhookAckSchema, WebhookChallengeSchema, WebhookNotificationSchema, WebhookVerificationQuerySchema } from '@fxdesk/schemas';
import type { MessengerWebhook } from '../messenger-webhook.js';

/** GET and POST /webhooks/messenger_app; `app` must be a scope of their own (they replace its JSON parser). */
export function registerWebhookRoutes(app: App, webhook: MessengerWebhook): void {
  // The signature covers the exact bytes received: it is checked on them before they are parsed,
  // so an unsigned body is refused (401) whatever it holds; with no app secret set, every body is.
  const refusal = webhook.checksSignatures
    ? 'missing or invalid X-Hub-Signature-256'
    : 'MESSENGER_APP_APP_SECRET is not set: status updates cannot be authenticated and are refused';
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, raw, done) => {
    const bytes = raw as Buffer;
    if (!webhook.isAuthentic(bytes, request.headers['x-hub-signature-256'])) {
      done(new AppError('unauthorized', refusal), undefined);
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
        querystring: WebhookVerificationQuerySchema,
        response: {
          200: { description: 'The `hub.challenge` sent, as text', content: { 'text/plain': { schema: WebhookChallengeSchema } } },
          403: ErrorEnvelopeSchema.describe('Not a subscription, or the verify token does not match (`forbidden`)'),
        },
      },
    },
    async (request, reply) => {
      const challenge = webhook.challenge(request.query);
      if (challenge === undefined) {
        request.log.warn({ mode: request.query['hub.mode'], tokenPresent: request.query['hub.verify_token'] !== undefined }, 'webhook verification refused');
        throw new AppError('forbidden', 'webhook verification failed');
      }
      return reply.type('text/plain; charset=utf-8').send(challenge);
    },
  );

  app.post(
    '/webhooks/messenger_app',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'Delivery-status updates from the messenger platform',
        description:
          'Verifies `X-Hub-Signature-256` (HMAC-SHA256 of the raw body keyed by MESSENGER_APP_APP_SECRET, compared in constant time; 401 when ' +
          'missing or wrong, and for every request while no app secret is set), then applies ' +
          '`entry[].changes[].value.statuses[]` to the deliveries they name, never moving one backwards. Unknown message ids are acknowledged with 200. ' +
          'Users’ own messages (`value.messages[]`) open their 24-hour customer service window; a `failed` status with error 131047 closes it and, ' +
          'with MESSENGER_APP_TEMPLATE set, puts its delivery back in the queue, once, to go as the template.',
        body: WebhookNotificationSchema,
        response: {
          200: WebhookAckSchema,
          401: ErrorEnvelopeSchema.describe('X-Hub-Signature-256 is missing or wrong, or MESSENGER_APP_APP_SECRET is not set (`unauthorized`)'),
        },
      },
    },
    async (request) => {
      const ack = await webhook.apply(request.body);
      if (ack.unknown > 0) request.log.info({ unknown: ack.unknown }, 'webhook: statuses for unknown messages acknowledged');
      return ack;
    },
  );
}
