import type { RawData } from 'ws';
import { z } from 'zod';

/**
 * The cTrader Open API messages the feed speaks, in their JSON form.
 *
 * Envelope (help.ctrader.com/open-api/sending-receiving-json): every message is one JSON
 * object `{ "clientMsgId": string, "payloadType": integer, "payload": { ... } }`; the
 * `clientMsgId` a client puts on a request "will be returned in the response" (ProtoMessage,
 * OpenApiCommonMessages.proto), events carry none.
 *
 * Payload type numbers: ProtoPayloadType (OpenApiCommonModelMessages.proto) for the common
 * ERROR_RES and HEARTBEAT_EVENT, ProtoOAPayloadType (OpenApiModelMessages.proto,
 * github.com/spotware/openapi-proto-messages) for the rest.
 *
 * Payload fields follow OpenApiMessages.proto / OpenApiModelMessages.proto. The JSON gateway
 * maps protobuf to JSON, so the parser is lenient where that mapping is: int64 values may come
 * as numbers or as decimal strings, enums as names or numbers, fields holding a default value
 * may be omitted. Unknown fields are ignored; a missing required field is a protocol error.
 */
export const PayloadType = {
  ERROR_RES: 50,
  HEARTBEAT_EVENT: 51,
  APPLICATION_AUTH_REQ: 2100,
  APPLICATION_AUTH_RES: 2101,
  ACCOUNT_AUTH_REQ: 2102,
  ACCOUNT_AUTH_RES: 2103,
  VERSION_REQ: 2104,
  VERSION_RES: 2105,
  SYMBOLS_LIST_REQ: 2114,
  SYMBOLS_LIST_RES: 2115,
  SYMBOL_BY_ID_REQ: 2116,
  SYMBOL_BY_ID_RES: 2117,
  SUBSCRIBE_SPOTS_REQ: 2127,
  SUBSCRIBE_SPOTS_RES: 2128,
  UNSUBSCRIBE_SPOTS_REQ: 2129,
  UNSUBSCRIBE_SPOTS_RES: 2130,
  SPOT_EVENT: 2131,
  GET_TRENDBARS_REQ: 2137,
  GET_TRENDBARS_RES: 2138,
  OA_ERROR_RES: 2142,
  ACCOUNTS_TOKEN_INVALIDATED_EVENT: 2147,
  CLIENT_DISCONNECT_EVENT: 2148,
  ACCOUNT_DISCONNECT_EVENT: 2164,
  REFRESH_TOKEN_REQ: 2173,
  REFRESH_TOKEN_RES: 2174,
  NEW_ORDER_REQ: 2106,
  CANCEL_ORDER_REQ: 2108,
  AMEND_POSITION_SLTP_REQ: 2110,
  CLOSE_POSITION_REQ: 2111,
  ASSET_LIST_REQ: 2112,
  ASSET_LIST_RES: 2113,
  TRADER_REQ: 2121,
  TRADER_RES: 2122,
  RECONCILE_REQ: 2124,
  RECONCILE_RES: 2125,
  EXECUTION_EVENT: 2126,
  ORDER_ERROR_EVENT: 2132,
  DEAL_LIST_REQ: 2133,
  DEAL_LIST_RES: 2134,
  EXPECTED_MARGIN_REQ: 2139,
  EXPECTED_MARGIN_RES: 2140,
  ORDER_LIST_REQ: 2175,
  ORDER_LIST_RES: 2176,
  GET_POSITION_UNREALIZED_PNL_REQ: 2187,
  GET_POSITION_UNREALIZED_PNL_RES: 2188,
} as const;

export type PayloadTypeName = keyof typeof PayloadType;

const NAMES = new Map<number, string>(Object.entries(PayloadType).map(([name, n]) => [n, name]));

/** `SPOT_EVENT (2131)`, for messages about a payload type. */
export function payloadTypeLabel(payloadType: number): string {
  return `${NAMES.get(payloadType) ?? 'payload type'} (${payloadType})`;
}

/** int64/uint64: a JSON number, or a decimal string as protobuf's JSON mapping writes them. */
export const Int64 = z.union([
  z.number().int(),
  z
    .string()
    .regex(/^-?\d+$/)
    .transform(Number),
]);
export const Int = z.number().int();

export const EnvelopeSchema = z.object({
  clientMsgId: z.string().optional(),
  payloadType: Int,
  payload: z.record(z.string(), z.unknown()).optional().default({}),
});
export type Envelope = z.output<typeof EnvelopeSchema>;

/** ProtoOAErrorRes (2142) and ProtoErrorRes (50) share these fields. */
export const ErrorResSchema = z.object({
  errorCode: z.string(),
  description: z.string().optional(),
  /** When a maintenance ends: Unix milliseconds in ProtoErrorRes, Unix seconds in ProtoOAErrorRes. */
  maintenanceEndTimestamp: Int64.optional(),
  /** ProtoOAErrorRes: seconds until a payload type blocked by a rate limit is unlocked. */
  retryAfter: Int64.optional(),
});
export type ErrorRes = z.output<typeof ErrorResSchema>;

