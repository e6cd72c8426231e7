import { z } from 'zod';
import { BrokerSymbolSchema, IsoTimestampSchema, PositiveDecimalStringSchema, Rfc3339Schema, TimeframeSchema, UuidSchema } from './primitives.js';

// The execution service's contract (spec 001 A): every request and answer of its routes, used by
// the service's routes and by ExecutionClient alike.

export const ExecutionTypeSchema = z.enum(['market', 'limit', 'stop']);
export const DirectionSchema = z.enum(['buy', 'sell']);

/** A signal-provider slug: lowercase words joined by `-` or `_`. */
export const SourceSlugSchema = z
  .string()
  .min(1)
  .max(32)
  .regex(/^[a-z0-9]+(?:[-_][a-z0-9]+)*$/, { message: 'expected a lowercase slug like "tradingview"' });

const SignalFieldsSchema = z.strictObject({
  signal_id: UuidSchema.meta({ description: 'Idempotency key; never reuse with changed fields' }),
  occurred_at: Rfc3339Schema.meta({ description: 'When the signal fired; used for the freshness check' }),
  execution_type: ExecutionTypeSchema,
  symbol: BrokerSymbolSchema.meta({ description: 'Exact, case-sensitive broker symbol; must be in ALLOWED_SYMBOLS' }),
  direction: DirectionSchema,
  volume: PositiveDecimalStringSchema.meta({ description: 'Lots, greater than zero, checked against the volume step and MAXIMUM_VOLUME' }),
  source: SourceSlugSchema.meta({ description: 'Signal provider; must be in ALLOWED_SIGNAL_SOURCES; written to the order comment', example: 'tradingview' }),
  entry_price: PositiveDecimalStringSchema.optional().meta({ description: 'Required for limit and stop; prohibited for market' }),
  stop_loss: PositiveDecimalStringSchema.optional().meta({ description: 'Absolute stop-loss price; not with stop_loss_distance' }),
  take_profit: PositiveDecimalStringSchema.optional().meta({ description: 'Absolute take-profit price; not with take_profit_distance' }),
  stop_loss_distance: PositiveDecimalStringSchema.optional().meta({ description: 'Stop-loss distance in price units, unsigned; not with stop_loss' }),
  take_profit_distance: PositiveDecimalStringSchema.optional().meta({ description: 'Take-profit distance in price units, unsigned; not with take_profit' }),
  expires_at: Rfc3339Schema.optional().meta({ description: 'Expiry of a pending order' }),
  deviation_points: z.number().int().min(0).optional().meta({ description: 'Slippage cap in points; at most MAX_DEVIATION_POINTS' }),
  note: z.string().max(500).optional().meta({ description: 'Free-text tag' }),
  ignore_signal_age: z
    .boolean()
    .default(true)
    .meta({ description: 'When true the SIGNAL_MAX_AGE_SECONDS check is skipped; the future tolerance and expires_at still apply' }),
});

/**
 * The cross-field rules below as JSON Schema, for the OpenAPI document (a refinement does not
 * reach it): entry_price required for limit and stop, prohibited for market; each leg either a
 * price or a distance. The refinement answers the requests; this only states the same rules.
 */
const SIGNAL_RULES_JSON_SCHEMA = {
  if: { properties: { execution_type: { const: 'market' } }, required: ['execution_type'] },
  then: { not: { required: ['entry_price'] } },
  else: { required: ['entry_price'] },
  not: { anyOf: [{ required: ['stop_loss', 'stop_loss_distance'] }, { required: ['take_profit', 'take_profit_distance'] }] },
};

/**
 * POST /v1/signals, the signal submission of spec 001 (A): strict (unknown fields rejected),
 * decimals as strings, timestamps with a zone, and the cross-field rules of the spec enforced.
 */
