import { BrokerError, type BrokerErrorKind } from '../errors.js';
import { PayloadType, type ErrorRes } from './wire.js';

/**
 * ProtoOAErrorCode (OpenApiModelMessages.proto) and ProtoErrorCode
 * (OpenApiCommonModelMessages.proto) names, grouped by what a caller can do about them.
 */
const KIND_BY_CODE: Record<string, BrokerErrorKind> = {
  // Authorization: wrong client credentials, a bad, expired or revoked token, an unknown account.
  CH_CLIENT_AUTH_FAILURE: 'unauthorized',
  CH_CLIENT_NOT_AUTHENTICATED: 'unauthorized',
  CH_ACCESS_TOKEN_INVALID: 'unauthorized',
  OA_AUTH_TOKEN_EXPIRED: 'unauthorized',
  ACCOUNT_NOT_AUTHORIZED: 'unauthorized',
  CH_CTID_TRADER_ACCOUNT_NOT_FOUND: 'unauthorized',
  CH_OA_CLIENT_NOT_FOUND: 'unauthorized',
  RET_NO_SUCH_LOGIN: 'unauthorized',
  RET_ACCOUNT_DISABLED: 'unauthorized',
  CHANNEL_IS_BLOCKED: 'unauthorized',
  // Throttling: "Request frequency is reached", a payload type blocked for `retryAfter` seconds.
  REQUEST_FREQUENCY_EXCEEDED: 'rate_limited',
  BLOCKED_PAYLOAD_TYPE: 'rate_limited',
  // The venue is there but cannot serve now.
  SERVER_IS_UNDER_MAINTENANCE: 'unavailable',
  CH_SERVER_NOT_REACHABLE: 'unavailable',
  CANT_ROUTE_REQUEST: 'unavailable',
  CONNECTIONS_LIMIT_EXCEEDED: 'unavailable',
  SYMBOL_NOT_FOUND: 'not_found',
  UNKNOWN_SYMBOL: 'not_found',
  ENTITY_NOT_FOUND: 'not_found',
  TIMEOUT_ERROR: 'timeout',
  UNSUPPORTED_MESSAGE: 'protocol',
  FRAME_TOO_LONG: 'protocol',
};

/**
 * A ProtoOAErrorRes / ProtoErrorRes as a BrokerError; other codes are `rejected`. The two
 * messages give `maintenanceEndTimestamp` in different units: ProtoErrorRes "The Unix time in
 * milliseconds of the end of the maintenance" (OpenApiCommonMessages.proto), ProtoOAErrorRes
 * "The Unix time in seconds when the current maintenance session will be ended"
 * (OpenApiMessages.proto); `payloadType` says which one it is.
 */
export function errorFromWire(error: ErrorRes, payloadType: number, nowMs: number): BrokerError {
  const kind = KIND_BY_CODE[error.errorCode] ?? 'rejected';
  const retryAfterSeconds = error.retryAfter ?? maintenanceLeftSeconds(error, payloadType, nowMs);
  const detail = error.description ? `: ${error.description}` : '';
  return new BrokerError(kind, `cTrader ${error.errorCode}${detail}`, {
    venueCode: error.errorCode,
    ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
  });
}

function maintenanceLeftSeconds(error: ErrorRes, payloadType: number, nowMs: number): number | undefined {
  if (error.maintenanceEndTimestamp === undefined) return undefined;
  const endMs = payloadType === PayloadType.ERROR_RES ? error.maintenanceEndTimestamp : error.maintenanceEndTimestamp * 1000;
  return Math.max(0, Math.ceil((endMs - nowMs) / 1000));
}
