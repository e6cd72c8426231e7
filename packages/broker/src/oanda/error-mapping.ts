import { BrokerError } from '../errors.js';
import { errorBodyOf } from '../http-helpers.js';
import { ErrorBodySchema } from './wire.js';

/**
 * OANDA v20 HTTP failures → BrokerError. Statuses and bodies as the v20 OpenAPI document's
 * shared responses and the Troubleshooting page (https://developer.oanda.com/rest-live-v20/troubleshooting-errors/)
 * describe them: every error body is `{ errorCode?, errorMessage }`;
 * 401 "the authentication token is invalid or has not been provided";
 * 403 "a token that does not authorize them to perform the action" (also a wrong account id:
 * "The provided request was forbidden.");
 * 404 "attempted to access an entity that does not exist";
 * 405 "an HTTP method that is not supported";
 * 416 "a range that is invalid or cannot be processed" (a transaction id past the last one);
 * 429 when over "120 requests per second" (Development Guide, Rate Limiting).
 */
export function errorFromResponse(status: number, bodyText: string, retryAfterSeconds: number | undefined): BrokerError {
  const body = errorBodyOf(ErrorBodySchema, bodyText);
  const venueCode = body.errorCode ?? String(status);
  const detail = body.errorMessage ? `: ${body.errorMessage}` : '';
  const options = { venueCode, retryAfterSeconds };
  if (status === 401 || status === 403) return new BrokerError('unauthorized', `OANDA refused the credentials (HTTP ${status})${detail}`, options);
  if (status === 404 || status === 416) return new BrokerError('not_found', `OANDA found no such entity (HTTP ${status})${detail}`, options);
  if (status === 429) return new BrokerError('rate_limited', `OANDA is throttling requests (HTTP 429)${detail}`, options);
  if (status >= 500) return new BrokerError('unavailable', `OANDA is unavailable (HTTP ${status})${detail}`, options);
  return new BrokerError('protocol', `OANDA rejected the request (HTTP ${status})${detail}`, options);
}

const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_DESTROYED',
]);
const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT', 'ETIMEDOUT']);

/** A failure before any HTTP status: a timeout or an unreachable host. */
export function errorFromTransport(err: unknown, timeoutMs: number): BrokerError {
  const code = (err as { code?: unknown }).code;
  const causeCode = ((err as { cause?: { code?: unknown } }).cause ?? {}).code;
  if (TIMEOUT_CODES.has(String(code))) return new BrokerError('timeout', `OANDA did not answer within ${timeoutMs} ms`, { cause: err });
  if (UNREACHABLE_CODES.has(String(code)) || UNREACHABLE_CODES.has(String(causeCode))) {
    return new BrokerError('unavailable', `OANDA is unreachable (${String(code ?? causeCode)})`, { cause: err });
  }
  return new BrokerError('unavailable', `OANDA request failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
}

/** Whether a transport failure happened on a reused keep-alive socket the server had closed. */
export function isStaleSocket(err: unknown): boolean {
  const code = String((err as { code?: unknown }).code);
  return code === 'UND_ERR_SOCKET' || code === 'ECONNRESET';
}
