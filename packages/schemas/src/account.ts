import { z } from 'zod';
import { ErrorEnvelopeSchema } from './error.js';
import { InstrumentNameSchema, IsoTimestampSchema } from './primitives.js';

/**
 * The account service's contract (spec 001 B): its normalized records, the bodies of its
 * answers, its query parameters and its error answers. The service validates with these and
 * its OpenAPI document names them; @fxdesk/client checks the answers with the same objects. The
 * records mirror @fxdesk/broker's account interfaces field for field (the service's tests hold
 * the two to each other).
 */

const Decimal = z
  .string()
  .regex(/^-?[0-9]+(\.[0-9]+)?$/, { message: 'expected a decimal string' })
  .meta({ description: 'Decimal number as a string, exactly as the broker wrote it', example: '100000.0000' });
const TransactionId = z.string().meta({ description: 'Broker transaction id (numeric string)', example: '6358' });

export const AccountSummarySchema = z
  .object({
    id: z.string().meta({ example: '101-004-1435156-001' }),
    alias: z.string().nullable(),
    currency: z.string().meta({ description: 'Home currency (ISO 4217)', example: 'USD' }),
    balance: Decimal,
    nav: Decimal.meta({ description: 'Net asset value: balance + unrealized P/L' }),
    unrealizedPL: Decimal,
    realizedPL: Decimal.meta({
      description: 'P/L realized over the lifetime of the account (OANDA); the simulated account settles weekly, so its figure covers the current trading week',
    }),
    marginUsed: Decimal,
    marginAvailable: Decimal,
    marginRate: Decimal.meta({ description: 'Margin rate of the account ("0" when the broker reports no override)' }),
    openTradeCount: z.number().int(),
    openPositionCount: z.number().int(),
    pendingOrderCount: z.number().int(),
    lastTransactionId: TransactionId,
    asOf: IsoTimestampSchema.meta({ description: 'When the broker produced this state' }),
  })
  .meta({ id: 'AccountSummary' });
export type AccountSummary = z.infer<typeof AccountSummarySchema>;

const PositionSideSchema = z.object({
  units: Decimal,
  averagePrice: Decimal.nullable(),
  unrealizedPL: Decimal,
  tradeIds: z.array(z.string()),
});

export const AccountPositionSchema = z
  .object({
    instrument: z.string(),
    long: PositionSideSchema,
    short: PositionSideSchema,
    unrealizedPL: Decimal,
    marginUsed: Decimal,
  })
  .meta({ id: 'Position' });
export type AccountPosition = z.infer<typeof AccountPositionSchema>;

export const AccountTradeSchema = z
  .object({
    id: z.string(),
    instrument: z.string(),
    currentUnits: Decimal.meta({ description: 'Signed units still open: positive long, negative short' }),
    initialUnits: Decimal,
    price: Decimal,
    openTime: IsoTimestampSchema,
    unrealizedPL: Decimal,
    stopLoss: Decimal.nullable(),
    takeProfit: Decimal.nullable(),
  })
  .meta({ id: 'Trade' });
export type AccountTrade = z.infer<typeof AccountTradeSchema>;

export const AccountPendingOrderSchema = z
  .object({
    id: z.string(),
    type: z.string().meta({ example: 'LIMIT' }),
    instrument: z.string(),
    units: Decimal,
    price: Decimal.nullable(),
    timeInForce: z.string().meta({ example: 'GTC' }),
    createTime: IsoTimestampSchema,
    state: z.string().meta({ example: 'PENDING' }),
  })
  .meta({ id: 'PendingOrder' });
export type AccountPendingOrder = z.infer<typeof AccountPendingOrderSchema>;

export const AccountDetailsSchema = AccountSummarySchema.extend({
  positions: z.array(AccountPositionSchema),
  trades: z.array(AccountTradeSchema),
  orders: z.array(AccountPendingOrderSchema),
}).meta({ id: 'AccountDetails' });
export type AccountDetails = z.infer<typeof AccountDetailsSchema>;

export const AccountInstrumentSchema = z
  .object({
    name: z.string().meta({ example: 'EUR_USD' }),
    type: z.enum(['CURRENCY', 'METAL', 'CFD']),
    displayName: z.string().meta({ example: 'EUR/USD' }),
    pipLocation: z.number().int().meta({ description: 'Exponent of a pip: -4 for EUR_USD', example: -4 }),
    displayPrecision: z.number().int(),
    tradeUnitsPrecision: z.number().int(),
    minimumTradeSize: Decimal,
    maximumOrderUnits: Decimal,
    marginRate: Decimal,
  })
  .meta({ id: 'Instrument' });
