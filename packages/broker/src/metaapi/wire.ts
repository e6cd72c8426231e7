import { z } from 'zod';

/**
 * The parts of MetaApi client API bodies the adapter reads, after the MetaApi models
 * (metaapi.cloud/docs/client/models/…). Unknown fields are ignored, so MetaApi adding a field
 * never breaks the adapter; a missing required field is a protocol error.
 */

/** Ids are documented as strings but appear as numbers in examples (`"orderId": 47138322`). */
const Id = z.union([z.string(), z.number()]).transform(String);

/** MetatraderAccountInformation. */
export const AccountInformationSchema = z.object({
  platform: z.string().optional(),
  currency: z.string(),
  balance: z.number(),
  /** "account liquidation value" */
  equity: z.number(),
  /** "used margin" */
  margin: z.number(),
  freeMargin: z.number(),
  leverage: z.number().optional(),
  /** "margin level calculated as % of equity/margin" */
  marginLevel: z.number().optional(),
  /** "flag indicating that trading is allowed" */
  tradeAllowed: z.boolean().optional(),
  /** "account credit in the deposit currency" (a broker's bonus: in the equity, not the trader's money) */
  credit: z.number().optional(),
  /** "account name" */
  name: z.string().optional(),
  /** "account type": ACCOUNT_TRADE_MODE_DEMO, ACCOUNT_TRADE_MODE_CONTEST or ACCOUNT_TRADE_MODE_REAL. */
  type: z.string().optional(),
});
export type WireAccountInformation = z.output<typeof AccountInformationSchema>;

/** MetatraderSession: `from`/`to` times of day in the broker's time zone ("hh.mm.ss.SSS"). */
export const SessionSchema = z.object({ from: z.string(), to: z.string() });
export type WireSession = z.output<typeof SessionSchema>;

/** MetatraderSymbolSpecification. */
export const SymbolSpecificationSchema = z.object({
  symbol: z.string(),
  description: z.string().default(''),
  digits: z.number().int().nonnegative(),
  point: z.number().positive().optional(),
  contractSize: z.number().positive(),
  minVolume: z.number().positive(),
  maxVolume: z.number().positive(),
  volumeStep: z.number().positive(),
  /** "Can contain ORDER_FILLING_FOK, ORDER_FILLING_IOC or both." */
  fillingModes: z.array(z.string()).default([]),
  /** SYMBOL_TRADE_EXECUTION_REQUEST | _INSTANT | _MARKET | _EXCHANGE */
  executionMode: z.string().optional(),
  /** SYMBOL_TRADE_MODE_DISABLED | _LONGONLY | _SHORTONLY | _CLOSEONLY | _FULL (optional in the model). */
  tradeMode: z.string().optional(),
  /** "minimal indention in points from the current close price to place Stop orders" */
  stopsLevel: z.number().nonnegative().default(0),
  freezeLevel: z.number().nonnegative().default(0),
  /** SYMBOL_EXPIRATION_GTC | _DAY | _SPECIFIED | _SPECIFIED_DAY */
  allowedExpirationModes: z.array(z.string()).default([]),
  /** SYMBOL_ORDER_MARKET | _LIMIT | _STOP | _STOP_LIMIT | _SL | _TP | _CLOSEBY */
  allowedOrderTypes: z.array(z.string()).optional(),
  /** "trade sessions, indexed by day of week" (SUNDAY … SATURDAY), in broker time. */
  tradeSessions: z.record(z.string(), z.array(SessionSchema)).optional(),
  baseCurrency: z.string().optional(),
  profitCurrency: z.string().optional(),
  marginCurrency: z.string().optional(),
  /** SYMBOL_CALC_MODE_FOREX, SYMBOL_CALC_MODE_CFD, … */
  priceCalculationMode: z.string().optional(),
  /** "pip size" */
  pipSize: z.number().positive().optional(),
});
export type WireSymbolSpecification = z.output<typeof SymbolSpecificationSchema>;

/**
 * MetatraderAccount (provisioning API, GET /users/current/accounts/:accountId): `state` "CREATED,
 * DEPLOYING, DEPLOYED, DEPLOY_FAILED, UNDEPLOYING, UNDEPLOYED, …", `connectionStatus` "CONNECTED,
 * DISCONNECTED, DISCONNECTED_FROM_BROKER" (the SDK's waitConnected polls it for CONNECTED).
 */
export const ProvisionedAccountSchema = z.object({
  state: z.string(),
  connectionStatus: z.string(),
});

/** MetatraderSymbolPrice: `time` ISO, `brokerTime` "YYYY-MM-DD HH:mm:ss.SSS" in broker time. */
export const SymbolPriceSchema = z.object({
  symbol: z.string(),
  bid: z.number(),
  ask: z.number(),
  time: z.string(),
  brokerTime: z.string().optional(),
});
export type WireSymbolPrice = z.output<typeof SymbolPriceSchema>;

/** Margin: "If margin can not be calculated, then this field is not defined". */
export const MarginSchema = z.object({ margin: z.number().optional() });

/** MetatraderTradeResponse. */
export const TradeResponseSchema = z.object({
  numericCode: z.number().int(),
  stringCode: z.string(),
  message: z.string().default(''),
  orderId: Id.optional(),
  positionId: Id.optional(),
});
export type WireTradeResponse = z.output<typeof TradeResponseSchema>;

