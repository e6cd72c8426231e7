import { defineErrors } from '@fxdesk/core';
import { isBrokerError } from '@fxdesk/broker';

/** Every error code the account service answers, beside the kit's own. */
export const errors = defineErrors({
  broker_error: 502,
  broker_unavailable: 503,
  broker_timeout: 504,
  transaction_not_found: 404,
  instrument_not_found: 404,
  storage_unavailable: 503,
});

/** A snapshot store call that failed (the database is down or unreachable): 503 with Retry-After, not a 500. */
export function storageFailure(what: string, err: unknown): Error {
  return errors.create('storage_unavailable', `could not ${what}: the snapshot database is unavailable; retry later`, {
    cause: err,
    headers: { 'retry-after': '5' },
  });
}

/** Seconds a client is told to wait when the broker gave no Retry-After of its own. */
const DEFAULT_RETRY_AFTER_SECONDS = { throttled: 1, unavailable: 5 };

/**
 * Maps a failed broker call to the envelope: 504 broker_timeout when it did not answer in
 * time, 503 broker_unavailable with Retry-After when it throttles or cannot be reached, and
 * 502 broker_error for everything else (refused credentials, an unknown account, a body the
 * adapter could not read). Credential problems are the service's, never the caller's: they are
 * 502, not 401.
 */
export function brokerFailure(err: unknown): Error {
  if (!isBrokerError(err)) return errors.create('broker_error', 'the broker call failed', { cause: err });
  switch (err.kind) {
    case 'timeout':
      return errors.create('broker_timeout', 'the broker did not answer in time', { cause: err });
    case 'rate_limited': {
      const seconds = err.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS.throttled;
      return errors.create('broker_unavailable', `the broker is throttling requests; retry in ${seconds} s`, {
        cause: err,
        headers: { 'retry-after': String(seconds) },
      });
    }
    case 'unavailable':
    case 'disconnected': {
      const seconds = err.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS.unavailable;
      return errors.create('broker_unavailable', `the broker is unavailable; retry in ${seconds} s`, {
        cause: err,
        headers: { 'retry-after': String(seconds) },
      });
    }
    case 'unauthorized':
      return errors.create('broker_error', "the broker refused the service's credentials; check the broker settings", { cause: err });
    default:
      return errors.create('broker_error', `the broker call failed: ${err.message}`, { cause: err });
  }
}