/** ProtoOALightSymbol, the entries of ProtoOASymbolsListRes. */
export const LightSymbolSchema = z.object({
  symbolId: Int64,
  symbolName: z.string().optional(),
  /** "If TRUE then symbol is visible for traders." (proto2 optional bool, default false). */
  enabled: z.boolean().optional(),
  description: z.string().optional(),
  baseAssetId: Int64.optional(),
  quoteAssetId: Int64.optional(),
});
export const SymbolsListResSchema = z.object({ symbol: z.array(LightSymbolSchema).optional().default([]) });

/** ProtoOAInterval: seconds from SUNDAY 00:00 in the symbol's time zone, end exclusive. */
export const IntervalSchema = z.object({ startSecond: Int, endSecond: Int });

/** ProtoOAHoliday. */
export const HolidaySchema = z.object({
  name: z.string().optional(),
  scheduleTimeZone: z.string().optional(),
  /** Days since 1970-01-01. */
  holidayDate: Int64,
  isRecurring: z.boolean().optional(),
  /** Seconds from 00:00 of the holiday; absent means the whole day. */
  startSecond: Int.optional(),
  endSecond: Int.optional(),
});

/**
 * ProtoOASymbol, the entries of ProtoOASymbolByIdRes: digits, pip position, schedule, and the
 * trading terms: volumes "in cents" of units (`lotSize` is one lot in cents), the minimum
 * distance of stops from the market (`slDistance`, `tpDistance`, in points unless
 * `distanceSetIn` says percentage), the trading mode.
 */
export const FullSymbolSchema = z.object({
  symbolId: Int64,
  digits: Int,
  pipPosition: Int,
  lotSize: Int64.optional(),
  minVolume: Int64.optional(),
  maxVolume: Int64.optional(),
  stepVolume: Int64.optional(),
  slDistance: Int.optional(),
  tpDistance: Int.optional(),
  distanceSetIn: z.union([z.literal('SYMBOL_DISTANCE_IN_POINTS'), z.literal('SYMBOL_DISTANCE_IN_PERCENTAGE'), z.literal(1), z.literal(2)]).optional(),
  tradingMode: z.union([z.string(), Int]).optional(),
  enableShortSelling: z.boolean().optional(),
  schedule: z.array(IntervalSchema).optional().default([]),
  scheduleTimeZone: z.string().optional(),
  holiday: z.array(HolidaySchema).optional().default([]),
});
export type FullSymbol = z.output<typeof FullSymbolSchema>;
export const SymbolByIdResSchema = z.object({ symbol: z.array(FullSymbolSchema).optional().default([]) });

/**
 * ProtoOASpotEvent. Prices are "specified in 1/100000 of unit of a price"; a side the event
 * leaves out has not changed since the previous event of the symbol. `timestamp` is sent when
 * the subscription asked for it (`subscribeToSpotTimestamp`).
 */
export const SpotEventSchema = z.object({
  ctidTraderAccountId: Int64.optional(),
  symbolId: Int64,
  bid: Int64.optional(),
  ask: Int64.optional(),
  timestamp: Int64.optional(),
});

/**
 * ProtoOATrendbar: `low` in the same 1/100000 units, open/close/high as unsigned deltas above
 * it, `utcTimestampInMinutes` the bar's open ("equal to the timestamp of the open tick"),
 * `volume` in ticks. A delta of 0 may be left out by the JSON mapping.
 */
export const TrendbarSchema = z.object({
  volume: Int64,
  low: Int64,
  deltaOpen: Int64.optional().default(0),
  deltaClose: Int64.optional().default(0),
  deltaHigh: Int64.optional().default(0),
  utcTimestampInMinutes: Int64,
});
export type Trendbar = z.output<typeof TrendbarSchema>;
export const GetTrendbarsResSchema = z.object({
  trendbar: z.array(TrendbarSchema).optional().default([]),
  hasMore: z.boolean().optional(),
});

export const VersionResSchema = z.object({ version: z.string() });

/** ProtoOAAccountsTokenInvalidatedEvent: the access token of these accounts no longer works. */
export const TokenInvalidatedEventSchema = z.object({
  ctidTraderAccountIds: z.array(Int64).optional().default([]),
  reason: z.string().optional(),
});

/**
 * ProtoOARefreshTokenRes: "Your new Refresh Token" and its access token, valid `expiresIn`
 * seconds ("Access Token expiration in seconds"); `tokenType` is "bearer".
 */
export const RefreshTokenResSchema = z.object({
  accessToken: z.string().min(1),
  tokenType: z.string().optional(),
  expiresIn: Int64,
  refreshToken: z.string().min(1),
});

/** ProtoOAClientDisconnectEvent: the server cancelled the application's connection. */
export const ClientDisconnectEventSchema = z.object({ reason: z.string().optional() });

/** ProtoOAAccountDisconnectEvent: the account's session was dropped on the server side. */
export const AccountDisconnectEventSchema = z.object({ ctidTraderAccountId: Int64 });

/** The text of one WebSocket message: `ws` hands a Buffer, a message's fragments as an array, or an ArrayBuffer. */
export function messageText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.from(data).toString('utf8');
}
