import { retryAfterSeconds } from '@fxdesk/primitives';
import { BrokerError } from '../errors.js';
import { errorBodyOf, secondsUntil } from '../http-helpers.js';
import { ErrorBodySchema, type WireErrorBody } from './wire.js';

/**
 * MetaApi HTTP failures → BrokerError. Every error body is MetaApi's Error model
 * `{ id, error, message, details?, metadata? }`; the SDK's HttpClient names them by status
 * (400 ValidationError, 401 UnauthorizedError, 403 ForbiddenError, 404 NotFoundError,
 * 409 ConflictError, 429 TooManyRequestsError, 500 InternalError). A 504 carries MetaApi's
 * TimeoutError: the account's terminal did not answer, "It seems like the account … is not
 * connected to broker yet" (maintainers, metaapi-javascript-sdk#7: "The error above happens when
 * the connection to the broker is lost"), so it counts as a lost terminal connection.
 */
export function errorFromResponse(status: number, bodyText: string, retryAfterHeader: string | string[] | undefined, nowMs: number): BrokerError {
  const body = parseErrorBody(bodyText);
  const venueCode = body.error ?? String(status);
  const detail = body.message ? `: ${body.message}` : '';
  const what = `MetaApi answered HTTP ${status}${body.error ? ` ${body.error}` : ''}${detail}`;
  if (status === 401 || status === 403) return new BrokerError('unauthorized', what, { venueCode });
  if (status === 404) return new BrokerError('not_found', what, { venueCode });
  if (status === 429) return new BrokerError('rate_limited', what, { venueCode, retryAfterSeconds: retryAfterOf(body, retryAfterHeader, nowMs) });
  if (status === 504) return new BrokerError('disconnected', what, { venueCode });
  if (status >= 500) return new BrokerError('unavailable', what, { venueCode });
  return new BrokerError('protocol', what, { venueCode });
}

export function parseErrorBody(text: string): WireErrorBody {
  return errorBodyOf(ErrorBodySchema, text);
}

/**
 * Seconds to wait after a 429: the Retry-After header ("The HTTP response contains the
 * Retry-After header, which indicates when it is recommended to repeat the request"), else
 * `metadata.recommendedRetryTime` (TooManyRequestsError model).
 */
export function retryAfterOf(body: WireErrorBody, header: string | string[] | undefined, nowMs: number): number | undefined {
  return retryAfterSeconds(header, nowMs) ?? secondsUntil(body.metadata?.recommendedRetryTime ?? '', nowMs);
}

/** Transport codes meaning the request never left: nothing reached MetaApi. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);
/** Transport codes meaning the connection broke while the request was under way. */
const DROPPED_CODES = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'UND_ERR_DESTROYED']);
const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);

function codeOf(err: unknown): string {
  const code = (err as { code?: unknown }).code ?? (err as { cause?: { code?: unknown } }).cause?.code;
  return String(code);
}

/**
 * A failure before any HTTP status. A connection that could not be opened is `unavailable`
 * (nothing was sent: definite); one that broke under way is `disconnected` and silence is
 * `timeout` (both ambiguous: a trade may have reached the terminal).
 */
export function errorFromTransport(err: unknown, timeoutMs: number): BrokerError {
  const code = codeOf(err);
  if (TIMEOUT_CODES.has(code)) return new BrokerError('timeout', `MetaApi did not answer within ${timeoutMs} ms`, { cause: err });
  if (NOT_SENT_CODES.has(code)) return new BrokerError('unavailable', `MetaApi is unreachable (${code})`, { venueCode: code, cause: err });
  if (DROPPED_CODES.has(code)) return new BrokerError('disconnected', `the connection to MetaApi broke during the request (${code})`, { cause: err });
  return new BrokerError('disconnected', `MetaApi request failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
}

/** Whether a failure means the terminal is out of reach: a broken or unopenable link, or MetaApi's terminal not connected. */
export function isConnectionLoss(err: unknown): boolean {
  if (!(err instanceof BrokerError)) return false;
  return err.kind === 'disconnected' || (err.kind === 'unavailable' && NOT_SENT_CODES.has(err.venueCode ?? ''));
}
