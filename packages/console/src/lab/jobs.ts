import type { LabEvent, LabJobStatus } from '@fxdesk/schemas';
import { ApiError } from '../api.js';

/**
 * How often a queued or running job is read while the event stream is down (the fallback: the
 * `lab` events tell its changes otherwise).
 */
export const FALLBACK_POLL_MS = 10_000;
/** After a failed read that is not a rate limit: the service may be restarting. */
const RETRY_MS = 5000;

/** A job still moving: its record will change. */
export function isActive(status: LabJobStatus): boolean {
  return status === 'queued' || status === 'running';
}

/**
 * When to read a job again by itself: after the Retry-After of a rate limit (the lab's reads
 * share spec 000's per-client budget), a few seconds after another failure, every
 * FALLBACK_POLL_MS while it moves and the event stream is down; null otherwise (the events say
 * when its status changes, and it has ended or they will).
 */
export function nextReadMs(status: LabJobStatus | null, error: unknown, isStreamDown: boolean): number | null {
  if (error instanceof ApiError && error.status === 429) return (error.retryAfterSeconds ?? 5) * 1000;
  if (error instanceof ApiError && error.status === 404) return null;
  if (error) return RETRY_MS;
  return status !== null && isActive(status) && isStreamDown ? FALLBACK_POLL_MS : null;
}

/** A job a page shows: which one, and its status as last read (null before). */
export interface FollowedJob {
  kind: LabEvent['kind'];
  id: string;
  status: LabJobStatus | null;
}

/**
 * What a `lab` event means to a page that shows a job: `read` it again (its status changed, or it
 * was not read yet), its `progress` moved, or (a sweep) one of its backtests `ended`, which moves
 * its ranking; null when it is about another job.
 */
export type JobNews = { type: 'read' } | { type: 'progress'; progress: number } | { type: 'member_ended' } | null;

export function jobNews(event: LabEvent, job: FollowedJob): JobNews {
  if (event.kind === job.kind && event.id === job.id) return event.status === job.status ? { type: 'progress', progress: event.progress } : { type: 'read' };
  if (job.kind === 'sweep' && event.kind === 'backtest' && event.sweep_id === job.id && !isActive(event.status)) return { type: 'member_ended' };
  return null;
}

/**
 * What a `lab` event means to a list of jobs of one kind (a sweep's backtests are not listed with
 * the others): a job not listed yet, or whose status changed, means reading the list's first page
 * again; a listed one whose progress moved is updated in place.
 */
export function listNews(event: LabEvent, kind: LabEvent['kind'], listed: ReadonlyArray<{ id: string; status: LabJobStatus }>): JobNews {
  if (event.kind !== kind || event.sweep_id !== null) return null;
  const job = listed.find((item) => item.id === event.id);
  return jobNews(event, { kind, id: event.id, status: job?.status ?? null });
}

/** `queued`, `running 42 %`, `done`…: a job's state in a few words. */
export function jobState(job: { status: LabJobStatus; progress: number }): string {
  return job.status === 'running' ? `running ${Math.floor(job.progress * 100)} %` : job.status;
}
