import type { ErrorEnvelopeBody } from '@fxdesk/schemas';

/**
 * How a call failed: `http` (the service answered an error, usually with the fxdesk envelope),
 * `timeout` (no complete answer within the client's timeout), `network` (no connection, reset),
 * `invalid_response` (a 2xx whose body does not have the documented shape).
 */
export type ServiceErrorKind = 'http' | 'timeout' | 'network' | 'invalid_response';

export interface ServiceErrorInit {
  service: string;
  kind: ServiceErrorKind;
  code: string;
  message: string;
  status?: number;
  requestId?: string;
  details?: ErrorEnvelopeBody['details'];
  retryAfterSeconds?: number;
  cause?: unknown;
}

/** Statuses worth a retry of an idempotent call: throttled, or the server or a proxy in trouble. */
const RETRYABLE_STATUS = new Set([408, 429, 502, 503, 504]);

/**
 * A failed call to an fxdesk service, with the error envelope parsed: `code` is the service's
 * own code (`validation_error`, `INSTRUMENT_NOT_FOUND`…), or `timeout`, `network_error` or
 * `invalid_response` when no envelope came back.
 */
export class ServiceError extends Error {
  readonly service: string;
  readonly kind: ServiceErrorKind;
  readonly code: string;
  /** HTTP status when the service answered; undefined for timeouts and network failures. */
  readonly status: number | undefined;
  readonly requestId: string | undefined;
  readonly details: ErrorEnvelopeBody['details'];
  /** From the `Retry-After` header (seconds), when the service sent one. */
  readonly retryAfterSeconds: number | undefined;

  constructor(init: ServiceErrorInit) {
    super(`${init.service}: ${init.message}`, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'ServiceError';
    this.service = init.service;
    this.kind = init.kind;
    this.code = init.code;
    this.status = init.status;
    this.requestId = init.requestId;
    this.details = init.details;
    this.retryAfterSeconds = init.retryAfterSeconds;
  }

  /**
   * Whether repeating the same call may succeed: timeouts, network failures and 408/429/502/503/504.
   * Only repeat calls that are safe to repeat (reads, or writes with an idempotency key).
   */
  get isRetryable(): boolean {
    if (this.kind === 'timeout' || this.kind === 'network') return true;
    return this.kind === 'http' && this.status !== undefined && RETRYABLE_STATUS.has(this.status);
  }
}
