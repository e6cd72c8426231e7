import { backoffDelayMs } from '@fxdesk/primitives';

export interface RetryPolicy {
  maxAttempts: number;
  baseMs: number;
  capMs: number;
}

/**
 * The wait before attempt `attempt + 1`: capped exponential backoff with full jitter
 * (a uniform draw in [0, min(cap, base·2^(attempt-1)))), never shorter than the provider's own
 * `retry_after` / `Retry-After`, which may exceed the cap: the provider's word wins.
 */
export function retryDelayMs(policy: RetryPolicy, attempt: number, random: () => number, retryAfterMs?: number): number {
  return backoffDelayMs(policy, attempt - 1, { random, atLeastMs: retryAfterMs });
}
