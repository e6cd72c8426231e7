import type { DeliveryStatus, ProviderError } from '@fxdesk/schemas';

/** The forward order of a delivery; `failed` stands outside it. */
const RANK: Record<Exclude<DeliveryStatus, 'failed'>, number> = { pending: 0, sending: 1, sent: 2, delivered: 3, read: 4 };

export interface TrackedState {
  status: DeliveryStatus;
  error: ProviderError | null;
  sentAt: number | null;
  deliveredAt: number | null;
  readAt: number | null;
}

export interface PlatformUpdate {
  status: 'sent' | 'delivered' | 'read' | 'failed';
  /** When the platform says it happened (epoch ms). */
  at: number;
  error?: ProviderError;
}

/**
 * Applies a platform status report to a delivery, never moving it backwards. Returns the new
 * state, or null when the report changes nothing.
 *
 * - sent < delivered < read: a report at or below the current status only fills a missing time.
 * - read implies delivered: a read that arrives first sets deliveredAt too (to the read time, the
 *   latest the delivery can have happened); a delivered report arriving later can only move
 *   deliveredAt earlier, never change the status back.
 * - failed applies before delivery only; once delivered or read a failure report is ignored.
 * - delivered or read after failed: the device receipt is the stronger fact (Meta reports
 *   failed and delivered out of order for users on several devices), so the record moves forward
 *   and keeps the failure report in `error` as history.
 */
export function applyPlatformUpdate(current: TrackedState, update: PlatformUpdate): TrackedState | null {
  const next: TrackedState = { ...current };
  const at = update.at;
  if (update.status === 'failed') {
    if (current.status === 'failed' || current.status === 'delivered' || current.status === 'read') return null;
    next.status = 'failed';
    next.error = update.error ?? { code: 'failed', message: 'the platform reported the message as failed' };
    return next;
  }
  const target = RANK[update.status];
  // From failed only a device receipt moves on; a late "sent" cannot undo a failure.
  const rank = current.status === 'failed' ? RANK.sent : RANK[current.status];
  if (target > rank) next.status = update.status;
  next.sentAt ??= at;
  if (target >= RANK.delivered) next.deliveredAt = next.deliveredAt === null ? at : Math.min(next.deliveredAt, at);
  if (target >= RANK.read) next.readAt ??= at;
  const changed =
    next.status !== current.status || next.sentAt !== current.sentAt || next.deliveredAt !== current.deliveredAt || next.readAt !== current.readAt;
  return changed ? next : null;
}
