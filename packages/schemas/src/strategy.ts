import { z } from 'zod';
import { ErrorEnvelopeSchema } from './error.js';
import { LabJobStatusSchema } from './lab.js';
import { InstrumentNameSchema, IsoTimestampSchema, TimeframeSchema } from './primitives.js';

/**
 * The strategy control service's API (spec 000), shared by the service (route schemas, OpenAPI)
 * and @fxdesk/client (typed answers). Field names are spec 000's, in snake_case.
 */

const Price = z.number().meta({ description: 'Price in quote currency' });
const Timestamp = IsoTimestampSchema;

/** Spec 000 "Health record". */
export const StrategyHealthSchema = z
  .object({
    status: z.enum(['healthy', 'unhealthy']),
    timestamp: Timestamp.meta({ description: 'Current server time' }),
    uptime_seconds: z.number().int().meta({ description: 'Seconds since the server started' }),
    version: z.string().meta({ description: 'API version' }),
  })
  .meta({ id: 'StrategyHealth' });
export type StrategyHealth = z.infer<typeof StrategyHealthSchema>;

/** Spec 000 "Account object": numbers in the account currency. */
export const StrategyAccountSchema = z
  .object({
    balance: z.number(),
    equity: z.number(),
    margin_used: z.number(),
    margin_available: z.number(),
  })
  .meta({ id: 'StrategyAccount' });
export type StrategyAccount = z.infer<typeof StrategyAccountSchema>;

export const DOWNSTREAM_SERVICES = ['market_data', 'execution', 'account', 'notification'] as const;
export type DownstreamService = (typeof DOWNSTREAM_SERVICES)[number];

/** How one downstream service has answered the strategy lately (beyond spec 000). */
export const DownstreamStateSchema = z
  .object({
    configured: z.boolean().meta({ description: 'Whether its URL is set (market_data: false means the in-process simulated market)' }),
    state: z.enum(['ok', 'failing', 'unknown', 'not_configured']).meta({
      description: 'ok: the last call succeeded; failing: the last call failed; unknown: not called yet',
    }),
    last_success_at: Timestamp.nullable(),
    last_error: z
      .object({ at: Timestamp, code: z.string(), message: z.string() })
      .nullable()
      .meta({ description: 'The most recent failure, kept after a recovery' }),
    consecutive_failures: z.number().int(),
  })
  .meta({ id: 'DownstreamState' });
export type DownstreamState = z.infer<typeof DownstreamStateSchema>;

/** Spec 000 "Status record", plus `dry_run`, `timeframe`, `account_source`, `paper_account` and `downstream`. */
export const IDLE_REASONS = ['never_started', 'starting', 'start_failed', 'stopped', 'not_resumed'] as const;
/** Why the strategy is not running: its code, a sentence for people, and since when (a stop's time). */
export const StrategyIdleSchema = z
  .object({
    reason: z.enum(IDLE_REASONS).meta({
      description:
        'never_started: no run was ever recorded and AUTO_START is off; starting: starting by itself at boot (AUTO_START, or resuming the run a restart interrupted); ' +
        'start_failed: that start failed (see the log); stopped: stopped by POST /stop, which a restart of the service does not undo; not_resumed: running when the service last stopped, not resumed (RESUME_ON_START=false)',
    }),
    message: z.string(),
    since: Timestamp.nullable().meta({ description: 'When the run was stopped (stopped, not_resumed); else null' }),
  })
  .meta({ id: 'StrategyIdle' });
export type StrategyIdle = z.infer<typeof StrategyIdleSchema>;

