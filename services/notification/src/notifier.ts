import { createHash, randomUUID } from 'node:crypto';
import type { Clock } from '@fxdesk/primitives';
import type { Logger } from 'pino';
import type { Channel, NotificationRequest } from './records.js';
import type { NotificationStore } from './store.js';

export interface SubmitResult {
  replayed: boolean;
  requestId: string;
  deliveryIds: string[];
  deliveriesAttempted: number;
}

export interface NotifierOptions {
  store: NotificationStore;
  recipients: Record<Channel, string[]>;
  clock: Clock;
  logger: Logger;
  /** Told when new deliveries are stored, so the outbox sends them at once. */
  onStored: () => void;
}

/** What makes two requests "the same" for the replay warning: everything but the key. */
function payloadHash(input: NotificationRequest, channels: Channel[]): string {
  const canonical = JSON.stringify([input.message, channels, input.source, input.subject ?? null, input.contentType]);
  return createHash('sha256').update(canonical).digest('hex');
}

/**
 * POST /notifications: one delivery per (channel, recipient), stored with the request in one
 * transaction before anyone is answered; a repeated (source, idempotencyKey) gets the original.
 */
export class Notifier {
  constructor(private readonly o: NotifierOptions) {}

  async submit(input: NotificationRequest): Promise<SubmitResult> {
    const channels = [...new Set(input.channels)];
    const deliveries = channels.flatMap((channel) => this.o.recipients[channel].map((recipient) => ({ id: randomUUID(), channel, recipient })));
    const created = await this.o.store.create({
      requestId: randomUUID(),
      source: input.source,
      idempotencyKey: input.idempotencyKey,
      message: input.message,
      subject: input.subject,
      contentType: input.contentType,
      channels,
      payloadHash: payloadHash(input, channels),
      deliveries,
      now: this.o.clock.now(),
    });
    if (created.replayed) {
      if (!created.samePayload) {
        this.o.logger.warn({ source: input.source, notificationRequestId: created.requestId }, 'idempotencyKey reused with a different payload: answering the original request, sending nothing');
      }
    } else {
      const empty = channels.filter((c) => this.o.recipients[c].length === 0);
      if (empty.length > 0) this.o.logger.debug({ channels: empty, notificationRequestId: created.requestId }, 'no recipients configured for these channels: nothing to send there');
      if (deliveries.length > 0) this.o.onStored();
    }
    return { replayed: created.replayed, requestId: created.requestId, deliveryIds: created.deliveryIds, deliveriesAttempted: created.deliveryIds.length };
  }
}
