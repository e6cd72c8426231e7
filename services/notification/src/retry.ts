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
  const ceiling = Math.min(policy.capMs, policy.baseMs * 2 ** Math.min(attempt - 1, 40));
  const jittered = Math.floor(random() * ceiling);
  return Math.max(jittered, retryAfterMs ?? 0);
}