export const StrategyStatusSchema = z
  .object({
    running: z.boolean(),
    started_at: Timestamp.nullable().meta({ description: 'When the running strategy started; null when not running' }),
    active_pairs: z.array(z.string()).meta({ description: 'Monitored instruments; empty when not running' }),
    total_signals_today: z.number().int().meta({ description: 'Signals generated since 00:00 UTC' }),
    last_signal_time: Timestamp.nullable().meta({ description: 'generated_at of the newest signal; null before the first' }),
    account: StrategyAccountSchema.nullable().meta({
      description: 'From the account service when ACCOUNT_URL is set (null until its first answer), else the paper account',
    }),
    account_source: z.enum(['account_service', 'paper']),
    paper_account: StrategyAccountSchema.meta({ description: 'The paper account that dry_run signals trade' }),
    dry_run: z
      .boolean()
      .nullable()
      .meta({ description: 'Paper trading in the running (or last) start, across restarts of the service; null before any start' }),
    idle: StrategyIdleSchema.nullable().meta({ description: 'Why the strategy is not running; null while it runs' }),
    timeframe: TimeframeSchema,
    downstream: z.record(z.enum(DOWNSTREAM_SERVICES), DownstreamStateSchema),
  })
  .meta({ id: 'StrategyStatus' });
export type StrategyStatus = z.infer<typeof StrategyStatusSchema>;

export const PAIR_STATUSES = ['warming_up', 'monitoring', 'stale', 'stopped'] as const;
export const PairStatusSchema = z.enum(PAIR_STATUSES).meta({
  description: 'warming_up: indicators not ready yet; monitoring; stale: no fresh data; stopped: strategy not running (last values kept)',
});
export type PairStatus = z.infer<typeof PairStatusSchema>;

export const SIGNAL_TYPES = ['LONG', 'SHORT'] as const;
export const SignalTypeSchema = z.enum(SIGNAL_TYPES);
export type SignalType = z.infer<typeof SignalTypeSchema>;

/** Spec 000 "Pair record", plus `symbol`, `last_candle_time` and `last_data_at`. */
export const PairRecordSchema = z
  .object({
    instrument: z.string(),
    symbol: z.string().meta({ description: 'Broker symbol the instrument maps to (SYMBOL_MAP)' }),
    status: PairStatusSchema,
    current_price: z.number().nullable().meta({ description: 'Mid of the latest quote (else the latest close); null before any data' }),
    supertrend: z
      .object({ direction: z.union([z.literal(1), z.literal(-1)]), value: Price })
      .nullable()
      .meta({ description: 'null while warming up' }),
    stochrsi: z.object({ k: z.number(), d: z.number() }).nullable().meta({ description: 'null while warming up' }),
    last_signal: z
      .object({ type: SignalTypeSchema, time: Timestamp, entry_price: Price })
      .nullable()
      .meta({ description: 'null when the pair has no signal yet' }),
    last_candle_time: Timestamp.nullable().meta({ description: 'Open time of the latest closed candle processed' }),
    last_data_at: Timestamp.nullable().meta({ description: "The time of the newest data: a quote's own time, a candle's close" }),
  })
  .meta({ id: 'PairRecord' });
export type PairRecord = z.infer<typeof PairRecordSchema>;

export const PairsResponseSchema = z.object({ pairs: z.array(PairRecordSchema) }).meta({ id: 'Pairs' });

export const TREND_VALUES = ['bullish', 'bearish'] as const;
export const STOCH_RSI_SIGNALS = ['oversold', 'overbought', 'bullish_cross', 'bearish_cross', 'neutral'] as const;
export const FVG_TYPES = ['bullish', 'bearish', 'none'] as const;

/** Spec 000 "Indicator objects" of a signal. */
export const SignalIndicatorsSchema = z
  .object({
    supertrend: z.object({ direction: z.union([z.literal(1), z.literal(-1)]), trend: z.enum(TREND_VALUES) }),
    stochrsi: z.object({ k: z.number(), signal: z.enum(STOCH_RSI_SIGNALS) }),
    fvg: z.object({
      type: z.enum(FVG_TYPES),
      zone: z.tuple([z.number(), z.number()]).nullable().meta({ description: '[low, high] of the latest open gap; null when type is none' }),
    }),
    volume_profile: z.object({ poc: z.number(), vah: z.number(), val: z.number() }),
  })
  .meta({ id: 'SignalIndicators' });
export type SignalIndicators = z.infer<typeof SignalIndicatorsSchema>;