/** MetatraderOrder (open orders and history orders). */
export const OrderSchema = z.object({
  id: Id,
  type: z.string(),
  state: z.string(),
  magic: z.number().default(0),
  time: z.string(),
  doneTime: z.string().optional(),
  symbol: z.string(),
  openPrice: z.number().optional(),
  stopLoss: z.number().optional(),
  takeProfit: z.number().optional(),
  /** "order requested quantity" */
  volume: z.number(),
  /** "order remaining quantity, i.e. requested quantity - filled quantity" */
  currentVolume: z.number().optional(),
  positionId: Id.optional(),
  comment: z.string().optional(),
  /** "ORDER_TIME_GTC, ORDER_TIME_DAY, ORDER_TIME_SPECIFIED, ORDER_TIME_SPECIFIED_DAY" */
  expirationType: z.string().optional(),
  /** "optional order expiration time" */
  expirationTime: z.string().optional(),
});
export type WireOrder = z.output<typeof OrderSchema>;

/**
 * MetatraderPosition (GET …/positions: "Response schema: Array<MetatraderPosition>"). `profit`
 * is "cumulative … including … realized profit resulting from partially closed position part";
 * `unrealizedProfit` is the "profit of the part of the position which is not yet closed,
 * excluding swap and commissions", `unrealizedSwap` the "swap resulting from currently open
 * position part" (SDK typings of MetatraderPosition).
 */
export const PositionSchema = z.object({
  id: Id,
  /** "POSITION_TYPE_BUY, POSITION_TYPE_SELL" */
  type: z.string(),
  symbol: z.string(),
  magic: z.number().default(0),
  time: z.string(),
  openPrice: z.number(),
  stopLoss: z.number().optional(),
  takeProfit: z.number().optional(),
  volume: z.number(),
  profit: z.number().default(0),
  unrealizedProfit: z.number().optional(),
  swap: z.number().default(0),
  unrealizedSwap: z.number().optional(),
  comment: z.string().optional(),
});
export type WirePosition = z.output<typeof PositionSchema>;
export const PositionsSchema = z.array(PositionSchema);

/**
 * MetatraderDeal (metaapi.cloud/docs/client/models/metatraderDeal): "type … DEAL_TYPE_BUY,
 * DEAL_TYPE_SELL, DEAL_TYPE_BALANCE, …", "entryType … DEAL_ENTRY_IN, DEAL_ENTRY_OUT,
 * DEAL_ENTRY_INOUT, DEAL_ENTRY_OUT_BY", "commission | number | deal commission", "swap | number |
 * deal swap", "profit | number | Yes | deal profit", "positionId | id of position the deal
 * relates to", "orderId | id of order the deal relates to"; and the SDK's typing of it
 * (metaapi.cloud-sdk, MetatraderDeal): "reason?: optional deal execution reason. One of
 * DEAL_REASON_CLIENT, DEAL_REASON_MOBILE, DEAL_REASON_WEB, DEAL_REASON_EXPERT, DEAL_REASON_SL,
 * DEAL_REASON_TP, DEAL_REASON_SO, DEAL_REASON_ROLLOVER, DEAL_REASON_VMARGIN, DEAL_REASON_SPLIT,
 * DEAL_REASON_UNKNOWN".
 */
export const DealSchema = z.object({
  id: Id,
  type: z.string(),
  entryType: z.string().optional(),
  symbol: z.string().optional(),
  magic: z.number().optional(),
  time: z.string(),
  volume: z.number().optional(),
  price: z.number().optional(),
  commission: z.number().default(0),
  swap: z.number().default(0),
  profit: z.number(),
  positionId: Id.optional(),
  orderId: Id.optional(),
  comment: z.string().optional(),
  reason: z.string().optional(),
});
export type WireDeal = z.output<typeof DealSchema>;

/**
 * History answers: a plain array, or the `{ historyOrders | deals, synchronizing }` wrapper the
 * websocket API documents ("synchronizing: flag indicating that history order initial
 * synchronization is still in progress and thus search results may be incomplete").
 */
export const HistoryOrdersSchema = z.union([
  z.array(OrderSchema).transform((orders) => ({ orders, synchronizing: false })),
  z
    .object({ historyOrders: z.array(OrderSchema), synchronizing: z.boolean().default(false) })
    .transform((b) => ({ orders: b.historyOrders, synchronizing: b.synchronizing })),
]);
export const DealsSchema = z.union([
  z.array(DealSchema).transform((deals) => ({ deals, synchronizing: false })),
  z.object({ deals: z.array(DealSchema), synchronizing: z.boolean().default(false) }),
]);
export const OrdersSchema = z.array(OrderSchema);

/** MetatraderCandle. */
export const CandleSchema = z.object({
  time: z.string(),
  open: z.number(),
  high: z.number(),
  low: z.number(),
  close: z.number(),
  /** "tick volume, i.e. number of ticks inside the candle" */
  tickVolume: z.number(),
  /** "spread in points" */
  spread: z.number().optional(),
});
export const CandlesSchema = z.array(CandleSchema);
export type WireCandle = z.output<typeof CandleSchema>;

/** GET …/symbols: "Response schema: Array<string>" (`["EURUSD", "AUDNZD"]`). */
export const SymbolsSchema = z.array(z.string());

/**
 * Error (every non-2xx answer): `{ id, error, message, details?, metadata? }`; a 429
 * TooManyRequestsError carries `metadata.recommendedRetryTime` and a Retry-After header.
 */
export const ErrorBodySchema = z.object({
  id: z.number().optional(),
  error: z.string().optional(),
  message: z.string().optional(),
  details: z.unknown().optional(),
  metadata: z.object({ recommendedRetryTime: z.string().optional() }).optional(),
});
export type WireErrorBody = z.output<typeof ErrorBodySchema>;