export const SignalSubmissionSchema = SignalFieldsSchema.superRefine((s, ctx) => {
  if (s.execution_type === 'market' && s.entry_price !== undefined) {
    ctx.addIssue({ code: 'custom', path: ['entry_price'], message: 'is prohibited for market orders' });
  }
  if (s.execution_type !== 'market' && s.entry_price === undefined) {
    ctx.addIssue({ code: 'custom', path: ['entry_price'], message: `is required for ${s.execution_type} orders` });
  }
  if (s.stop_loss !== undefined && s.stop_loss_distance !== undefined) {
    ctx.addIssue({ code: 'custom', path: ['stop_loss_distance'], message: 'give stop_loss or stop_loss_distance, not both' });
  }
  if (s.take_profit !== undefined && s.take_profit_distance !== undefined) {
    ctx.addIssue({ code: 'custom', path: ['take_profit_distance'], message: 'give take_profit or take_profit_distance, not both' });
  }
}).meta({
  id: 'SignalSubmission',
  ...SIGNAL_RULES_JSON_SCHEMA,
  // A whole request: the fields' own examples together would break the rules above (entry_price on a market order, both legs' forms).
  example: {
    signal_id: '7b0c6a9e-3f0e-4a8e-9d44-2f1b2c3d4e5f',
    occurred_at: '2026-01-05T12:00:00Z',
    execution_type: 'market',
    symbol: 'EURUSD',
    direction: 'buy',
    volume: '0.10',
    source: 'tradingview',
    stop_loss_distance: '0.0020',
    take_profit_distance: '0.0040',
  },
});

export type SignalSubmission = z.output<typeof SignalSubmissionSchema>;
export type SignalSubmissionInput = z.input<typeof SignalSubmissionSchema>;

/** Spec 001 (A) "States", plus `processing` between the claim and the outcome. */
export const SIGNAL_STATES = ['processing', 'filled', 'partially_filled', 'placed', 'rejected', 'unknown'] as const;
export const SignalStateSchema = z.enum(SIGNAL_STATES).meta({
  description: 'filled, partially_filled and placed are successes; rejected and unknown are final; processing is transient',
});
export type SignalState = z.infer<typeof SignalStateSchema>;

/** The three states a successful POST /v1/signals answers with. */
export type SuccessState = Extract<SignalState, 'filled' | 'partially_filled' | 'placed'>;

export const BrokerTicketsSchema = z
  .object({
    order: z.string().nullable().meta({ description: 'Order ticket' }),
    deal: z.string().nullable().meta({ description: 'Deal ticket, when a deal happened' }),
    position: z.string().nullable().meta({ description: 'Position ticket opened or changed by the deal' }),
  })
  .meta({ id: 'BrokerTickets' });
export type BrokerTickets = z.infer<typeof BrokerTicketsSchema>;

export const TradeOutcomeSchema = z
  .object({
    retcode: z.number().int().meta({ description: 'MT5 trade server return code' }),
    retcode_name: z.string().meta({ example: 'TRADE_RETCODE_DONE' }),
    requested_volume: z.string().meta({ description: 'Lots asked for' }),
    filled_volume: z.string().meta({ description: 'Lots executed; "0" for a placed pending order' }),
    price: z.string().nullable().meta({ description: 'Execution price, or the price of a placed order' }),
    broker_comment: z.string().meta({ description: "The terminal's comment on the result" }),
  })
  .meta({ id: 'TradeOutcome' });
export type TradeOutcome = z.infer<typeof TradeOutcomeSchema>;

/** Body of a successful POST /v1/signals (200). */
export const SignalResultSchema = z
  .object({
    signal_id: UuidSchema,
    state: z.enum(['filled', 'partially_filled', 'placed']),
    tickets: BrokerTicketsSchema,
    result: TradeOutcomeSchema,
  })
  .meta({ id: 'SignalResult' });
export type SignalResult = z.infer<typeof SignalResultSchema>;

export const SignalFailureSchema = z
  .object({
    code: z.string(),
    message: z.string(),
    details: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  })
  .meta({ id: 'SignalFailure' });
export type SignalFailure = z.infer<typeof SignalFailureSchema>;

/** What the terminal showed for an unknown signal when it was looked up by its order comment. */
export const ReconciliationSchema = z
  .object({
    checked_at: IsoTimestampSchema,
    found: z.array(
      z.object({
        kind: z.enum(['order', 'deal']),
        ticket: z.string(),
        symbol: z.string(),
        type: z.string(),
        volume: z.string(),
        price: z.string(),
        state: z.string(),
        time: IsoTimestampSchema,
      }),
    ),
    error: z.string().optional(),
  })
  .meta({ id: 'Reconciliation' });
export type Reconciliation = z.infer<typeof ReconciliationSchema>;

export const SignalIdParamsSchema = z.object({ signal_id: UuidSchema.meta({ description: 'The signal_id the signal was submitted with' }) });