export type AccountInstrument = z.infer<typeof AccountInstrumentSchema>;

export const AccountTransactionSchema = z
  .object({
    id: TransactionId,
    time: IsoTimestampSchema,
    type: z.string().meta({ example: 'ORDER_FILL' }),
    instrument: z.string().nullable(),
    units: Decimal.nullable(),
    price: Decimal.nullable(),
    pl: Decimal.nullable(),
    accountBalance: Decimal.nullable(),
    reason: z.string().nullable(),
  })
  .meta({ id: 'AccountTransaction' });
export type AccountTransaction = z.infer<typeof AccountTransactionSchema>;

/** The answer of GET /changes. */
export const AccountChangesSchema = z
  .object({
    sinceTransactionId: TransactionId,
    lastTransactionId: TransactionId.meta({ description: 'Pass this as sinceTransactionId on the next poll' }),
    ordersCreated: z.array(AccountPendingOrderSchema),
    ordersCancelled: z.array(AccountPendingOrderSchema),
    ordersFilled: z.array(AccountPendingOrderSchema),
    tradesOpened: z.array(AccountTradeSchema),
    tradesReduced: z.array(AccountTradeSchema),
    tradesClosed: z.array(AccountTradeSchema),
    positions: z.array(AccountPositionSchema),
    transactions: z.array(AccountTransactionSchema),
    state: z.object({ nav: Decimal, unrealizedPL: Decimal, marginUsed: Decimal, marginAvailable: Decimal }).nullable(),
  })
  .meta({ id: 'AccountChanges' });
export type AccountChanges = z.infer<typeof AccountChangesSchema>;

/** Which endpoint's read a snapshot holds. */
export const AccountSnapshotKindSchema = z.enum(['summary', 'details']);
export type AccountSnapshotKind = z.infer<typeof AccountSnapshotKindSchema>;

export const AccountSnapshotRefSchema = z
  .object({
    id: z.number().int(),
    takenAt: IsoTimestampSchema.meta({ description: 'When the service stored the snapshot' }),
  })
  .meta({ id: 'SnapshotRef' });
export type AccountSnapshotRef = z.infer<typeof AccountSnapshotRefSchema>;

/** One persisted read of the account, as the summary or details endpoint answered it. */
export const AccountSnapshotSchema = z
  .object({
    id: z.number().int(),
    kind: AccountSnapshotKindSchema,
    takenAt: IsoTimestampSchema.meta({ description: "When the service stored it (the service's clock)" }),
    broker: z.string().meta({ description: 'Adapter that read it: simulated, oanda, metaapi or ctrader', example: 'oanda' }),
    accountId: z.string(),
    lastTransactionId: TransactionId,
    asOf: IsoTimestampSchema.meta({ description: "When the broker produced the state (the record's own asOf)" }),
    account: z.union([AccountDetailsSchema, AccountSummarySchema]),
  })
  .meta({ id: 'Snapshot' });
export type AccountSnapshot = z.infer<typeof AccountSnapshotSchema>;

/** The answer of GET /summary: the summary and the snapshot the read was stored as. */
export const AccountSummaryReadSchema = z.object({ account: AccountSummarySchema, snapshot: AccountSnapshotRefSchema }).meta({ id: 'AccountSummaryRead' });
export type AccountSummaryRead = z.infer<typeof AccountSummaryReadSchema>;

/** The answer of GET /details: the details and the snapshot the read was stored as. */
export const AccountDetailsReadSchema = z.object({ account: AccountDetailsSchema, snapshot: AccountSnapshotRefSchema }).meta({ id: 'AccountDetailsRead' });
export type AccountDetailsRead = z.infer<typeof AccountDetailsReadSchema>;

/** The answer of GET /instruments. */
export const AccountInstrumentsSchema = z
  .object({
    instruments: z.array(AccountInstrumentSchema),
    cached: z.boolean().meta({ description: 'true when served from the cache rather than a broker call' }),
    fetchedAt: z.string().meta({ description: 'When the list was read from the broker' }),
    expiresAt: z.string().meta({ description: 'When the cache entry expires (INSTRUMENTS_CACHE_TTL_SECONDS after fetchedAt)' }),
  })
  .meta({ id: 'Instruments' });
