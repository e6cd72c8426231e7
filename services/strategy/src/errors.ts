import { ServiceError } from '@fxdesk/client';
import { AppError, defineErrors } from '@fxdesk/core';

/**
 * The strategy service's own codes (spec 000 "Errors", then the console's and the lab's), written lower_snake here and sent
 * UPPER_SNAKE (the app sets errorCodeCase 'upper'). The kit adds VALIDATION_ERROR,
 * INVALID_JSON, NOT_FOUND, RATE_LIMITED and INTERNAL_ERROR.
 */
export const errors = defineErrors({
  instrument_not_found: 404,
  strategy_already_running: 409,
  strategy_not_running: 409,
  // The desk's risk (POST /risk/resume).
  not_halted: 409,
  // The console's read-through routes.
  not_configured: 404,
  order_not_found: 404,
  downstream_error: 502,
  downstream_unavailable: 503,
  downstream_timeout: 504,
  too_many_clients: 503,
  // The strategy lab.
  backtest_not_found: 404,
  sweep_not_found: 404,
  backtest_in_sweep: 409,
  lab_queue_full: 503,
  source_unavailable: 422,
  candles_not_covered: 422,
});

/**
 * What a read from another service (a console read-through, another timeframe's history)
 * answers when that service failed: 504 when it did not answer in time, 503 when it cannot be
 * reached or says it is unavailable (its Retry-After passed on), else 502 with its own code in
 * the message. Anything but a ServiceError is a bug of ours and is thrown as it is.
 */
export function downstreamFailure(err: unknown, service: string): AppError {
  if (!(err instanceof ServiceError)) throw err;
  if (err.kind === 'timeout') return errors.create('downstream_timeout', `the ${service} service did not answer in time`);
  if (err.kind === 'network' || err.status === 503) {
    const headers = err.retryAfterSeconds === undefined ? undefined : { 'retry-after': String(err.retryAfterSeconds) };
    return errors.create('downstream_unavailable', `the ${service} service cannot answer now: ${err.message}`, { headers });
  }
  const answered = err.status === undefined ? 'answered' : `answered ${err.status}`;
  return errors.create('downstream_error', `the ${service} service ${answered} ${err.code}: ${err.message}`);
}

/** Refuses one request parameter (`query.cursor`, `query.from`…) as the kit's validation does: 422 VALIDATION_ERROR naming it. */
export function refuseParameter(path: string, message: string): never {
  throw new AppError('validation_error', `${path}: ${message}`, { details: [{ path, message }] });
}
