import type { DeliveryStatus, ProviderError } from '@fxdesk/schemas';

type Failure = 'failed' | 'undelivered';

/** The forward order of a delivery; `failed` and `undelivered` stand outside it. */
const RANK: Record<Exclude<DeliveryStatus, Failure>, number> = { pending: 0, sending: 1, queued: 2, sent: 3, delivered: 4, read: 5 };

export interface TrackedState {
  status: DeliveryStatus;
  error: ProviderError | null;
  sentAt: number | null;
  deliveredAt: number | null;
  readAt: number | null;
}

export interface PlatformUpdate {
  status: 'queued' | 'sent' | 'delivered' | 'read' | Failure;
  /** When the platform says it happened (epoch ms). */
  at: number;
  error?: ProviderError;
}

function isFailure(status: DeliveryStatus): status is Failure {
  return status === 'failed' || status === 'undelivered';
}

/**
 * Applies a platform status report to a delivery, never moving it backwards. Returns the new
 * state, or null when the report changes nothing.
 *
 * - queued < sent < delivered < read: a report at or below the current status only fills a missing time.
 * - read implies delivered: a read that arrives first sets deliveredAt too (to the read time, the
 *   latest the delivery can have happened); a delivered report arriving later can only move
 *   deliveredAt earlier, never change the status back.
 * - failed and undelivered apply before delivery only; once delivered or read a failure report is
 *   ignored, and the first failure reported is kept.
 * - delivered or read after a failure: the device receipt is the stronger fact (Meta reports
 *   failed and delivered out of order for users on several devices), so the record moves forward
 *   and keeps the failure report in `error` as history.
 * - A failure of ours whose outcome was unknown (`outcome_unknown`: the provider may have taken
 *   the message) is no fact about the message: any report replaces it, and a report that it went
 *   out clears the error.
 */
export function applyPlatformUpdate(current: TrackedState, update: PlatformUpdate): TrackedState | null {
  const next: TrackedState = { ...current };
  const at = update.at;
  const unknown = isFailure(current.status) && current.error?.code === 'outcome_unknown';
  if (isFailure(update.status)) {
    if (current.status === 'delivered' || current.status === 'read' || (isFailure(current.status) && !unknown)) return null;
    next.status = update.status;
    next.error = update.error ?? { code: update.status, message: `the platform reported the message as ${update.status}` };
    return next;
  }
  const target = RANK[update.status];
  // From a failure only a device receipt moves on; a late "sent" cannot undo one. An unknown outcome is no failure.
  const rank = unknown ? -1 : isFailure(current.status) ? RANK.sent : RANK[current.status];
  if (target > rank) next.status = update.status;
  if (unknown) next.error = null;
  if (target >= RANK.sent) next.sentAt ??= at;
  if (target >= RANK.delivered) next.deliveredAt = next.deliveredAt === null ? at : Math.min(next.deliveredAt, at);
  if (target >= RANK.read) next.readAt ??= at;
  const changed =
    next.status !== current.status ||
    next.error !== current.error ||
    next.sentAt !== current.sentAt ||
    next.deliveredAt !== current.deliveredAt ||
    next.readAt !== current.readAt;
  return changed ? next : null;
}