/** GET /v1/signals/{signal_id}: the durable record of a signal. */
export const SignalRecordSchema = z
  .object({
    signal_id: UuidSchema,
    state: SignalStateSchema,
    request: z.record(z.string(), z.unknown()).meta({ description: 'The submission exactly as received (before defaults)' }),
    order_comment: z.string().meta({ description: 'Comment sent with the order: source and a short tag of the signal_id' }),
    tickets: BrokerTicketsSchema,
    result: TradeOutcomeSchema.nullable().meta({ description: "The terminal's answer to order_check or order_send, when there was one" }),
    error: SignalFailureSchema.nullable().meta({ description: 'Why the signal is rejected or unknown' }),
    http_status: z.number().int().nullable().meta({ description: 'Status POST answered (and replays); null while processing' }),
    reconciliation: ReconciliationSchema.nullable().meta({ description: 'Terminal lookup of an unknown signal after a restart' }),
    received_at: IsoTimestampSchema,
    completed_at: IsoTimestampSchema.nullable(),
    updated_at: IsoTimestampSchema,
  })
  .meta({ id: 'SignalRecord' });
export type SignalRecord = z.infer<typeof SignalRecordSchema>;

/**
 * GET /v1/signals query: filters (combined with AND), newest first, cursor-paged. Strict: an
 * unknown or repeated parameter is refused. A cursor is 30 base64url characters; any other text
 * is refused as one the service did not issue (422, `querystring.cursor`).
 */
export const SignalListQuerySchema = z.strictObject({
  state: SignalStateSchema.optional().meta({ description: 'Only signals in this state' }),
  symbol: BrokerSymbolSchema.optional().meta({ description: 'Only signals of this exact broker symbol' }),
  source: SourceSlugSchema.optional().meta({ description: 'Only signals from this source' }),
  from: Rfc3339Schema.optional().meta({ description: 'Only signals received at or after this instant (any zone, to the nanosecond)' }),
  to: Rfc3339Schema.optional().meta({ description: 'Only signals received before this instant (exclusive)' }),
  limit: z.coerce.number().int().min(1).max(500).default(50).meta({ description: 'Records per page, 1 to 500; default 50' }),
  cursor: z
    .string()
    .regex(/^[A-Za-z0-9_-]{30}$/, { message: 'not a cursor this service issued' })
    .optional()
    .meta({ description: 'next_cursor of the previous page, as given (opaque)' }),
});
export type SignalListQuery = z.output<typeof SignalListQuerySchema>;

/** GET /v1/signals: stored signal records, newest received first (by received_at, then signal_id). */
export const SignalListSchema = z
  .object({
    signals: z.array(SignalRecordSchema),
    next_cursor: z.string().nullable().meta({ description: 'Pass as cursor, with the same filters, for the next (older) page; null on the last page' }),
  })
  .meta({ id: 'SignalList' });
export type SignalList = z.infer<typeof SignalListSchema>;

/** GET /v1/symbols/{symbol}: one symbol of ALLOWED_SYMBOLS. */
export const SymbolParamsSchema = z.object({
  symbol: BrokerSymbolSchema.meta({ description: 'Exact symbol from ALLOWED_SYMBOLS; URL-encode spaces' }),
});

/**
 * What the venue says of a symbol now (MT5 `symbol_info`): the terms an order's size and stops
 * are checked against, and what sizing by risk reads (contract size, volume step, currencies).
 */
export const SymbolTermsSchema = z
  .object({
    symbol: z.string(),
    description: z.string(),
    digits: z.number().int().meta({ description: 'Decimal places of its prices' }),
    contract_size: z.number().meta({ description: 'Units of the base currency in one lot (SYMBOL_TRADE_CONTRACT_SIZE)' }),
    volume_min: z.string().meta({ description: 'Smallest order, lots' }),
    volume_max: z.string().meta({ description: 'Largest order, lots' }),
    volume_step: z.string().meta({ description: 'Lots an order is a whole multiple of' }),
    order_volume_max: z.string().meta({
      description:
        'Largest order this service sends, lots: the smaller of volume_max and the service’s MAXIMUM_VOLUME, on the volume step. A signal above it is refused (invalid_volume); sizing by risk caps its lots here',
    }),
    stops_level: z.number().int().meta({ description: 'Least distance of stops from the price, points' }),
    freeze_level: z.number().int().meta({ description: 'Distance from the price inside which orders and positions cannot be modified, points' }),
    trade_mode: z.enum(['full', 'long_only', 'short_only', 'close_only', 'disabled']),
    filling_modes: z.array(z.enum(['FOK', 'IOC', 'RETURN'])),
    expiration_modes: z.array(z.enum(['GTC', 'DAY', 'SPECIFIED', 'SPECIFIED_DAY'])),
    currency_base: z.string(),
    currency_profit: z.string().meta({ description: 'The currency a position’s profit is in (the quote currency of an FX pair)' }),
    currency_margin: z.string(),
  })
  .meta({ id: 'SymbolTerms' });
