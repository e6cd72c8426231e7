import { z } from 'zod';
import { Int, Int64 } from './wire.js';

/**
 * The trading and account messages of the Open API in their JSON form (OpenApiMessages.proto,
 * OpenApiModelMessages.proto, github.com/spotware/openapi-proto-messages). Volumes are "in
 * cents" of units (1000 means 10.00 units); money fields are integers scaled by `moneyDigits`
 * ("moneyDigits = 8 must be interpret as business value multiplied by 10^8"); prices of orders,
 * positions and deals are doubles. Enums come as names or as their numbers and leave as names.
 */

/** A proto enum read from its name or its number. */
function protoEnum<const T extends readonly [string, ...string[]]>(byNumber: Record<number, T[number]>, names: T) {
  return z.union([z.enum(names), Int.transform((n, ctx) => byNumber[n] ?? (ctx.addIssue({ code: 'custom', message: `unknown enum value ${n}` }), z.NEVER))]);
}

const TRADE_SIDES = ['BUY', 'SELL'] as const;
export const TradeSideSchema = protoEnum({ 1: 'BUY', 2: 'SELL' }, TRADE_SIDES);
export type TradeSide = z.output<typeof TradeSideSchema>;

const ORDER_TYPES = ['MARKET', 'LIMIT', 'STOP', 'STOP_LOSS_TAKE_PROFIT', 'MARKET_RANGE', 'STOP_LIMIT'] as const;
export const OrderTypeSchema = protoEnum({ 1: 'MARKET', 2: 'LIMIT', 3: 'STOP', 4: 'STOP_LOSS_TAKE_PROFIT', 5: 'MARKET_RANGE', 6: 'STOP_LIMIT' }, ORDER_TYPES);
export type WireOrderType = z.output<typeof OrderTypeSchema>;

const TIME_IN_FORCE = ['GOOD_TILL_DATE', 'GOOD_TILL_CANCEL', 'IMMEDIATE_OR_CANCEL', 'FILL_OR_KILL', 'MARKET_ON_OPEN'] as const;
export const TimeInForceSchema = protoEnum(
  { 1: 'GOOD_TILL_DATE', 2: 'GOOD_TILL_CANCEL', 3: 'IMMEDIATE_OR_CANCEL', 4: 'FILL_OR_KILL', 5: 'MARKET_ON_OPEN' },
  TIME_IN_FORCE,
);
export type TimeInForce = z.output<typeof TimeInForceSchema>;

const ORDER_STATUSES = ['ORDER_STATUS_ACCEPTED', 'ORDER_STATUS_FILLED', 'ORDER_STATUS_REJECTED', 'ORDER_STATUS_EXPIRED', 'ORDER_STATUS_CANCELLED'] as const;
export const OrderStatusSchema = protoEnum(
  { 1: 'ORDER_STATUS_ACCEPTED', 2: 'ORDER_STATUS_FILLED', 3: 'ORDER_STATUS_REJECTED', 4: 'ORDER_STATUS_EXPIRED', 5: 'ORDER_STATUS_CANCELLED' },
  ORDER_STATUSES,
);

const POSITION_STATUSES = ['POSITION_STATUS_OPEN', 'POSITION_STATUS_CLOSED', 'POSITION_STATUS_CREATED', 'POSITION_STATUS_ERROR'] as const;
export const PositionStatusSchema = protoEnum(
  { 1: 'POSITION_STATUS_OPEN', 2: 'POSITION_STATUS_CLOSED', 3: 'POSITION_STATUS_CREATED', 4: 'POSITION_STATUS_ERROR' },
  POSITION_STATUSES,
);

const EXECUTION_TYPES = [
  'ORDER_ACCEPTED',
  'ORDER_FILLED',
  'ORDER_REPLACED',
  'ORDER_CANCELLED',
  'ORDER_EXPIRED',
  'ORDER_REJECTED',
  'ORDER_CANCEL_REJECTED',
  'SWAP',
  'DEPOSIT_WITHDRAW',
  'ORDER_PARTIAL_FILL',
  'BONUS_DEPOSIT_WITHDRAW',
] as const;
export const ExecutionTypeSchema = protoEnum(
  {
    2: 'ORDER_ACCEPTED',
    3: 'ORDER_FILLED',
    4: 'ORDER_REPLACED',
    5: 'ORDER_CANCELLED',
    6: 'ORDER_EXPIRED',
    7: 'ORDER_REJECTED',
    8: 'ORDER_CANCEL_REJECTED',
    9: 'SWAP',
    10: 'DEPOSIT_WITHDRAW',
    11: 'ORDER_PARTIAL_FILL',
    12: 'BONUS_DEPOSIT_WITHDRAW',
  },
  EXECUTION_TYPES,
);
export type ExecutionType = z.output<typeof ExecutionTypeSchema>;

const DEAL_STATUSES = ['FILLED', 'PARTIALLY_FILLED', 'REJECTED', 'INTERNALLY_REJECTED', 'ERROR', 'MISSED'] as const;
export const DealStatusSchema = protoEnum(
  { 2: 'FILLED', 3: 'PARTIALLY_FILLED', 4: 'REJECTED', 5: 'INTERNALLY_REJECTED', 6: 'ERROR', 7: 'MISSED' },
  DEAL_STATUSES,
);

/** ProtoOATradeData: what an order or position trades; `label` and `comment` as the request gave them. */
export const TradeDataSchema = z.object({
  symbolId: Int64,
  volume: Int64,
  tradeSide: TradeSideSchema,
  openTimestamp: Int64.optional(),
  label: z.string().optional(),
  comment: z.string().optional(),
  closeTimestamp: Int64.optional(),
});

