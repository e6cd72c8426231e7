import { createHash, randomUUID } from 'node:crypto';
import { AppError } from '@fxdesk/core';
import type { Clock } from '@fxdesk/primitives';
import type { DeliveryList, DeliveryListQuery, DeliveryRecord, NotificationChannel, NotificationResponse, ValidNotificationRequest } from '@fxdesk/schemas';
import type { Logger } from 'pino';
import { rendersToNothing } from './render.js';
import { decodeCursor, encodeCursor, type NotificationStore } from './store.js';

/** What POST /notifications did: skipped (notifications disabled), or stored (or found stored: a replay). */
export type SubmitResult = { status: 'skipped' } | { status: 'stored'; replayed: boolean; response: NotificationResponse };

export interface NotifierOptions {
  store: NotificationStore;
  recipients: Record<NotificationChannel, string[]>;
  /** NOTIFICATIONS_ENABLED: when false, requests are answered `skipped` and nothing is stored. */
  enabled: boolean;
  clock: Clock;
  logger: Logger;
  /** Told when new deliveries are stored, so the outbox sends them at once. */
  onStored: () => void;
}

/** What makes two requests "the same" for the replay warning: everything but the key. */
function payloadHash(input: ValidNotificationRequest, channels: NotificationChannel[]): string {
  const canonical = JSON.stringify([input.message, channels, input.source, input.subject ?? null, input.contentType]);
  return createHash('sha256').update(canonical).digest('hex');
}

/**
 * The notifications and their delivery records. A request becomes one delivery per (channel,
 * recipient), stored with the request in one transaction before anyone is answered; a repeated
 * (source, idempotencyKey) gets the original.
 */
export class Notifier {
  constructor(private readonly o: NotifierOptions) {}

  async submit(input: ValidNotificationRequest): Promise<SubmitResult> {
    // Refused here, once, rather than by every provider on every delivery later (Telegram: "message text is empty").
    if (rendersToNothing(input)) {
      const reason = input.contentType === 'html' ? 'the HTML renders to no text' : 'the text is empty or white space only';
      throw new AppError('validation_error', `body.message: ${reason}`, { details: [{ path: 'body.message', message: reason }] });
    }
    if (!this.o.enabled) return { status: 'skipped' };
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
        this.o.logger.warn(
          { source: input.source, notificationRequestId: created.requestId },
          'idempotencyKey reused with a different payload: answering the original request, sending nothing',
        );
      }
    } else {
      const empty = channels.filter((c) => this.o.recipients[c].length === 0);
      if (empty.length > 0)
        this.o.logger.debug(
          { channels: empty, notificationRequestId: created.requestId },
          'no recipients configured for these channels: nothing to send there',
        );
      if (deliveries.length > 0) this.o.onStored();
    }
    const response = { requestId: created.requestId, deliveryIds: created.deliveryIds, deliveriesAttempted: created.deliveryIds.length };
    return { status: 'stored', replayed: created.replayed, response };
  }

  /** One page of delivery records, newest first; a cursor this service did not issue is a validation error. */
  async list({ limit, cursor: cursorText, ...filters }: DeliveryListQuery): Promise<DeliveryList> {
    const cursor = cursorText === undefined ? undefined : decodeCursor(cursorText);
    if (cursorText !== undefined && !cursor) {
      throw new AppError('validation_error', 'query.cursor: not a cursor this service issued', {
        details: [{ path: 'query.cursor', message: 'not a cursor this service issued' }],
      });
    }
    const page = await this.o.store.list(filters, limit, cursor);
    return { items: page.items, nextCursor: page.next ? encodeCursor(page.next) : null };
  }

  async get(id: string): Promise<DeliveryRecord> {
    const record = await this.o.store.get(id);
    if (!record) throw new AppError('not_found', `no delivery record ${id.slice(0, 100)}`);
    return record;
  }
}
