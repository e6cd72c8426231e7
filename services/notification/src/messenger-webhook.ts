/**
 * The WhatsApp Cloud API webhook (https://developers.facebook.com/docs/graph-api/webhooks/getting-started,
 * https://developers.facebook.com/docs/whatsapp/cloud-api/webhooks/components).
 *
 * - Verification: `hub.mode=subscribe&hub.verify_token=…&hub.challenge=…` is answered with the
 *   challenge when the token equals MESSENGER_APP_VERIFY_TOKEN.
 * - Event notifications are signed with `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw
 *   body keyed by the app secret>`. Status updates sit in `entry[].changes[].value.statuses[]`
 *   (`id` = the wamid, `status` sent | delivered | read | failed, `timestamp` in Unix seconds,
 *   `errors[]` on failure, `biz_opaque_callback_data` as we sent it). A user's own messages sit in
 *   `entry[].changes[].value.messages[]` (`from` = their wa_id, `timestamp` in Unix seconds): each
 *   opens or extends their 24-hour customer service window, which we keep.
 * - A `failed` status whose error is 131047 (the text came outside the window) closes the user's
 *   window; with a template configured the delivery goes back in the queue, once, to go as the
 *   template (the attempt the text took is given back), else it fails as any other.
 */
import { createHmac } from 'node:crypto';
import { secretsEqual } from '@fxdesk/core';
import type { Clock } from '@fxdesk/primitives';
import { z } from 'zod';
import {
  WebhookStatusSchema,
  type ProviderError,
  type WebhookAck,
  type WebhookError,
  type WebhookNotification,
  type WebhookVerificationQuery,
} from '@fxdesk/schemas';
import type { NotificationStore } from './store.js';

/** "More than 24 hours have passed since the recipient last replied to the sender number." */
const OUTSIDE_WINDOW = 131047;

/** One of `value.messages[]`: only who wrote, and when, matter here. */
const InboundMessageSchema = z.object({ from: z.string().regex(/^\d{1,20}$/), timestamp: z.string() }).loose();

const APPLIED_STATUSES = ['sent', 'delivered', 'read', 'failed'] as const;
type AppliedStatus = (typeof APPLIED_STATUSES)[number];

export interface MessengerWebhookOptions {
  store: NotificationStore;
  clock: Clock;
  /** MESSENGER_APP_VERIFY_TOKEN; unset: every verification is refused. */
  verifyToken: string | undefined;
  /** MESSENGER_APP_APP_SECRET; unset: every notification is refused, since none can be authenticated. */
  appSecret: string | undefined;
  /** Whether MESSENGER_APP_TEMPLATE is set: a text failed with 131047 is then sent again as the template. */
  hasTemplate: boolean;
  /** Told when deliveries were put back in the queue, so the outbox sends them at once. */
  onRequeued?: () => void;
}

/** A platform time in Unix seconds as epoch ms, or `fallback` when it is missing or absurd. */
function platformTime(timestamp: string | undefined, fallback: number): number {
  const seconds = Number(timestamp);
  return timestamp !== undefined && Number.isFinite(seconds) && seconds > 0 && seconds < 1e11 ? Math.round(seconds * 1000) : fallback;
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

  /** Notes the users' own messages (their windows), then applies every status update to the delivery it names, never moving one backwards. */
  async apply(notification: WebhookNotification): Promise<WebhookAck> {
    const counts = { received: 0, applied: 0, unchanged: 0, unknown: 0, ignored: 0 };
    const now = this.o.clock.now();
    const inbound = notification.entry.flatMap((entry) =>
      entry.changes.flatMap((change) => (Array.isArray(change.value.messages) ? (change.value.messages as unknown[]) : [])),
    );
    const windows = inbound.flatMap((item) => {
      const parsed = InboundMessageSchema.safeParse(item);
      return parsed.success ? [{ waId: parsed.data.from, at: platformTime(parsed.data.timestamp, now) }] : [];
    });
    if (windows.length > 0) await this.o.store.noteInbound(windows);
    let requeued = false;
    for (const entry of notification.entry) {
      for (const change of entry.changes) {
        for (const item of change.value.statuses ?? []) {
          counts.received += 1;
          const outcome = await this.applyOne(item);
          requeued ||= outcome === 'requeued';
          counts[outcome === 'requeued' ? 'applied' : outcome] += 1;
        }
      }
    }
    if (requeued) this.o.onRequeued?.();
    return counts;
  }

  private async applyOne(item: unknown): Promise<'applied' | 'unchanged' | 'unknown' | 'ignored' | 'requeued'> {
    const parsed = WebhookStatusSchema.safeParse(item);
    if (!parsed.success || !(APPLIED_STATUSES as readonly string[]).includes(parsed.data.status)) return 'ignored';
    const s = parsed.data;
    // A report about a text the template replaced (a repeat of its 131047) moves nothing.
    if (await this.o.store.isReplacedText(s.id)) return 'unchanged';
    const now = this.o.clock.now();
    const at = platformTime(s.timestamp, now);
    const update = { status: s.status as AppliedStatus, at, ...(s.status === 'failed' ? { error: platformError(s.errors) } : {}) };
    if (s.status === 'failed' && s.errors?.some((e) => e.code === OUTSIDE_WINDOW)) {
      if (s.recipient_id !== undefined) await this.o.store.closeSession(s.recipient_id, at);
      const requeue = this.o.hasTemplate && (await this.o.store.requeueAsTemplate(s.id, s.biz_opaque_callback_data, update.error as ProviderError, at, now));
      if (requeue === 'queued') return 'requeued';
    }
    return this.o.store.applyPlatformStatus(s.id, s.biz_opaque_callback_data, update, now);
  }
}