export type SymbolTerms = z.infer<typeof SymbolTermsSchema>;

/** GET /v1/market-data/candles query; `count` above MAX_CANDLES_LOOKBACK is clamped by the service, not refused. */
export const TerminalCandlesQuerySchema = z.object({
  quote: BrokerSymbolSchema.meta({ description: 'Exact symbol from ALLOWED_SYMBOLS; URL-encode spaces' }),
  timeframe: TimeframeSchema.default('M1'),
  count: z.coerce
    .number({ message: 'expected a positive integer' })
    .int({ message: 'expected a positive integer' })
    .min(1)
    .default(500)
    .meta({ description: 'Most recent bars; clamped to MAX_CANDLES_LOOKBACK' }),
});
export type TerminalCandlesQuery = z.output<typeof TerminalCandlesQuerySchema>;

/**
 * A candle of spec 001 (A), as the execution service answers it: `time` is the bar's open in
 * epoch seconds, `volume` the tick volume.
 */
export const EpochCandleSchema = z
  .object({
    time: z.number().int().meta({ description: 'Bar open time, epoch seconds (UTC)' }),
    open: z.number(),
    high: z.number(),
    low: z.number(),
    close: z.number(),
    volume: z.number().int().meta({ description: 'Tick volume' }),
    spread: z.number().int().nullable().meta({ description: 'Spread in points; null when the venue gives none' }),
  })
  .meta({ id: 'EpochCandle' });
export type EpochCandle = z.infer<typeof EpochCandleSchema>;

/** GET /v1/market-data/candles: the terminal's bars, as it gives them. */
export const TerminalCandlesSchema = z
  .object({
    quote: z.string(),
    timeframe: TimeframeSchema,
    candles: z.array(EpochCandleSchema).meta({ description: 'Oldest first; the last bar may still be forming' }),
  })
  .meta({ id: 'TerminalCandles' });
export type TerminalCandles = z.infer<typeof TerminalCandlesSchema>;

// --- What the desk holds, and the actions on it (issue 23) ---------------------------------------

const PriceSchema = z.string().meta({ description: 'Price, exact decimal string in the symbol digits' });
const StopSchema = z.string().nullable().meta({ description: 'Price, exact decimal string; null when not set' });
const MoneySchema = z.string().meta({ description: 'Account currency, decimal string with two decimals' });
const TicketSchema = z
  .string()
  .regex(/^[0-9]{1,20}$/, { message: 'expected a ticket number' })
  .meta({ description: 'A terminal ticket (digits)' });

/** GET /v1/positions and /v1/orders query: both filters optional, combined with AND. */
export const BookQuerySchema = z.strictObject({
  symbol: BrokerSymbolSchema.optional().meta({ description: 'Only this exact broker symbol' }),
  source: SourceSlugSchema.optional().meta({ description: 'Only what the order comment attributes to this source (slug as in the signal)' }),
});
export type BookQuery = z.output<typeof BookQuerySchema>;

/** An open position on the terminal (`Position` is the account service's). */
export const OpenPositionSchema = z
  .object({
    ticket: z.string().meta({ description: 'Position ticket' }),
    symbol: z.string(),
    side: DirectionSchema,
    volume: z.string().meta({ description: 'Open volume, lots' }),
    open_price: PriceSchema,
    sl: StopSchema,
    tp: StopSchema,
    profit: MoneySchema.meta({ description: 'Floating profit of the open volume, account currency' }),
    swap: MoneySchema.meta({ description: 'Swap charged so far, account currency' }),
    magic: z.number().int(),
    comment: z.string().meta({ description: 'The opening order comment' }),
    source: z.string().nullable().meta({ description: 'The source slug the comment carries, null when the comment is not the service’s' }),
    opened_at: IsoTimestampSchema,
  })
  .meta({ id: 'OpenPosition' });
