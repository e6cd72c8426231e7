/** How the waits between retries grow: doubling from `baseMs`, up to `capMs` when one is set. */
export interface Backoff {
  /** The wait before the first retry. */
  baseMs: number;
  /** The longest wait the doubling reaches; none when omitted. */
  capMs?: number;
}

export interface BackoffOptions {
  /** Full jitter: the wait becomes a uniform draw in [0, the doubled wait), from this source of [0, 1). */
  random?: () => number;
  /** The shortest wait whatever the doubling says, e.g. a server's Retry-After; it may exceed the cap. */
  atLeastMs?: number;
}

/** Far past any cap in use; it only keeps `baseMs * 2 ** retry` finite. */
const MAX_DOUBLINGS = 40;

/**
 * The wait before retry `retry` (0 for the first): `baseMs * 2^retry`, capped at `capMs`, drawn
 * with full jitter when `random` is given, and never shorter than `atLeastMs`.
 */
export function backoffDelayMs(backoff: Backoff, retry: number, options: BackoffOptions = {}): number {
  const ceiling = Math.min(backoff.capMs ?? Infinity, backoff.baseMs * 2 ** Math.min(retry, MAX_DOUBLINGS));
  const delayMs = options.random ? Math.floor(options.random() * ceiling) : ceiling;
  return Math.max(delayMs, options.atLeastMs ?? 0);
}
