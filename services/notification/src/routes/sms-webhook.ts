/**
 * Twilio's SMS status callbacks. Not behind NOTIFICATION_API_KEY (Twilio cannot send it):
 * `X-Twilio-Signature` over the URL and the form parameters protects the route instead.
 */
import { AppError, type App } from '@fxdesk/core';
import { ErrorEnvelopeSchema, SmsStatusCallbackSchema, SmsStatusQuerySchema, WebhookAckSchema } from '@fxdesk/schemas';
import { SMS_STATUS_PATH } from '../channels/twilio.js';
import type { SmsStatusWebhook } from '../sms-status.js';

/** POST /webhooks/sms; `app` must be a scope of its own (it replaces the body parsers). */
export function registerSmsWebhookRoutes(app: App, webhook: SmsStatusWebhook): void {
  // Only the form body Twilio sends, checked before it is read: a body of any other type would
  // skip the signature, so it is refused (415) rather than parsed.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (request, raw, done) => {
    const params = [...new URLSearchParams(raw as string)];
    if (!webhook.isAuthentic(request.url, params, request.headers['x-twilio-signature'])) {
      done(new AppError('forbidden', 'missing or invalid X-Twilio-Signature'), undefined);
      return;
    }
    done(null, Object.fromEntries(params));
  });

  app.post(
    SMS_STATUS_PATH,
    {
      schema: {
        tags: ['webhooks'],
        summary: 'SMS status callbacks from Twilio',
        description:
          'Twilio posts each later status of a message (sending, sent, delivered, undelivered, failed; the 201 left it `queued`) to the ' +
          'StatusCallback URL sent with it, PUBLIC_BASE_URL + `/webhooks/sms?delivery={delivery id}`. `X-Twilio-Signature` must be the ' +
          'HMAC-SHA1 of PUBLIC_BASE_URL + the path and query received + the form parameters sorted by name, keyed by SMS_AUTH_TOKEN ' +
          '(403 otherwise, and always when either setting is unset). The status is applied to the SMS delivery with that `MessageSid`, ' +
          'else the one the query names, never moving it backwards; `ErrorCode` becomes its error. Unknown messages are acknowledged with 200.',
        consumes: ['application/x-www-form-urlencoded'],
        querystring: SmsStatusQuerySchema,
        body: SmsStatusCallbackSchema,
        response: {
          200: WebhookAckSchema,
          403: ErrorEnvelopeSchema.describe('X-Twilio-Signature is missing or wrong, or SMS_AUTH_TOKEN or PUBLIC_BASE_URL is unset (`forbidden`)'),
          415: ErrorEnvelopeSchema.describe('The body is not application/x-www-form-urlencoded (`unsupported_media_type`)'),
        },
      },
    },
    async (request) => {
      const ack = await webhook.apply(request.body, request.query.delivery);
      if (ack.unknown > 0) request.log.info({ messageSid: request.body.MessageSid }, 'sms status for an unknown message acknowledged');
      return ack;
    },
  );
}
