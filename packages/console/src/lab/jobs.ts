import type { LabJobStatus } from '@fxdesk/schemas';
import { ApiError } from '../api.js';

/** How often a queued or running job is read again. */
export const POLL_MS = 1000;
/** After a failed read that is not a rate limit: the service may be restarting. */
const RETRY_MS = 5000;

/** A job still moving: its record will change. */
export function isActive(status: LabJobStatus): boolean {
  return status === 'queued' || status === 'running';
}

/**
 * When to read a job again: every second while it moves, after the Retry-After of a rate limit
 * (the lab's reads share spec 000's per-client budget), a few seconds after another failure;
 * null once it has ended.
 */
export function nextReadMs(status: LabJobStatus | null, error: unknown): number | null {
  if (error instanceof ApiError && error.status === 429) return (error.retryAfterSeconds ?? 5) * 1000;
  if (error instanceof ApiError && error.status === 404) return null;
  if (error) return RETRY_MS;
  return status !== null && isActive(status) ? POLL_MS : null;
}

/** `queued`, `running 42 %`, `done`…: a job's state in a few words. */
export function jobState(job: { status: LabJobStatus; progress: number }): string {
  return job.status === 'running' ? `running ${Math.floor(job.progress * 100)} %` : job.status;
}
