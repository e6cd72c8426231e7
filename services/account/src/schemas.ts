import type {
  AccountChanges,
  AccountDetails,
  AccountSummary,
  AccountTransaction,
  Instrument,
  PendingOrder,
  Position,
  Trade,
} from '@fxdesk/broker';
import { z } from 'zod';

/**
 * The normalized account records as zod schemas, for validation of what leaves the service and
 * for the OpenAPI document. They mirror @fxdesk/broker's interfaces field for field; the
 * `Same<>` checks at the bottom stop the build when the two drift apart.
 */

const Decimal = z.string().meta({ description: 'Decimal number as a string, exactly as the broker wrote it', example: '100000.0000' });
const Timestamp = z.string().meta({ description: 'ISO 8601 UTC timestamp', example: '2026-01-05T12:00:00.000Z' });
const TransactionId = z.string().meta({ description: 'Broker transaction id (numeric string)', example: '6358' });
const nullable = <T extends z.ZodType>(schema: T) => schema.nullable();

export const AccountSummarySchema = z
  .object({
    id: z.string().meta({ example: '101-004-1435156-001' }),
    alias: nullable(z.string()),
    currency: z.string().meta({ description: 'Home currency (ISO 4217)', example: 'USD' }),
    balance: Decimal,
    nav: Decimal.meta({ description: 'Net asset value: balance + unrealized P/L' }),
    unrealizedPL: Decimal,
    realizedPL: Decimal.meta({ description: 'P/L realized over the lifetime of the account (OANDA); the simulated account settles weekly, so its figure covers the current trading week' }),
    marginUsed: Decimal,
    marginAvailable: Decimal,
    marginRate: Decimal.meta({ description: 'Margin rate of the account ("0" when the broker reports no override)' }),
    openTradeCount: z.number().int(),
    openPositionCount: z.number().int(),
    pendingOrderCount: z.number().int(),
    lastTransactionId: TransactionId,
    asOf: Timestamp.meta({ description: 'When the broker produced this state' }),
  })
  .meta({ id: 'AccountSummary' });

const PositionSideSchema = z.object({
  units: Decimal,
  averagePrice: nullable(Decimal),
  unrealizedPL: Decimal,
  tradeIds: z.array(z.string()),
});

export const PositionSchema = z
  .object({
    instrument: z.string(),
    long: PositionSideSchema,
    short: PositionSideSchema,
    unrealizedPL: Decimal,
    marginUsed: Decimal,
  })
  .meta({ id: 'Position' });

export const TradeSchema = z
  .object({
    id: z.string(),
    instrument: z.string(),
    currentUnits: Decimal.meta({ description: 'Signed units still open: positive long, negative short' }),
    initialUnits: Decimal,
    price: Decimal,
    openTime: Timestamp,
    unrealizedPL: Decimal,
    stopLoss: nullable(Decimal),
    takeProfit: nullable(Decimal),
  })
  .meta({ id: 'Trade' });

export const PendingOrderSchema = z
  .object({
    id: z.string(),
    type: z.string().meta({ example: 'LIMIT' }),
    instrument: z.string(),
    units: Decimal,
    price: nullable(Decimal),
    timeInForce: z.string().meta({ example: 'GTC' }),
    createTime: Timestamp,
    state: z.string().meta({ example: 'PENDING' }),
  })
  .meta({ id: 'PendingOrder' });

export const AccountDetailsSchema = AccountSummarySchema.extend({
  positions: z.array(PositionSchema),
  trades: z.array(TradeSchema),
  orders: z.array(PendingOrderSchema),
}).meta({ id: 'AccountDetails' });

export const InstrumentSchema = z
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

export const AccountTransactionSchema = z
  .object({
    id: TransactionId,
    time: Timestamp,
    type: z.string().meta({ example: 'ORDER_FILL' }),
    instrument: nullable(z.string()),
    units: nullable(Decimal),
    price: nullable(Decimal),
    pl: nullable(Decimal),
    accountBalance: nullable(Decimal),
    reason: nullable(z.string()),
  })
  .meta({ id: 'AccountTransaction' });

export const AccountChangesSchema = z
  .object({
    sinceTransactionId: TransactionId,
    lastTransactionId: TransactionId.meta({ description: 'Pass this as sinceTransactionId on the next poll' }),
    ordersCreated: z.array(PendingOrderSchema),
    ordersCancelled: z.array(PendingOrderSchema),
    ordersFilled: z.array(PendingOrderSchema),
    tradesOpened: z.array(TradeSchema),
    tradesReduced: z.array(TradeSchema),
    tradesClosed: z.array(TradeSchema),
    positions: z.array(PositionSchema),
    transactions: z.array(AccountTransactionSchema),
    state: nullable(z.object({ nav: Decimal, unrealizedPL: Decimal, marginUsed: Decimal, marginAvailable: Decimal })),
  })
  .meta({ id: 'AccountChanges' });

export const SnapshotRefSchema = z
  .object({
    id: z.number().int(),
    takenAt: Timestamp.meta({ description: 'When the service stored the snapshot' }),
  })
  .meta({ id: 'SnapshotRef' });

export const SnapshotSchema = z
  .object({
    id: z.number().int(),
    kind: z.enum(['summary', 'details']),
    takenAt: Timestamp,
    broker: z.string().meta({ example: 'oanda' }),
    accountId: z.string(),
    lastTransactionId: TransactionId,
    asOf: Timestamp,
    account: z.union([AccountDetailsSchema, AccountSummarySchema]),
  })
  .meta({ id: 'Snapshot' });

/** True when A and B are the same type. */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const mirrors: [
  Same<z.infer<typeof AccountSummarySchema>, AccountSummary>,
  Same<z.infer<typeof AccountDetailsSchema>, AccountDetails>,
  Same<z.infer<typeof PositionSchema>, Position>,
  Same<z.infer<typeof TradeSchema>, Trade>,
  Same<z.infer<typeof PendingOrderSchema>, PendingOrder>,
  Same<z.infer<typeof InstrumentSchema>, Instrument>,
  Same<z.infer<typeof AccountTransactionSchema>, AccountTransaction>,
  Same<z.infer<typeof AccountChangesSchema>, AccountChanges>,
] = [true, true, true, true, true, true, true, true];
void mirrors;