export const EXECUTION_STATUSES = [
  'paper',
  'not_configured',
  'pending',
  'filled',
  'partially_filled',
  'placed',
  'rejected',
  'unknown',
  'failed',
  'skipped',
] as const;

/** What became of the signal at the execution service (beyond spec 000). */
export const SignalExecutionSchema = z
  .object({
    status: z.enum(EXECUTION_STATUSES).meta({
      description:
        'paper: dry_run, traded on the paper account; not_configured: no EXECUTION_URL; pending: being submitted; filled, partially_filled, placed: the execution state; rejected: refused (see code); unknown: the broker outcome is unknown; failed: the execution service could not be reached; ' +
        'skipped: the desk did not trade it (see code): a risk limit (position_open, max_open_trades, currency_exposure, cooldown, daily_loss_limit, max_drawdown) or the sizing (volume_rounds_to_zero, volume_below_minimum, no_risk_at_stop, no_conversion_rate, no_equity, no_volume_terms), and on paper invalid_stops (the venue would refuse its stop or target at the next open: its side or stops level) and insufficient_margin (its margin at PAPER_LEVERAGE does not fit the free margin), position_open being decided at that open; live: never sent; paper: no trade opened',
    }),
    code: z
      .string()
      .nullable()
      .meta({ description: "The execution service's error code when rejected, unknown or failed; why the desk skipped it when skipped" }),
    message: z.string().nullable(),
    tickets: z.object({ order: z.string().nullable(), deal: z.string().nullable(), position: z.string().nullable() }).nullable(),
    volume: z.string().nullable().optional().meta({
      description:
        'Lots of the live order, decided before it is sent (TRADE_VOLUME, or sized by risk with SIZING=risk); absent or null: none decided (paper, skipped, a record of before)',
    }),
    attempts: z.number().int(),
    updated_at: Timestamp.nullable(),
  })
  .meta({ id: 'SignalExecution' });
export type SignalExecution = z.infer<typeof SignalExecutionSchema>;

/** What became of the announcement at the notification service (beyond spec 000). */
export const SignalNotificationSchema = z
  .object({
    status: z.enum(['not_configured', 'pending', 'sent', 'skipped', 'failed']).meta({
      description: 'sent: accepted by the notification service (request_id names it); skipped: notifications are disabled there',
    }),
    request_id: z.string().nullable(),
    delivery_ids: z.array(z.string()),
    message: z.string().nullable(),
    attempts: z.number().int(),
    updated_at: Timestamp.nullable(),
  })
  .meta({ id: 'SignalNotification' });
export type SignalNotification = z.infer<typeof SignalNotificationSchema>;

/** Spec 000 "Signal record", plus its id, pair, candle and what the desk did with it. */
export const StrategySignalSchema = z
  .object({
    type: SignalTypeSchema,
    generated_at: Timestamp,
    entry_price: Price,
    stop_loss: Price,
    take_profit: Price,
    risk_reward: z.number().meta({ description: '|take_profit − entry| / |entry − stop_loss|, from the rounded prices' }),
    indicators: SignalIndicatorsSchema,
    confluence_score: z.number().int().min(1).max(4).meta({ description: 'Indicators aligned with the signal, 1 to 4' }),
    signal_id: z.uuid().meta({ description: 'Deterministic from (instrument, timeframe, candle time): a retry never trades twice' }),
    instrument: z.string(),
    symbol: z.string(),
    timeframe: TimeframeSchema,
    candle_time: Timestamp.meta({ description: 'Open time of the closed candle the signal was decided on' }),
    dry_run: z.boolean(),
    execution: SignalExecutionSchema,
    notification: SignalNotificationSchema,
  })
  .meta({ id: 'StrategySignal' });
export type StrategySignal = z.infer<typeof StrategySignalSchema>;

/** GET /signals/{instrument}. */
export const LatestSignalResponseSchema = z
  .object({
    instrument: z.string(),
    signal: StrategySignalSchema.nullable(),
    message: z.string().optional().meta({ description: 'Present when signal is null' }),
  })
  .meta({ id: 'LatestSignal' });
