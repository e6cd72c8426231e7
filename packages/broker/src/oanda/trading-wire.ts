import { z } from 'zod';
import { TransactionIdSchema, WireAccountSummarySchema, WireInstrumentSchema } from './wire.js';

/**
 * The parts of the v20 trading, pricing and instrument bodies the terminal and the feed read,
 * after the v20 definitions (github.com/oanda/v20-python: `order.py`, `trade.py`,
 * `transaction.py`, `pricing.py`, `instrument.py`). Unknown fields are ignored; a missing
 * required field is a protocol error.
 */

const Decimal = z.string().regex(/^-?\d+(\.\d+)?$/, { message: 'expected a decimal string' });
const DateTime = z.string().min(1);

/** ClientExtensions: "id", "tag", "comment" (each at most 128 characters). */
export const ClientExtensionsSchema = z.object({ id: z.string().optional(), tag: z.string().optional(), comment: z.string().optional() });

/**
 * Transaction: the fields of every type the terminal reads (the create, fill, cancel, reject,
 * dependent order and client-extension transactions). `tradeOpened`, `tradesClosed` and
 * `tradeReduced` are an ORDER_FILL's effects (TradeOpen, [TradeReduce], TradeReduce).
 */
const TradeEffectSchema = z.object({
  tradeID: z.string().min(1),
  units: Decimal,
  price: Decimal.optional(),
  realizedPL: Decimal.optional(),
  financing: Decimal.optional(),
  clientExtensions: ClientExtensionsSchema.optional(),
});

export const TransactionSchema = z.object({
  id: TransactionIdSchema,
  time: DateTime,
  type: z.string().min(1),
  orderID: z.string().optional(),
  clientOrderID: z.string().optional(),
  tradeID: z.string().optional(),
  instrument: z.string().optional(),
  units: Decimal.optional(),
  price: Decimal.optional(),
  timeInForce: z.string().optional(),
  gtdTime: DateTime.optional(),
  reason: z.string().optional(),
  rejectReason: z.string().optional(),
  pl: Decimal.optional(),
  financing: Decimal.optional(),
  commission: Decimal.optional(),
  clientExtensions: ClientExtensionsSchema.optional(),
  tradeClientExtensions: ClientExtensionsSchema.optional(),
  tradeClientExtensionsModify: ClientExtensionsSchema.optional(),
  tradeClose: z.object({ tradeID: z.string(), units: z.string() }).optional(),
  tradeOpened: TradeEffectSchema.optional(),
  tradesClosed: z.array(TradeEffectSchema).optional(),
  tradeReduced: TradeEffectSchema.optional(),
});

/** `POST /orders` 201 and 400/404, `PUT /trades/{specifier}/close` 200 and 400/404: the transactions of the request. */
export const OrderAnswerSchema = z.object({
  orderCreateTransaction: TransactionSchema.optional(),
  orderFillTransaction: TransactionSchema.optional(),
  orderCancelTransaction: TransactionSchema.optional(),
  orderRejectTransaction: TransactionSchema.optional(),
  errorCode: z.string().optional(),
  errorMessage: z.string().optional(),
  lastTransactionID: TransactionIdSchema.optional(),
});

/** `PUT /trades/{specifier}/orders` 200 and 400: the new, cancelled, filled and refused dependent orders. */
export const DependentOrdersAnswerSchema = z.object({
  stopLossOrderTransaction: TransactionSchema.optional(),
  takeProfitOrderTransaction: TransactionSchema.optional(),
  stopLossOrderFillTransaction: TransactionSchema.optional(),
  takeProfitOrderFillTransaction: TransactionSchema.optional(),
  stopLossOrderRejectTransaction: TransactionSchema.optional(),
  takeProfitOrderRejectTransaction: TransactionSchema.optional(),
  errorCode: z.string().optional(),
  errorMessage: z.string().optional(),
});

/** `PUT /orders/{specifier}/cancel` 200 `{ orderCancelTransaction }`, 404 `{ orderCancelRejectTransaction, errorCode }`. */
export const CancelAnswerSchema = z.object({
  orderCancelTransaction: TransactionSchema.optional(),
  orderCancelRejectTransaction: TransactionSchema.optional(),
  errorCode: z.string().optional(),
  errorMessage: z.string().optional(),
});