export type OpenPosition = z.infer<typeof OpenPositionSchema>;

export const RestingOrderSchema = z
  .object({
    ticket: z.string().meta({ description: 'Order ticket' }),
    symbol: z.string(),
    type: z.enum(['buy_limit', 'sell_limit', 'buy_stop', 'sell_stop']),
    volume: z.string().meta({ description: 'Volume still to fill, lots' }),
    price: PriceSchema,
    sl: StopSchema,
    tp: StopSchema,
    magic: z.number().int(),
    comment: z.string(),
    source: z.string().nullable(),
    placed_at: IsoTimestampSchema,
    expiration: z.string().nullable().meta({ description: 'ISO 8601 UTC; null = good till cancelled' }),
  })
  .meta({ id: 'RestingOrder' });
export type RestingOrder = z.infer<typeof RestingOrderSchema>;

export const OpenPositionListSchema = z.object({ positions: z.array(OpenPositionSchema) }).meta({ id: 'OpenPositionList' });
export type OpenPositionList = z.infer<typeof OpenPositionListSchema>;
export const RestingOrderListSchema = z.object({ orders: z.array(RestingOrderSchema) }).meta({ id: 'RestingOrderList' });
export type RestingOrderList = z.infer<typeof RestingOrderListSchema>;

/** GET /v1/account: the terminal's account money now (MT5 account_info). */
export const TerminalAccountSchema = z
  .object({
    currency: z.string().meta({ description: 'The account currency, e.g. USD' }),
    balance: MoneySchema.meta({ description: 'Deposits and realized profit, account currency' }),
    equity: MoneySchema.meta({ description: 'Balance plus the open positions’ floating profit and swap' }),
    margin: MoneySchema.meta({ description: 'Margin the open positions hold' }),
    free_margin: MoneySchema.meta({ description: 'Equity less margin' }),
    leverage: z.number().int().positive().nullable().meta({ description: 'Account leverage 1:N; null when the venue does not say' }),
    as_of: IsoTimestampSchema.meta({ description: 'When the terminal was read' }),
  })
  .meta({ id: 'TerminalAccount' });
export type TerminalAccountAnswer = z.infer<typeof TerminalAccountSchema>;

/** Printable ASCII without spaces or `#` (a flatten's records are keyed `<key>#<ticket>`), up to 128 characters: a UUID, a ULID or any token a client makes. */
export const IdempotencyKeySchema = z
  .string()
  .regex(/^[\x21\x22\x24-\x7e]{1,128}$/, { message: 'expected 1 to 128 printable ASCII characters, without spaces or #' })
  .meta({ description: 'Required. The same key with the same request replays the stored answer; with a different request it is 409' });

export const IdempotencyHeadersSchema = z.object({ 'idempotency-key': IdempotencyKeySchema });

export const TicketParamsSchema = z.object({ ticket: TicketSchema.meta({ description: 'The ticket' }) });

export const ACTION_KINDS = ['close', 'modify', 'cancel', 'close_all'] as const;
export type ActionKind = (typeof ACTION_KINDS)[number];
export const ACTION_STATES = ['processing', 'done', 'rejected', 'unknown'] as const;
export const ActionStateSchema = z.enum(ACTION_STATES);
export type ActionState = z.infer<typeof ActionStateSchema>;

/** POST /v1/positions/{ticket}/close: the whole position when `volume` is absent. */
export const ClosePositionBodySchema = z
  .strictObject({
    volume: PositiveDecimalStringSchema.optional().meta({ description: 'Lots to close, on the symbol volume step; the whole position when absent' }),
  })
  .meta({ id: 'ClosePosition' });
export type ClosePositionBody = z.output<typeof ClosePositionBodySchema>;

const PriceOrNullSchema = PositiveDecimalStringSchema.nullable();

/** PATCH /v1/positions/{ticket}: a leg left out stays as it is, null removes it; at least one is given. */
export const ModifyPositionBodySchema = z
  .strictObject({
    sl: PriceOrNullSchema.optional().meta({ description: 'New stop loss; null removes it; absent keeps it' }),
    tp: PriceOrNullSchema.optional().meta({ description: 'New take profit; null removes it; absent keeps it' }),
  })
  .refine((b) => b.sl !== undefined || b.tp !== undefined, { message: 'give sl, tp or both' })
  .meta({ id: 'ModifyPosition' });