export type LatestSignalResponse = z.infer<typeof LatestSignalResponseSchema>;

/** GET /signals (beyond spec 000): history, newest first. */
export const SignalHistorySchema = z
  .object({
    signals: z.array(StrategySignalSchema),
    next_cursor: z.string().nullable().meta({ description: 'Pass as cursor for the next (older) page; null on the last page' }),
  })
  .meta({ id: 'SignalHistory' });
export type SignalHistory = z.infer<typeof SignalHistorySchema>;

/** POST /start body; every field optional, unknown fields refused. */
export const StartRequestSchema = z
  .strictObject({
    instruments: z
      .array(InstrumentNameSchema)
      .min(1)
      .max(64)
      .optional()
      .meta({ description: 'Pairs to monitor; default INSTRUMENTS. Each must be listed by the market' }),
    dry_run: z.boolean().optional().meta({ description: 'Paper trading; default false' }),
  })
  .meta({ id: 'StartRequest' });
export type StartRequest = z.infer<typeof StartRequestSchema>;

/** What POST /start reads: the body is optional (an empty one counts as none). */
export const StartBodySchema = StartRequestSchema.nullish();

const Outcome = { success: z.boolean(), message: z.string() };
const RunScope = { instruments: z.array(z.string()), dry_run: z.boolean() };

export const StartResponseSchema = z.object({ ...Outcome, started_at: Timestamp, ...RunScope }).meta({ id: 'StartResponse' });
export type StartResponse = z.infer<typeof StartResponseSchema>;

/** POST /stop body (beyond spec 000); optional, unknown fields refused. */
export const StopRequestSchema = z
  .strictObject({
    close_positions: z
      .boolean()
      .optional()
      .meta({ description: 'Also close every position the strategy opened (live: through the execution service; paper: at the market now); default false' }),
  })
  .meta({ id: 'StopRequest' });
export type StopRequest = z.infer<typeof StopRequestSchema>;

/** What POST /stop reads: the body is optional (an empty one counts as none). */
export const StopBodySchema = StopRequestSchema.nullish();

/** What a stop with close_positions closed. */
export const StopClosedSchema = z
  .object({
    account: z.enum(['live', 'paper']).meta({ description: 'The account of the run it stopped' }),
    positions: z.array(
      z.object({
        ticket: z.string().meta({ description: 'The venue position ticket (live), the signal_id of the paper trade (paper)' }),
        state: z
          .enum(['done', 'rejected', 'unknown', 'failed', 'processing'])
          .meta({ description: 'done: closed; unknown: the venue did not say (never resent: check the broker); rejected/failed: still open' }),
        message: z.string().nullable(),
      }),
    ),
    error: z
      .string()
      .nullable()
      .meta({ description: 'Why nothing could be closed (the execution service did not answer, EXECUTION_URL not set); null when asked' }),
  })
  .meta({ id: 'StopClosed' });
export type StopClosed = z.infer<typeof StopClosedSchema>;

export const StopResponseSchema = z
  .object({
    ...Outcome,
    stopped_at: Timestamp,
    signals_generated: z.number().int().meta({ description: 'Signals generated since the start this stop ends' }),
    closed: StopClosedSchema.optional().meta({ description: 'With close_positions: true, what was closed' }),
  })
  .meta({ id: 'StopResponse' });
export type StopResponse = z.infer<typeof StopResponseSchema>;

export const RestartResponseSchema = z.object({ ...Outcome, restarted_at: Timestamp, ...RunScope }).meta({ id: 'RestartResponse' });
export type RestartResponse = z.infer<typeof RestartResponseSchema>;

/** The 409 of POST /start, /stop and /restart. */
export const StrategyConflictSchema = ErrorEnvelopeSchema.meta({ description: 'STRATEGY_ALREADY_RUNNING or STRATEGY_NOT_RUNNING' });

