/**
 * The WhatsApp Cloud API webhook (https://developers.facebook.com/docs/graph-api/webhooks/getting-started,
 * https://developers.facebook.com/docs/whatsapp/cloud-api/webhooks/components).
 *
 * - Verification: `hub.mode=subscribe&hub.verify_token=…&hub.challenge=…` is answered with the
 *   challenge when the token equals MESSENGER_APP_VERIFY_TOKEN.
 * - Event notifications are signed with `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw
 *   body keyed by the app secret>`. Status updates sit in `entry[].changes[].value.statuses[]`
 *   (`id` = the wamid, `status` sent | delivered | read | failed, `timestamp` in Unix seconds,
 *   `errors[]` on failure, `biz_opaque_callback_data` as we sent it).
 */
import { createHmac } from 'node:crypto';
import { secretsEqual } from '@fxdesk/core';
import type { Clock } from '@fxdesk/primitives';
import {
  WebhookStatusSchema,
  type ProviderError,
  type WebhookAck,
  type WebhookError,
  type WebhookNotification,
  type WebhookVerificationQuery,
} from '@fxdesk/schemas';
import type { NotificationStore } from './store.js';

const APPLIED_STATUSES = ['sent', 'delivered', 'read', 'failed'] as const;
type AppliedStatus = (typeof APPLIED_STATUSES)[number];

export interface MessengerWebhookOptions {
  store: NotificationStore;
  clock: Clock;
  /** MESSENGER_APP_VERIFY_TOKEN; unset: every verification is refused. */
  verifyToken: string | undefined;
  /** MESSENGER_APP_APP_SECRET; unset: every notification is refused, since none can be authenticated. */
  appSecret: string | undefined;
}

/** `sha256=<hex>` of the raw body, compared in constant time. */
function isValidSignature(rawBody: Buffer, header: string | string[] | undefined, appSecret: string): boolean {
  if (typeof header !== 'string' || !header.startsWith('sha256=')) return false;
  const expected = `sha256=${createHmac('sha256', appSecret).update(rawBody).digest('hex')}`;
  return secretsEqual(header.toLowerCase(), expected);
}

function platformError(errors: WebhookError[] | undefined): ProviderError {
  const first = errors?.[0];
  if (!first) return { code: 'failed', message: 'the platform reported the message as failed' };
  const text = first.message ?? first.title ?? 'failed';
  const details = first.error_data?.details;
  return { code: String(first.code ?? 'failed'), message: details && details !== text ? `${text}: ${details}` : text };
}

/** The messenger platform's side of the deliveries: its subscription check and its status updates. */
export class MessengerWebhook {
  constructor(private readonly o: MessengerWebhookOptions) {}

  /** The challenge to answer, or undefined when the verification is refused. */
  challenge(query: WebhookVerificationQuery): string | undefined {
    const token = query['hub.verify_token'];
    const accepted =
      this.o.verifyToken !== undefined && query['hub.mode'] === 'subscribe' && typeof token === 'string' && secretsEqual(token, this.o.verifyToken);
    return accepted ? query['hub.challenge'] : undefined;
  }

  /** Whether an app secret is set: without one no notification can be authenticated, so all are refused. */
  get checksSignatures(): boolean {
    return this.o.appSecret !== undefined;
  }

  /** Whether these exact bytes may be read: signed with the app secret (never, when no secret is set). */
  isAuthentic(rawBody: Buffer, signature: string | string[] | undefined): boolean {
    return this.o.appSecret !== undefined && isValidSignature(rawBody, signature, this.o.appSecret);
  }

  /** Applies every status update to the delivery it names, never moving one backwards. */
  async apply(notification: WebhookNotification): Promise<WebhookAck> {
    const counts = { received: 0, applied: 0, unchanged: 0, unknown: 0, ignored: 0 };
    for (const entry of notification.entry) {
      for (const change of entry.changes) {
        for (const item of change.value.statuses ?? []) {
          counts.received += 1;
          const outcome = await this.applyOne(item);
          counts[outcome] += 1;
        }
      }
    }
    return counts;
  }

  private async applyOne(item: unknown): Promise<'applied' | 'unchanged' | 'unknown' | 'ignored'> {
    const parsed = WebhookStatusSchema.safeParse(item);
    if (!parsed.success || !(APPLIED_STATUSES as readonly string[]).includes(parsed.data.status)) return 'ignored';
    const s = parsed.data;
    const now = this.o.clock.now();
    const seconds = Number(s.timestamp);
    const at = s.timestamp !== undefined && Number.isFinite(seconds) && seconds > 0 && seconds < 1e11 ? Math.round(seconds * 1000) : now;
    const update = { status: s.status as AppliedStatus, at, ...(s.status === 'failed' ? { error: platformError(s.errors) } : {}) };
    return this.o.store.applyPlatformStatus(s.id, s.biz_opaque_callback_data, update, now);
  }
}
