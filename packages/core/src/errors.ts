/**
 * The one error envelope of every fxdesk service (its schema is @fxdesk/schemas'
 * ErrorEnvelopeSchema), and the codes the kit itself raises.
 *
 * Codes are written lower_snake in code. A service whose spec spells them UPPER_SNAKE (the
 * strategy service) sets `errorCodeCase: 'upper'` and the envelope is rewritten on the way out.
 */
import type { ErrorEnvelopeBody } from '@fxdesk/schemas';

export type ErrorDetail = NonNullable<ErrorEnvelopeBody['details']>[number];

/** Status of the codes the kit raises; services pass their own codes' status to AppError. */
export const KIT_ERROR_STATUS = {
  bad_request: 400,
  invalid_json: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  payload_too_large: 413,
  unsupported_media_type: 415,
  validation_error: 422,
  rate_limited: 429,
  internal_error: 500,
  not_ready: 503,
} as const;

export type KitErrorCode = keyof typeof KIT_ERROR_STATUS;

export interface AppErrorOptions {
  status?: number;
  details?: ErrorDetail[];
  headers?: Record<string, string>;
  cause?: unknown;
}

/** An error that reaches the client as the envelope with its own code, status and message. */
export class AppError extends Error {
  readonly code: string;
  readonly statusCode: number;
  readonly details: ErrorDetail[] | undefined;
  readonly headers: Record<string, string>;

  constructor(code: KitErrorCode, message: string, options?: AppErrorOptions);
  constructor(code: string, message: string, options: AppErrorOptions & { status: number });
  constructor(code: string, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.statusCode = options.status ?? KIT_ERROR_STATUS[code as KitErrorCode] ?? 500;
    this.details = options.details;
    this.headers = options.headers ?? {};
  }
}

/**
 * Declares a service's error catalog in one place: code → status. Returns a factory that
 * builds the AppError for a code, so a route writes `errors.create('signal_not_found', msg)`.
 */
export function defineErrors<const T extends Record<string, number>>(statusByCode: T) {
  return {
    statusByCode,
    create(code: keyof T & string, message: string, options: Omit<AppErrorOptions, 'status'> = {}): AppError {
      return new AppError(code, message, { ...options, status: statusByCode[code] as number });
    },
  };
}

export type ErrorCodeCase = 'lower' | 'upper';

export function formatCode(code: string, codeCase: ErrorCodeCase): string {
  return codeCase === 'upper' ? code.toUpperCase() : code;
}

export function envelope(
  code: string,
  message: string,
  extra: { requestId?: string; details?: ErrorDetail[]; codeCase?: ErrorCodeCase; now?: Date } = {},
): ErrorEnvelopeBody {
  const body: ErrorEnvelopeBody = {
    error: true,
    code: formatCode(code, extra.codeCase ?? 'lower'),
    message,
    timestamp: (extra.now ?? new Date()).toISOString(),
  };
  if (extra.requestId !== undefined) body.requestId = extra.requestId;
  if (extra.details !== undefined && extra.details.length > 0) body.details = extra.details;
  return body;
}