/** The 429 of every rate-limited spec 000 endpoint. */
export const StrategyRateLimitedSchema = ErrorEnvelopeSchema.meta({ description: 'RATE_LIMITED, with Retry-After' });

// Any text: a name that is malformed or too long is simply not a known pair (404), as spec 000 has it.
/** GET /pairs/{instrument}/candles path. */
export const MonitoredPairParamsSchema = z.object({ instrument: z.string().meta({ description: 'A monitored pair, e.g. EUR_USD' }) });
/** GET /signals/{instrument} path. */
export const SignalInstrumentParamsSchema = z.object({ instrument: z.string().meta({ description: 'A pair name, e.g. EUR_USD' }) });

/** GET /signals query (history, newest first). */
export const SignalHistoryQuerySchema = z.object({
  instrument: InstrumentNameSchema.optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50).meta({ description: 'Signals per page, 1 to 500; default 50' }),
  cursor: z.string().max(64).optional().meta({ description: 'next_cursor of the previous page' }),
});
export type SignalHistoryQuery = z.infer<typeof SignalHistoryQuerySchema>;

/**
 * GET /pairs/{instrument}/candles query: at most CHART_CANDLES (`chartCandles`) candles, 100 by
 * default; `timeframe` other than the strategy's charts the pair's history on it, the indicators
 * computed over that history with the strategy's settings.
 */
export function pairCandlesQuerySchema(chartCandles: number) {
  return z.object({
    timeframe: TimeframeSchema.optional().meta({ description: "Candle timeframe; the strategy's TIMEFRAME when omitted" }),
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .max(chartCandles)
      .default(Math.min(100, chartCandles))
      .meta({ description: `Newest candles to return; at most CHART_CANDLES (${chartCandles})` }),
  });
}

/** One closed candle with each indicator's value after it (GET /pairs/{instrument}/candles). */
export const ChartCandleSchema = z
  .object({
    time: Timestamp.meta({ description: 'Candle open time' }),
    open: z.number(),
    high: z.number(),
    low: z.number(),
    close: z.number(),
    volume: z.number(),
    supertrend: z.object({ direction: z.union([z.literal(1), z.literal(-1)]), value: z.number() }).nullable(),
    stochrsi: z.object({ k: z.number(), d: z.number(), signal: z.enum(STOCH_RSI_SIGNALS) }).nullable(),
    fvg: z.object({ type: z.enum(FVG_TYPES), zone: z.tuple([z.number(), z.number()]).nullable() }).nullable(),
    volume_profile: z.object({ poc: z.number(), vah: z.number(), val: z.number() }).nullable(),
  })
  .meta({ id: 'ChartCandle' });
export type ChartCandle = z.infer<typeof ChartCandleSchema>;

export const PairCandlesSchema = z
  .object({ instrument: z.string(), timeframe: TimeframeSchema, candles: z.array(ChartCandleSchema) })
  .meta({ id: 'PairCandles' });
export type PairCandles = z.infer<typeof PairCandlesSchema>;

// ── The console (not spec 000): the live event stream, read-through routes, the session ──────

/** What a `pair` event carries: the pair's record, as GET /pairs lists it. */
export const PairEventSchema = PairRecordSchema;

/** A `candle` event: a closed candle of a monitored pair with its indicators after it. */
export const CandleEventSchema = z.object({ instrument: z.string(), timeframe: TimeframeSchema, candle: ChartCandleSchema }).meta({ id: 'CandleEvent' });
export type CandleEvent = z.infer<typeof CandleEventSchema>;

/** An `order` event: what the execution service made of a signal, each time that changes. */
export const OrderEventSchema = z.object({ signal_id: z.string(), instrument: z.string(), execution: SignalExecutionSchema }).meta({ id: 'OrderEvent' });
export type OrderEvent = z.infer<typeof OrderEventSchema>;

/** A `delivery` event: what the notification service made of a signal's announcement, each time that changes. */
export const DeliveryEventSchema = z
  .object({ signal_id: z.string(), instrument: z.string(), notification: SignalNotificationSchema })
  .meta({ id: 'DeliveryEvent' });
