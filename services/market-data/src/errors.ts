import { defineErrors } from '@fxdesk/core';
import { isBrokerError } from '@fxdesk/broker';

/** Every error code the market-data service answers, beside the kit's own. */
export const errors = defineErrors({
  symbol_not_found: 404,
  no_quote_yet: 404,
  invalid_range: 422,
  no_stored_candles: 404,
  source_required: 422,
  invalid_cursor: 422,
  store_unavailable: 503,
  too_many_clients: 503,
  broker_unavailable: 503,
  broker_timeout: 504,
  broker_error: 502,
});

/** Maps a failed feed call to the envelope: a timeout, an absent session, anything else. */
export function brokerFailure(err: unknown): Error {
  if (isBrokerError(err)) {
    if (err.kind === 'timeout') return errors.create('broker_timeout', 'the broker did not answer in time', { cause: err });
    if (err.kind === 'disconnected' || err.kind === 'unavailable' || err.kind === 'rate_limited') {
      return errors.create('broker_unavailable', 'the broker session is not available', { cause: err });
    }
    if (err.kind === 'not_found') return errors.create('symbol_not_found', err.message, { cause: err });
  }
  return errors.create('broker_error', 'the broker failed to answer', { cause: err });
}
