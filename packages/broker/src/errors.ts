/**
 * Failures of a broker call, normalized across venues so services map them once:
 * timeouts and lost connections are ambiguous (the call may have reached the venue),
 * the others are definite.
 */
export type BrokerErrorKind = 'timeout' | 'disconnected' | 'unauthorized' | 'rate_limited' | 'not_found' | 'rejected' | 'unavailable' | 'protocol';

export class BrokerError extends Error {
  readonly kind: BrokerErrorKind;
  /** The venue's own error code or HTTP status, when it gave one. */
  readonly venueCode: string | undefined;
  /** Seconds the venue asked us to wait (HTTP Retry-After and the like). */
  readonly retryAfterSeconds: number | undefined;

  constructor(kind: BrokerErrorKind, message: string, options: { venueCode?: string; retryAfterSeconds?: number; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'BrokerError';
    this.kind = kind;
    this.venueCode = options.venueCode;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }

  /** Whether the call may have taken effect at the venue (never retry a trade on these). */
  get isAmbiguous(): boolean {
    return this.kind === 'timeout' || this.kind === 'disconnected';
  }
}

export function isBrokerError(err: unknown): err is BrokerError {
  return err instanceof BrokerError;
}