export type DeliveryEvent = z.infer<typeof DeliveryEventSchema>;

/** A `downstream` event: a downstream service's state changed (ok ↔ failing). */
export const DownstreamEventSchema = z.object({ service: z.enum(DOWNSTREAM_SERVICES), state: DownstreamStateSchema }).meta({ id: 'DownstreamEvent' });
export type DownstreamEvent = z.infer<typeof DownstreamEventSchema>;

/**
 * A `lab` event: a backtest or sweep of the strategy lab was queued, started, moved or ended.
 * Every status change at once; progress while it runs at most once a second per job.
 */
export const LabEventSchema = z
  .object({
    kind: z.enum(['backtest', 'sweep']),
    id: z.string().meta({ description: 'GET /backtests/{id} or /sweeps/{id} reads the whole record' }),
    status: LabJobStatusSchema,
    progress: z.number().min(0).max(1),
    sweep_id: z.string().nullable().meta({ description: "A sweep's backtest: its sweep; null for a sweep or a backtest started alone" }),
  })
  .meta({ id: 'LabEvent' });
export type LabEvent = z.infer<typeof LabEventSchema>;

/**
 * GET /events, server-sent events, each with an `id:` (one more than the last) and JSON `data:`:
 * - `status` (StrategyStatus): on connect, on every start/stop/restart and signal, and every 5 s;
 * - `pair` (PairRecord): a pair's record changed (a quote, a candle), at most once a second per pair;
 * - `candle` (CandleEvent): a candle of a monitored pair closed;
 * - `signal` (StrategySignal): a signal was generated;
 * - `order` (OrderEvent), `delivery` (DeliveryEvent): a signal's execution or announcement moved;
 * - `downstream` (DownstreamEvent): a downstream service started or stopped answering;
 * - `lab` (LabEvent): a lab job's status changed, or (at most once a second) its progress;
 * - `reset` (`{}`): sent first when `Last-Event-ID` is older than the events kept: refetch.
 */
export const STRATEGY_EVENTS = ['status', 'pair', 'candle', 'signal', 'order', 'delivery', 'downstream', 'lab', 'reset'] as const;
export type StrategyEventName = (typeof STRATEGY_EVENTS)[number];

/** GET /console/session: whether this browser may use the console, and its CSRF token. */
export const ConsoleSessionSchema = z
  .object({
    login_required: z.boolean().meta({ description: 'true when CONSOLE_PASSWORD is set: the console needs a login' }),
    authenticated: z.boolean(),
    csrf_token: z.string().nullable().meta({ description: 'Send it as X-CSRF-Token with every state-changing console request' }),
    expires_at: Timestamp.nullable(),
  })
  .meta({ id: 'ConsoleSession' });
export type ConsoleSession = z.infer<typeof ConsoleSessionSchema>;

/** POST /console/login body. */
export const ConsoleLoginSchema = z.strictObject({ password: z.string().min(1).max(1000) }).meta({ id: 'ConsoleLogin' });

/** One downstream service's readiness as GET /console/services reads it from its /health/ready. */
export const ServiceHealthSchema = z
  .object({
    configured: z.boolean().meta({ description: 'Whether the strategy has its URL' }),
    reachable: z.boolean(),
    ready: z.boolean(),
    checks: z.record(z.string(), z.object({ ok: z.boolean(), detail: z.string().optional() })).meta({ description: "The service's own readiness checks" }),
    error: z.string().nullable().meta({ description: 'Why it could not be read' }),
  })
  .meta({ id: 'ServiceHealth' });
export type ServiceHealth = z.infer<typeof ServiceHealthSchema>;

/** GET /console/services: every downstream service's readiness, read at the request. */
export const ConsoleServicesSchema = z
  .object({
    market_data: ServiceHealthSchema,
    execution: ServiceHealthSchema,
    account: ServiceHealthSchema,
    notification: ServiceHealthSchema,
  })
  .meta({ id: 'ConsoleServices' });
export type ConsoleServices = z.infer<typeof ConsoleServicesSchema>;
