import type { SignalSubmission } from '@fxdesk/schemas';
import { errors } from './errors.js';

export interface FreshnessLimits {
  maxAgeSeconds: number;
  futureToleranceSeconds: number;
}

/**
 * Spec 001 (A) freshness: `occurred_at` no older than SIGNAL_MAX_AGE_SECONDS unless
 * `ignore_signal_age` (true by default); never further ahead than the future tolerance; and
 * `expires_at`, when given, still ahead. The last two apply whatever `ignore_signal_age` says.
 */
export function checkFreshness(signal: SignalSubmission, nowMs: number, limits: FreshnessLimits): void {
  const occurredMs = Date.parse(signal.occurred_at);
  const aheadMs = occurredMs - nowMs;
  if (aheadMs > limits.futureToleranceSeconds * 1000) {
    throw errors.create(
      'signal_in_future',
      `occurred_at is ${(aheadMs / 1000).toFixed(3)} s ahead of the service's clock; the tolerance is ${limits.futureToleranceSeconds} s`,
    );
  }
  if (!signal.ignore_signal_age && -aheadMs > limits.maxAgeSeconds * 1000) {
    throw errors.create('signal_too_old', `the signal is ${(-aheadMs / 1000).toFixed(3)} s old; SIGNAL_MAX_AGE_SECONDS is ${limits.maxAgeSeconds}`);
  }
  if (signal.expires_at !== undefined && Date.parse(signal.expires_at) <= nowMs) {
    throw errors.create('signal_expired', `the signal expired at ${signal.expires_at}`);
  }
}