/** ProtoOAOrder. */
export const WireOrderSchema = z.object({
  orderId: Int64,
  tradeData: TradeDataSchema,
  orderType: OrderTypeSchema,
  orderStatus: OrderStatusSchema,
  expirationTimestamp: Int64.optional(),
  executionPrice: z.number().optional(),
  executedVolume: Int64.optional(),
  utcLastUpdateTimestamp: Int64.optional(),
  closingOrder: z.boolean().optional(),
  limitPrice: z.number().optional(),
  stopPrice: z.number().optional(),
  stopLoss: z.number().optional(),
  takeProfit: z.number().optional(),
  clientOrderId: z.string().optional(),
  timeInForce: TimeInForceSchema.optional(),
  positionId: Int64.optional(),
  isStopOut: z.boolean().optional(),
});
export type WireOrder = z.output<typeof WireOrderSchema>;

/** ProtoOAPosition: `price` is the VWAP of its executions; `swap`, `usedMargin` scaled by `moneyDigits`. */
export const WirePositionSchema = z.object({
  positionId: Int64,
  tradeData: TradeDataSchema,
  positionStatus: PositionStatusSchema,
  swap: Int64,
  price: z.number().optional(),
  stopLoss: z.number().optional(),
  takeProfit: z.number().optional(),
  utcLastUpdateTimestamp: Int64.optional(),
  commission: Int64.optional(),
  usedMargin: Int64.optional(),
  moneyDigits: Int.optional(),
});
export type WirePosition = z.output<typeof WirePositionSchema>;

/** ProtoOAClosePositionDetail: what a closing deal realized, scaled by `moneyDigits`. */
export const ClosePositionDetailSchema = z.object({
  entryPrice: z.number(),
  grossProfit: Int64,
  swap: Int64,
  commission: Int64,
  balance: Int64,
  closedVolume: Int64.optional(),
  balanceVersion: Int64.optional(),
  moneyDigits: Int.optional(),
});

/** ProtoOADeal: one execution; a closing deal carries `closePositionDetail`. */
export const WireDealSchema = z.object({
  dealId: Int64,
  orderId: Int64,
  positionId: Int64,
  volume: Int64,
  filledVolume: Int64,
  symbolId: Int64,
  createTimestamp: Int64,
  executionTimestamp: Int64,
  executionPrice: z.number().optional(),
  tradeSide: TradeSideSchema,
  dealStatus: DealStatusSchema,
  commission: Int64.optional(),
  closePositionDetail: ClosePositionDetailSchema.optional(),
  moneyDigits: Int.optional(),
});
export type WireDeal = z.output<typeof WireDealSchema>;

/** ProtoOAExecutionEvent: the answer to a trading request, and the venue's own executions (stops, swaps). */
export const ExecutionEventSchema = z.object({
  ctidTraderAccountId: Int64,
  executionType: ExecutionTypeSchema,
  position: WirePositionSchema.optional(),
  order: WireOrderSchema.optional(),
  deal: WireDealSchema.optional(),
  errorCode: z.string().optional(),
  isServerEvent: z.boolean().optional(),
});
export type ExecutionEvent = z.output<typeof ExecutionEventSchema>;

/** ProtoOAOrderErrorEvent: "sent when errors occur during the order requests". */
export const OrderErrorEventSchema = z.object({
  ctidTraderAccountId: Int64,
  errorCode: z.string(),
  orderId: Int64.optional(),
  positionId: Int64.optional(),
  description: z.string().optional(),
});
export type OrderErrorEvent = z.output<typeof OrderErrorEventSchema>;

/** ProtoOATrader: `balance` scaled by `moneyDigits`, `leverageInCents` (1:50 is 5000), the deposit asset's id. */
export const TraderSchema = z.object({
  ctidTraderAccountId: Int64,
  balance: Int64,
  balanceVersion: Int64.optional(),
  depositAssetId: Int64,
  leverageInCents: Int.optional(),
  traderLogin: Int64.optional(),
  brokerName: z.string().optional(),
  registrationTimestamp: Int64.optional(),
  moneyDigits: Int.optional(),
});
export type WireTrader = z.output<typeof TraderSchema>;
export const TraderResSchema = z.object({ trader: TraderSchema });

export const AssetListResSchema = z.object({
  asset: z
    .array(z.object({ assetId: Int64, name: z.string(), displayName: z.string().optional(), digits: Int.optional() }))
    .optional()
    .default([]),
});

export const ReconcileResSchema = z.object({
  position: z.array(WirePositionSchema).optional().default([]),
  order: z.array(WireOrderSchema).optional().default([]),
});

export const DealListResSchema = z.object({ deal: z.array(WireDealSchema).optional().default([]), hasMore: z.boolean().optional() });
export const OrderListResSchema = z.object({ order: z.array(WireOrderSchema).optional().default([]), hasMore: z.boolean().optional() });

export const ExpectedMarginResSchema = z.object({
  margin: z
    .array(z.object({ volume: Int64, buyMargin: Int64, sellMargin: Int64 }))
    .optional()
    .default([]),
  moneyDigits: Int.optional(),
});

/** ProtoOAGetPositionUnrealizedPnLRes: each position's P/L in the deposit currency, scaled by `moneyDigits`. */
export const UnrealizedPnLResSchema = z.object({
  positionUnrealizedPnL: z
    .array(z.object({ positionId: Int64, grossUnrealizedPnL: Int64, netUnrealizedPnL: Int64 }))
    .optional()
    .default([]),
  moneyDigits: Int,
});