/** Order: the base fields and those of the entry and dependent orders. */
export const TradingOrderSchema = z.object({
  id: z.string().min(1),
  type: z.string().min(1),
  createTime: DateTime,
  state: z.string().min(1),
  instrument: z.string().optional(),
  units: Decimal.optional(),
  price: Decimal.optional(),
  timeInForce: z.string().optional(),
  gtdTime: DateTime.optional(),
  tradeID: z.string().optional(),
  clientExtensions: ClientExtensionsSchema.optional(),
  stopLossOnFill: z.object({ price: Decimal.optional() }).optional(),
  takeProfitOnFill: z.object({ price: Decimal.optional() }).optional(),
});

/** Trade: with its full stop loss and take profit orders when they exist. */
export const TradeSchema = z.object({
  id: z.string().min(1),
  instrument: z.string().min(1),
  price: Decimal,
  openTime: DateTime,
  state: z.string().min(1),
  initialUnits: Decimal,
  currentUnits: Decimal,
  unrealizedPL: Decimal.optional(),
  financing: Decimal.optional(),
  clientExtensions: ClientExtensionsSchema.optional(),
  stopLossOrder: TradingOrderSchema.optional(),
  takeProfitOrder: TradingOrderSchema.optional(),
});

/** `GET /openTrades` `{ trades, lastTransactionID }`. */
export const TradesResponseSchema = z.object({ trades: z.array(TradeSchema) });
/** `GET /trades/{specifier}` `{ trade, lastTransactionID }`. */
export const TradeResponseSchema = z.object({ trade: TradeSchema });
/** `GET /pendingOrders` `{ orders, lastTransactionID }`. */
export const OrdersResponseSchema = z.object({ orders: z.array(TradingOrderSchema) });
/** `GET /orders/{specifier}` `{ order, lastTransactionID }`. */
export const OrderResponseSchema = z.object({ order: TradingOrderSchema });

/** `GET /transactions?from&to&pageSize` `{ from, to, pageSize, count, pages, lastTransactionID }`. */
export const TransactionPagesSchema = z.object({ count: z.number().int().nonnegative(), pages: z.array(z.string()) });
/** `GET /transactions/idrange?from&to` `{ transactions, lastTransactionID }`. */
export const TransactionsResponseSchema = z.object({ transactions: z.array(TransactionSchema) });

/** ClientPrice, on GET /pricing and on the pricing stream (type PRICE). */
export const ClientPriceSchema = z.object({
  instrument: z.string().min(1),
  time: DateTime,
  tradeable: z.boolean().optional(),
  bids: z.array(z.object({ price: Decimal, liquidity: z.number() })),
  asks: z.array(z.object({ price: Decimal, liquidity: z.number() })),
  closeoutBid: Decimal.optional(),
  closeoutAsk: Decimal.optional(),
  /** Deprecated but sent: "the factors used to convert quantities of this price's Instrument's quote currency into a quantity of the Account's home currency". */
  quoteHomeConversionFactors: z.object({ positiveUnits: Decimal, negativeUnits: Decimal }).optional(),
});

/** `GET /pricing?instruments=` `{ prices, time }`. */
export const PricingResponseSchema = z.object({ prices: z.array(ClientPriceSchema) });

/** A pricing stream line: a PRICE (ClientPrice) or a HEARTBEAT (PricingHeartbeat: type, time). */
export const StreamLineSchema = z.union([ClientPriceSchema.extend({ type: z.literal('PRICE') }), z.object({ type: z.literal('HEARTBEAT'), time: DateTime })]);

const CandlestickDataSchema = z.object({ o: Decimal, h: Decimal, l: Decimal, c: Decimal });

/** Candlestick: time (the candle's start), the components asked for, volume, complete. */
export const CandlestickSchema = z.object({
  time: DateTime,
  bid: CandlestickDataSchema.optional(),
  ask: CandlestickDataSchema.optional(),
  mid: CandlestickDataSchema.optional(),
  volume: z.number().int().nonnegative(),
  complete: z.boolean(),
});

/** `GET /v3/instruments/{instrument}/candles` `{ instrument, granularity, candles }`. */
export const CandlesResponseSchema = z.object({ candles: z.array(CandlestickSchema) });

export const InstrumentListSchema = z.object({ instruments: z.array(WireInstrumentSchema) });
export const SummaryOnlySchema = z.object({ account: WireAccountSummarySchema });

export type Transaction = z.infer<typeof TransactionSchema>;
export type OrderAnswer = z.infer<typeof OrderAnswerSchema>;
export type TradingOrder = z.infer<typeof TradingOrderSchema>;
export type WireTradeFull = z.infer<typeof TradeSchema>;
export type ClientPrice = z.infer<typeof ClientPriceSchema>;
export type Candlestick = z.infer<typeof CandlestickSchema>;
export type ClientExtensions = z.infer<typeof ClientExtensionsSchema>;
