/**
 * Twilio's outbound message status callbacks
 * (https://www.twilio.com/docs/messaging/guides/outbound-message-status-in-status-callbacks,
 * https://www.twilio.com/docs/usage/webhooks/messaging-webhooks).
 *
 * - Twilio POSTs, form-encoded, to the StatusCallback URL we gave with the message: `MessageSid`,
 *   `MessageStatus` (sending, sent, delivered, undelivered, failed, …), `ErrorCode` with the last
 *   two. No callback is sent for the first status, the `queued` of the 201. Callbacks are
 *   separate HTTP requests and may arrive in any order: status.ts never moves a record back.
 * - Each is signed (https://www.twilio.com/docs/usage/webhooks/webhooks-security):
 *   `X-Twilio-Signature` is the base64 HMAC-SHA1, keyed by the account's auth token, of the full
 *   URL (scheme to query string) followed by every POST parameter's name and value, sorted by
 *   name, with no separators. Twilio's own validator (twilio-node, webhooks.ts) accepts the URL
 *   with and without its default port, as Twilio's signing is inconsistent about it; so do we.
 */
import { createHmac } from 'node:crypto';
import { secretsEqual } from '@fxdesk/core';
import type { Clock } from '@fxdesk/primitives';
import type { SmsStatusCallback, WebhookAck } from '@fxdesk/schemas';
import type { PlatformUpdate } from './status.js';

/** What the webhook needs of the store: the status path the messenger webhook records through too. */
export interface StatusRecorder {
  applyPlatformStatus(
    providerMessageId: string,
    callbackData: string | undefined,
    update: PlatformUpdate,
    now: number,
    channel: 'SMS',
  ): Promise<'applied' | 'unchanged' | 'unknown'>;
}

export interface SmsStatusWebhookOptions {
  store: StatusRecorder;
  clock: Clock;
  /** SMS_AUTH_TOKEN, the signing key; unset: every callback is refused. */
  authToken: string | undefined;
  /** PUBLIC_BASE_URL: Twilio called it followed by the path and query we received; unset: every callback is refused. */
  publicBaseUrl: string | undefined;
}

/** Twilio's MessageStatus as ours; the others (receiving, received, partially_delivered) are ignored. A Map: no inherited keys. */
const STATUSES = new Map<string, PlatformUpdate['status']>([
  ['accepted', 'queued'],
  ['scheduled', 'queued'],
  ['queued', 'queued'],
  ['sending', 'queued'],
  ['sent', 'sent'],
  ['delivered', 'delivered'],
  ['read', 'read'],
  ['undelivered', 'undelivered'],
  ['failed', 'failed'],
  ['canceled', 'failed'],
]);

/** `X-Twilio-Signature` of a POST of `params` to `url`; a repeated name's values are sorted too, as twilio-node does. */
export function twilioSignature(authToken: string, url: string, params: [string, string][]): string {
  const byName = (a: [string, string], b: [string, string]) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0);
  const data = [...params].sort(byName).reduce((acc, [name, value]) => acc + name + value, url);
  return createHmac('sha1', authToken).update(data, 'utf8').digest('base64');
}

/** `url`, and the same with its scheme's default port written out or left out. */
function portVariants(url: string): string[] {
  const m = /^(https?):\/\/([^/?#]*?)(?::(\d+))?([/?#].*)?$/.exec(url);
  if (!m) return [url];
  const [, scheme, host, port, rest = ''] = m;
  const standard = scheme === 'https' ? '443' : '80';
  if (port !== undefined && port !== standard) return [url];
  return [`${scheme}://${host}${rest}`, `${scheme}://${host}:${standard}${rest}`];
}

/** Twilio's side of the SMS deliveries: the signature of its callbacks and the statuses they report. */
export class SmsStatusWebhook {
  constructor(private readonly o: SmsStatusWebhookOptions) {}

  /** Whether a callback to `pathAndQuery` (as received) with these form parameters carries Twilio's signature. */
  isAuthentic(pathAndQuery: string, params: [string, string][], signature: string | string[] | undefined): boolean {
    const { authToken, publicBaseUrl } = this.o;
    if (authToken === undefined || publicBaseUrl === undefined || typeof signature !== 'string' || signature.length === 0) return false;
    return portVariants(`${publicBaseUrl}${pathAndQuery}`).some((url) => secretsEqual(signature, twilioSignature(authToken, url, params)));
  }

  /** Applies one status report to the SMS delivery it names (by sid, else by the delivery id in the URL), never moving it backwards. */
  async apply(callback: SmsStatusCallback, deliveryId: string | undefined): Promise<WebhookAck> {
    const ack = { received: 1, applied: 0, unchanged: 0, unknown: 0, ignored: 0 };
    const status = STATUSES.get(callback.MessageStatus);
    if (status === undefined) return { ...ack, ignored: 1 };
    const now = this.o.clock.now();
    const update: PlatformUpdate = { status, at: now };
    if (status === 'failed' || status === 'undelivered') {
      const code = callback.ErrorCode || callback.MessageStatus;
      const more = callback.ErrorCode ? ` (https://www.twilio.com/docs/api/errors/${callback.ErrorCode})` : '';
      update.error = { code, message: `Twilio reported the message ${callback.MessageStatus}${more}` };
    }
    const outcome = await this.o.store.applyPlatformStatus(callback.MessageSid, deliveryId, update, now, 'SMS');
    return { ...ack, [outcome]: 1 };
  }
}