export type ModifyPositionBody = z.output<typeof ModifyPositionBodySchema>;

/** POST /v1/positions/close-all: every open position, or those of one symbol and/or one source. */
export const ClosePositionsBodySchema = z
  .strictObject({
    symbol: BrokerSymbolSchema.optional().meta({ description: 'Only positions of this exact broker symbol' }),
    source: SourceSlugSchema.optional().meta({ description: 'Only positions whose order comment carries this source' }),
  })
  .meta({ id: 'ClosePositions' });
export type ClosePositionsBody = z.output<typeof ClosePositionsBodySchema>;

/** What the terminal answered an action, normalized. */
export const ActionResultSchema = z
  .object({
    retcode: z.number().int(),
    retcode_name: z.string(),
    order: z.string().nullable(),
    deal: z.string().nullable(),
    volume: z.string(),
    price: z.string().nullable(),
    broker_comment: z.string(),
  })
  .meta({ id: 'ActionResult' });
export type ActionResult = z.infer<typeof ActionResultSchema>;

/** 200 of a close, a modification or a cancel. */
export const ActionAnswerSchema = z
  .object({
    action_id: z.string(),
    kind: z.enum(['close', 'modify', 'cancel']),
    ticket: z.string(),
    state: z.literal('done'),
    result: ActionResultSchema,
  })
  .meta({ id: 'ActionAnswer' });
export type ActionAnswer = z.infer<typeof ActionAnswerSchema>;

const ActionFailureSchema = z.object({ code: z.string(), message: z.string(), details: z.unknown().optional() });

/**
 * What the terminal showed of an `unknown` action when the service looked (after a restart, or
 * once another replica's claim outlived its lease): the deals and orders carrying its comment (a
 * close's closing deal) and the position or order its ticket names, if still open. This never trades.
 */
export const ActionReconciliationSchema = ReconciliationSchema.extend({
  open: z
    .object({
      kind: z.enum(['position', 'order']),
      symbol: z.string(),
      volume: z.string(),
      sl: z.string().nullable(),
      tp: z.string().nullable(),
    })
    .nullable()
    .meta({ description: 'The position (close, modify) or resting order (cancel) of the ticket as the terminal then held it; null when it held none' }),
}).meta({ id: 'ActionReconciliation' });
export type ActionReconciliation = z.infer<typeof ActionReconciliationSchema>;

/** An action as GET /v1/actions lists it. */
export const ActionRecordSchema = z
  .object({
    action_id: z.string(),
    idempotency_key: z.string(),
    kind: z
      .enum(ACTION_KINDS)
      .meta({ description: 'close_all: a flatten’s plan (its request lists the tickets it covers); each position has its own close record' }),
    ticket: z.string(),
    state: ActionStateSchema,
    request: z.unknown(),
    order_comment: z.string(),
    http_status: z.number().int().nullable(),
    result: ActionResultSchema.nullable(),
    error: ActionFailureSchema.nullable(),
    reconciliation: ActionReconciliationSchema.nullable().meta({ description: 'Terminal lookup of an interrupted (unknown) action' }),
    received_at: IsoTimestampSchema,
    completed_at: IsoTimestampSchema.nullable(),
    updated_at: IsoTimestampSchema,
  })
  .meta({ id: 'ActionRecord' });
export type ActionRecord = z.infer<typeof ActionRecordSchema>;

/** A page cursor the service issued: base64url, opaque. */
const OpaqueCursorSchema = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,400}$/, { message: 'not a cursor this service issued' })
  .meta({ description: 'next_cursor of the previous page, as given (opaque)' });

export const ActionListQuerySchema = z.strictObject({
  ticket: TicketSchema.optional().meta({ description: 'Only the actions on this position or order (a flatten lists each position under its ticket)' }),
  limit: z.coerce.number().int().min(1).max(500).default(50).meta({ description: 'Records per page, 1 to 500; default 50' }),
  cursor: OpaqueCursorSchema.optional(),
});
export type ActionListQuery = z.output<typeof ActionListQuerySchema>;

export const ActionListSchema = z
  .object({
    actions: z.array(ActionRecordSchema),
    next_cursor: z.string().nullable().meta({ description: 'Pass as cursor for the next (older) page; null on the last page' }),
  })
  .meta({ id: 'ActionList' });
export type ActionList = z.infer<typeof ActionListSchema>;

