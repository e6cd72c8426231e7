import { z } from 'zod';

/**
 * The parts of OANDA v20 response bodies the adapter reads, after the v20 OpenAPI definitions
 * (github.com/oanda/v20-openapi, "definitions"). Unknown fields are ignored, so OANDA adding a
 * field never breaks the adapter; a missing required field or a malformed value is a protocol
 * error instead of a wrong number on screen.
 */

/** "A decimal number encoded as a string" (DecimalNumber, AccountUnits, PriceValue). */
const Decimal = z.string().regex(/^-?\d+(\.\d+)?$/, { message: 'expected a decimal string' });

/**
 * DateTime: RFC 3339 (what `Accept-Datetime-Format: RFC3339` asks for), or UNIX seconds with up
 * to nine fractional digits if a proxy drops the header.
 */
const DateTime = z.string().regex(/^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})|\d+(\.\d+)?)$/, {
  message: 'expected an RFC 3339 or UNIX date-time',
});

/** "String representation of the numerical OANDA-assigned TransactionID". */
export const TransactionIdSchema = z.string().regex(/^\d+$/, { message: 'expected a numeric transaction id' });

/** AccountSummary (and the summary fields of Account). */
export const WireAccountSummarySchema = z.object({
  id: z.string().min(1),
  alias: z.string().optional(),
  currency: z.string().min(1),
  balance: Decimal,
  NAV: Decimal,
  unrealizedPL: Decimal,
  /** "The total profit/loss realized over the lifetime of the Account." */
  pl: Decimal,
  marginUsed: Decimal,
  marginAvailable: Decimal,
  /** "Only provided if a margin rate override exists for the Account." */
  marginRate: Decimal.optional(),
  openTradeCount: z.number().int().nonnegative(),
  openPositionCount: z.number().int().nonnegative(),
  pendingOrderCount: z.number().int().nonnegative(),
  lastTransactionID: TransactionIdSchema.optional(),
});

/** TradeSummary: Account.trades and the trade lists of AccountChanges. */
export const WireTradeSchema = z.object({
  id: z.string().min(1),
  instrument: z.string().min(1),
  price: Decimal,
  openTime: DateTime,
  initialUnits: Decimal,
  currentUnits: Decimal,
  unrealizedPL: Decimal.optional(),
  takeProfitOrderID: z.string().optional(),
  stopLossOrderID: z.string().optional(),
});

const WirePositionSideSchema = z.object({
  units: Decimal,
  averagePrice: Decimal.optional(),
  tradeIDs: z.array(z.string()).optional(),
  unrealizedPL: Decimal.optional(),
});

export const WirePositionSchema = z.object({
  instrument: z.string().min(1),
  unrealizedPL: Decimal.optional(),
  marginUsed: Decimal.optional(),
  long: WirePositionSideSchema,
  short: WirePositionSideSchema,
});

/**
 * Order: the base fields (id, createTime, state, type) and those of the concrete order types
 * the adapter shows. Entry orders (LIMIT, STOP, MARKET_IF_TOUCHED) carry instrument and units;
 * dependent orders (TAKE_PROFIT, STOP_LOSS, TRAILING_STOP_LOSS) carry the tradeID they close.
 */
export const WireOrderSchema = z.object({
  id: z.string().min(1),
  type: z.string().min(1),
  createTime: DateTime,
  state: z.string().min(1),
  instrument: z.string().optional(),
  units: Decimal.optional(),
  price: Decimal.optional(),
  timeInForce: z.string().optional(),
  tradeID: z.string().optional(),
});

/** Transaction: the base fields and those common to the order-fill and funding transactions. */
export const WireTransactionSchema = z.object({
  id: TransactionIdSchema,
  time: DateTime,
  type: z.string().min(1),
  instrument: z.string().optional(),
  units: Decimal.optional(),
  price: Decimal.optional(),
  pl: Decimal.optional(),
  accountBalance: Decimal.optional(),
  reason: z.string().optional(),
  fundingReason: z.string().optional(),
});

/** Account: the summary plus full open trades, positions and pending orders. */
export const WireAccountSchema = WireAccountSummarySchema.extend({
  trades: z.array(WireTradeSchema).default([]),
  positions: z.array(WirePositionSchema).default([]),
  orders: z.array(WireOrderSchema).default([]),
});

export const WireInstrumentSchema = z.object({
  name: z.string().min(1),
  type: z.enum(['CURRENCY', 'CFD', 'METAL']),
  displayName: z.string(),
  pipLocation: z.number().int(),
  displayPrecision: z.number().int().nonnegative(),
  tradeUnitsPrecision: z.number().int(),
  minimumTradeSize: Decimal,
  maximumOrderUnits: Decimal,
  marginRate: Decimal,
});

const WireAccountChangesSchema = z.object({
  ordersCreated: z.array(WireOrderSchema).default([]),
  ordersCancelled: z.array(WireOrderSchema).default([]),
  ordersFilled: z.array(WireOrderSchema).default([]),
  ordersTriggered: z.array(WireOrderSchema).default([]),
  tradesOpened: z.array(WireTradeSchema).default([]),
  tradesReduced: z.array(WireTradeSchema).default([]),
  tradesClosed: z.array(WireTradeSchema).default([]),
  positions: z.array(WirePositionSchema).default([]),
  transactions: z.array(WireTransactionSchema).default([]),
});

/** AccountChangesState: the price-dependent state after the changes. */
const WireAccountChangesStateSchema = z.object({
  NAV: Decimal,
  unrealizedPL: Decimal,
  marginUsed: Decimal,
  marginAvailable: Decimal,
});

/** `GET /v3/accounts/{accountID}/summary` 200: `{ account: AccountSummary, lastTransactionID }`. */
export const SummaryResponseSchema = z.object({ account: WireAccountSummarySchema, lastTransactionID: TransactionIdSchema });

/** `GET /v3/accounts/{accountID}` 200: `{ account: Account, lastTransactionID }`. */
export const DetailsResponseSchema = z.object({ account: WireAccountSchema, lastTransactionID: TransactionIdSchema });

/** `GET /v3/accounts/{accountID}/instruments` 200: `{ instruments: [Instrument], lastTransactionID }`. */
export const InstrumentsResponseSchema = z.object({
  instruments: z.array(WireInstrumentSchema),
  lastTransactionID: TransactionIdSchema.optional(),
});

/** `GET /v3/accounts/{accountID}/changes` 200: `{ changes: AccountChanges, state: AccountChangesState, lastTransactionID }`. */
export const ChangesResponseSchema = z.object({
  changes: WireAccountChangesSchema,
  state: WireAccountChangesStateSchema.optional(),
  lastTransactionID: TransactionIdSchema,
});

/** Every v20 error response: `{ errorCode?: string, errorMessage: string }` ("errorCode … may not be returned for some errors"). */
export const ErrorBodySchema = z.object({ errorCode: z.string().optional(), errorMessage: z.string().optional() });

export type WireAccountSummary = z.infer<typeof WireAccountSummarySchema>;
export type WireAccount = z.infer<typeof WireAccountSchema>;
export type WireTrade = z.infer<typeof WireTradeSchema>;
export type WirePosition = z.infer<typeof WirePositionSchema>;
export type WireOrder = z.infer<typeof WireOrderSchema>;
export type WireTransaction = z.infer<typeof WireTransactionSchema>;
export type WireInstrument = z.infer<typeof WireInstrumentSchema>;
export type ChangesResponse = z.infer<typeof ChangesResponseSchema>;