export type AccountInstruments = z.infer<typeof AccountInstrumentsSchema>;

/** The answer of GET /snapshots. */
export const AccountSnapshotsSchema = z.object({ snapshots: z.array(AccountSnapshotSchema) }).meta({ id: 'Snapshots' });
export type AccountSnapshots = z.infer<typeof AccountSnapshotsSchema>;

/** One to 100 names like EUR_USD, comma-separated; blanks around and between them are ignored. */
const NAME = '[A-Z0-9]{2,10}_[A-Z0-9]{2,10}';
const INSTRUMENT_LIST = new RegExp(`^[\\s,]*${NAME}(?:\\s*,[\\s,]*${NAME}){0,99}[\\s,]*$`);

const InstrumentListSchema = z
  .string()
  .max(2000)
  .regex(INSTRUMENT_LIST, { message: 'expected 1 to 100 instrument names like EUR_USD, comma-separated' })
  .transform((value) =>
    value
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s.length > 0),
  )
  .pipe(z.array(InstrumentNameSchema).min(1, { message: 'name at least one instrument, or omit the parameter for all' }).max(100))
  .meta({ description: 'Comma-separated instrument names, e.g. EUR_USD,XAU_USD; omitted means all', example: 'EUR_USD,XAU_USD' });

/** The query of GET /instruments. */
export const AccountInstrumentsQuerySchema = z.object({ instruments: InstrumentListSchema.optional() });

/** How many snapshots GET /snapshots answers. */
export const ACCOUNT_SNAPSHOT_LIMIT = { default: 50, max: 500 };

/** The query of GET /snapshots. */
export const AccountSnapshotsQuerySchema = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(ACCOUNT_SNAPSHOT_LIMIT.max)
    .default(ACCOUNT_SNAPSHOT_LIMIT.default)
    .meta({ description: `Snapshots to return, newest first; default ${ACCOUNT_SNAPSHOT_LIMIT.default}, at most ${ACCOUNT_SNAPSHOT_LIMIT.max}` }),
  kind: AccountSnapshotKindSchema.optional().meta({ description: 'Only the snapshots of one endpoint' }),
});

/** The query of GET /changes. */
export const AccountChangesQuerySchema = z.object({
  // OANDA TransactionID: "String representation of the numerical OANDA-assigned TransactionID".
  sinceTransactionId: z
    .string({ message: 'is required' })
    .regex(/^[0-9]{1,20}$/, { message: 'expected a numeric transaction id like 6358' })
    .meta({ description: 'Report what changed after this broker transaction id (required)', example: '6358' }),
});

/** The error answers of the account routes, each described for the OpenAPI document. */
export const accountErrorResponses = {
  /** Every route that calls the broker. */
  broker: {
    502: ErrorEnvelopeSchema.describe('The broker failed or refused the service (`broker_error`)'),
    503: ErrorEnvelopeSchema.describe('The broker throttles or cannot be reached (`broker_unavailable`, with Retry-After)'),
    504: ErrorEnvelopeSchema.describe('The broker did not answer in time (`broker_timeout`)'),
  },
  /** The broker reads stored as snapshots (summary, details), after `broker`: their 503 has two causes. */
  storedRead: {
    503: ErrorEnvelopeSchema.describe(
      'The broker throttles or cannot be reached (`broker_unavailable`), or the snapshot database cannot (`storage_unavailable`); both with Retry-After',
    ),
  },
  /** Every route that reads the snapshot store. */
  storage: {
    503: ErrorEnvelopeSchema.describe('The snapshot database cannot be reached (`storage_unavailable`, with Retry-After)'),
  },
  /** Every route with query parameters. */
  badQuery: {
    422: ErrorEnvelopeSchema.describe('A query parameter is missing or malformed (`validation_error`, with details)'),
  },
  unknownInstrument: {
    404: ErrorEnvelopeSchema.describe('A named instrument the broker does not list (`instrument_not_found`)'),
  },
  unknownTransaction: {
    404: ErrorEnvelopeSchema.describe('The broker knows no such transaction id, e.g. one past the last (`transaction_not_found`)'),
  },
};