/** 200 of a flatten: each position's outcome, as a close of it answers. */
export const ClosePositionsAnswerSchema = z
  .object({
    idempotency_key: z.string(),
    positions: z.array(
      z.object({
        ticket: z.string(),
        state: ActionStateSchema,
        http_status: z.number().int().nullable(),
        answer: z.unknown().meta({ description: 'What a close of this one position answers (ActionAnswer or the error envelope)' }),
      }),
    ),
  })
  .meta({ id: 'ClosePositionsAnswer' });
export type ClosePositionsAnswer = z.infer<typeof ClosePositionsAnswerSchema>;

// --- Deals: the terminal's trade history --------------------------------------------------------

/** The longest range one GET /v1/deals reads: a month; a longer history is read month by month. */
export const MAX_DEALS_RANGE_DAYS = 31;

/**
 * GET /v1/deals query: the range [from, to), at most MAX_DEALS_RANGE_DAYS long, and the filters
 * (AND). The rule across `from` and `to` names the query itself (`querystring`), as JSON Schema
 * cannot state it.
 */
export const DealListQuerySchema = z
  .strictObject({
    from: Rfc3339Schema.meta({ description: 'Deals at or after this instant' }),
    to: Rfc3339Schema.meta({ description: `Deals before this instant (exclusive); at most ${MAX_DEALS_RANGE_DAYS} days after from` }),
    position: TicketSchema.optional().meta({ description: 'Only the deals of this position ticket' }),
    symbol: BrokerSymbolSchema.optional().meta({ description: 'Only deals of this exact broker symbol' }),
    source: SourceSlugSchema.optional().meta({
      description: 'Only deals of positions whose opening order comment carries this source (an exit counts when its entry is in the same range)',
    }),
    limit: z.coerce.number().int().min(1).max(500).default(100).meta({ description: 'Deals per page, 1 to 500; default 100' }),
    cursor: OpaqueCursorSchema.optional(),
  })
  .superRefine((q, ctx) => {
    const span = Date.parse(q.to) - Date.parse(q.from);
    if (!(span > 0 && span <= MAX_DEALS_RANGE_DAYS * 86_400_000)) {
      ctx.addIssue({ code: 'custom', path: [], message: `to must be after from, by at most ${MAX_DEALS_RANGE_DAYS} days` });
    }
  });
export type DealListQuery = z.output<typeof DealListQuerySchema>;

/** MT5 DEAL_REASON_* in lower case. */
export const DealReasonSchema = z.enum(['client', 'mobile', 'web', 'expert', 'sl', 'tp', 'so', 'rollover', 'vmargin', 'split', 'unknown']).meta({
  description:
    'Who or what made the deal (MT5 DEAL_REASON): expert = a program (this service), sl/tp = the venue at a stop, so = stop-out, client/mobile/web = by hand',
});

/** A history deal of the terminal (`Trade` is the account service's). */
export const DealSchema = z
  .object({
    ticket: z.string().meta({ description: 'Deal ticket' }),
    order: z.string().nullable().meta({ description: 'The order that made it; null when the venue made it without one' }),
    position: z.string().nullable().meta({ description: 'The position it opened or changed' }),
    symbol: z.string(),
    side: DirectionSchema,
    entry: z
      .enum(['in', 'out', 'inout', 'out_by'])
      .meta({ description: 'MT5 DEAL_ENTRY: opened (in), closed some or all (out), reversed (inout), closed by an opposite position (out_by)' }),
    volume: z.string().meta({ description: 'Lots' }),
    price: PriceSchema,
    profit: MoneySchema.meta({ description: 'Realized profit of the deal (0.00 for an entry), account currency' }),
    commission: MoneySchema,
    swap: MoneySchema,
    magic: z.number().int(),
    comment: z.string(),
    reason: DealReasonSchema,
    source: z
      .string()
      .nullable()
      .meta({ description: 'The source slug of the position’s opening order comment, when the service’s and in the range read; else null' }),
    time: IsoTimestampSchema,
  })
  .meta({ id: 'Deal' });
export type Deal = z.infer<typeof DealSchema>;

export const DealListSchema = z
  .object({
    deals: z.array(DealSchema).meta({ description: 'Oldest first' }),
    next_cursor: z.string().nullable().meta({ description: 'Pass as cursor, with the same query, for the next (later) page; null on the last page' }),
  })
  .meta({ id: 'DealList' });
export type DealList = z.infer<typeof DealListSchema>;
