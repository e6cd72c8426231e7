import { z } from 'zod';
import { InstrumentNameSchema, IsoTimestampSchema, TimeframeSchema } from './primitives.js';

/**
 * The strategy lab's API (issue 13): backtests and parameter sweeps on the strategy service,
 * shared by the service (route schemas, OpenAPI), @fxdesk/client and the console. Field names in
 * snake_case; money in the account currency, prices in the quote currency, as numbers.
 */

const Timestamp = IsoTimestampSchema;

// ── Rule settings ────────────────────────────────────────────────────────────────────────────

/** The rule's settings a backtest may override, by their API names (the config's SUPERTREND_ATR_PERIOD…). */
export const LAB_RULE_NAMES = [
  'supertrend_atr_period',
  'supertrend_multiplier',
  'volume_profile_window',
  'min_confluence',
  'risk_reward',
  'min_stop_atr',
  'fvg_max_age',
] as const;
export type LabRuleName = (typeof LAB_RULE_NAMES)[number];

/**
 * The exit rules a backtest may override (the config's BREAK_EVEN_R…; services/strategy/README.md
 * "Exits"): 0 is off. A backtest's settings list one only when it is on (a backtest run before the
 * exit rules has none: they were off).
 */
export const LAB_EXIT_RULE_NAMES = ['break_even_r', 'trailing_stop_atr', 'trailing_stop_r', 'time_exit_candles', 'exit_on_opposite_signal'] as const;
export type LabExitRuleName = (typeof LAB_EXIT_RULE_NAMES)[number];

/**
 * The risk settings a backtest may override (issue 24; the config's RISK_PERCENT, MAX_OPEN_TRADES…;
 * services/strategy/README.md "Risk in the lab"): 0 is off, `risk_percent` 0 is fixed lots (the
 * fill model's `volume`). `one_position_per_pair` takes 1 only: the lab, as the paper account,
 * holds one position per pair (0 answers 422). A backtest's settings list one only when it is on.
 */
export const LAB_RISK_RULE_NAMES = [
  'risk_percent',
  'one_position_per_pair',
  'max_open_trades',
  'max_currency_exposure_lots',
  'daily_loss_limit',
  'max_drawdown',
  'cooldown_losses',
  'cooldown_candles',
] as const;
export type LabRiskRuleName = (typeof LAB_RISK_RULE_NAMES)[number];

/** Every setting a backtest's `rules` and a sweep vary: the signal rule's, the exits', then the risk's. */
export const LAB_SETTING_NAMES = [...LAB_RULE_NAMES, ...LAB_EXIT_RULE_NAMES, ...LAB_RISK_RULE_NAMES] as const;
export type LabSettingName = LabRuleName | LabExitRuleName | LabRiskRuleName;

/**
 * Each rule setting's bounds, the strategy config's own (SUPERTREND_ATR_PERIOD 1 to 500, …):
 * the contract states them for clients; the service checks they equal its RULE_BOUNDS (rules.ts).
 */
export const LAB_RULE_BOUNDS = {
  supertrend_atr_period: { min: 1, max: 500, isInteger: true, env: 'SUPERTREND_ATR_PERIOD' },
  supertrend_multiplier: { min: 0.1, max: 20, isInteger: false, env: 'SUPERTREND_MULTIPLIER' },
  volume_profile_window: { min: 2, max: 1000, isInteger: true, env: 'VOLUME_PROFILE_WINDOW' },
  min_confluence: { min: 1, max: 4, isInteger: true, env: 'MIN_CONFLUENCE' },
  risk_reward: { min: 0.1, max: 20, isInteger: false, env: 'RISK_REWARD' },
  min_stop_atr: { min: 0, max: 20, isInteger: false, env: 'MIN_STOP_ATR' },
  fvg_max_age: { min: 1, max: 998, isInteger: true, env: 'FVG_MAX_AGE' },
  break_even_r: { min: 0, max: 20, isInteger: false, env: 'BREAK_EVEN_R' },
  trailing_stop_atr: { min: 0, max: 50, isInteger: false, env: 'TRAILING_STOP_ATR' },
  trailing_stop_r: { min: 0, max: 20, isInteger: false, env: 'TRAILING_STOP_R' },
  time_exit_candles: { min: 0, max: 100_000, isInteger: true, env: 'TIME_EXIT_CANDLES' },
  exit_on_opposite_signal: { min: 0, max: 1, isInteger: true, env: 'EXIT_ON_OPPOSITE_SIGNAL' },
  risk_percent: { min: 0, max: 10, isInteger: false, env: 'RISK_PERCENT' },
  one_position_per_pair: { min: 0, max: 1, isInteger: true, env: 'ONE_POSITION_PER_PAIR' },
  max_open_trades: { min: 0, max: 1000, isInteger: true, env: 'MAX_OPEN_TRADES' },
  max_currency_exposure_lots: { min: 0, max: 100_000, isInteger: false, env: 'MAX_CURRENCY_EXPOSURE_LOTS' },
  daily_loss_limit: { min: 0, max: 100, isInteger: false, env: 'DAILY_LOSS_LIMIT' },
  max_drawdown: { min: 0, max: 100, isInteger: false, env: 'MAX_DRAWDOWN' },
  cooldown_losses: { min: 0, max: 100, isInteger: true, env: 'COOLDOWN_LOSSES' },
  cooldown_candles: { min: 0, max: 100_000, isInteger: true, env: 'COOLDOWN_CANDLES' },
} as const satisfies Record<LabSettingName, { min: number; max: number; isInteger: boolean; env: string }>;

/** What each exit and risk rule does, for the contract's descriptions. */
const RULE_MEANINGS: Partial<Record<LabSettingName, string>> = {
  break_even_r: 'move the stop to the entry once a close is this many R in profit (0: off)',
  trailing_stop_atr: "trail the stop this many ATRs (the Supertrend's) behind each close; it only tightens (0: off)",
  trailing_stop_r: 'trail the stop this many R behind each close; it only tightens (0: off)',
  time_exit_candles: 'close at the next open after this many candles held, the entry candle the first (0: off)',
  exit_on_opposite_signal: "1: a signal of the other side closes the position at the next open and enters there (0: off; EXIT_ON_OPPOSITE_SIGNAL's true/false)",
  risk_percent:
    "size by risk: the lots that lose this percent of the equity at the stop, from the venue's contract size and volume step (0: fixed lots, fill_model.volume; SIZING=fixed); RISK_PERCENT's own least is 0.01",
  one_position_per_pair: '1 only: the lab holds one position per pair (0 answers 422)',
  max_open_trades: 'no entry while this many positions are open, all pairs (0: off)',
  max_currency_exposure_lots: 'no entry that would take any currency past this many net lots, long or short, across pairs (0: off)',
  daily_loss_limit: "percent of the trading day's starting equity; reaching it halts entries for the rest of the run (0: off)",
  max_drawdown: "percent below the equity's peak; reaching it halts entries for the rest of the run (0: off)",
  cooldown_losses: 'after this many losing trades in a row, no entry for cooldown_candles candles (0: off)',
  cooldown_candles: 'candles of the cooldown, from the last loss’s exit (0: off)',
};

/** One rule setting's value within its bounds. */
export function ruleValueSchema(name: LabSettingName) {
  const { min, max, isInteger, env } = LAB_RULE_BOUNDS[name];
  const number = isInteger ? z.number().int() : z.number();
  const meaning = RULE_MEANINGS[name] === undefined ? '' : `${RULE_MEANINGS[name]}; `;
  return number
    .min(min)
    .max(max)
    .meta({ description: `${meaning}${env}'s range: ${min} to ${max}${isInteger ? ', an integer' : ''}` });
}

function eachRule<T extends z.ZodType>(make: (name: LabRuleName) => T): { [K in LabRuleName]: T } {
  return Object.fromEntries(LAB_RULE_NAMES.map((name) => [name, make(name)])) as { [K in LabRuleName]: T };
}

function eachExitRule<T extends z.ZodType>(make: (name: LabExitRuleName) => T): { [K in LabExitRuleName]: T } {
  return Object.fromEntries(LAB_EXIT_RULE_NAMES.map((name) => [name, make(name)])) as { [K in LabExitRuleName]: T };
}

function eachRiskRule<T extends z.ZodType>(make: (name: LabRiskRuleName) => T): { [K in LabRiskRuleName]: T } {
  return Object.fromEntries(LAB_RISK_RULE_NAMES.map((name) => [name, make(name)])) as { [K in LabRiskRuleName]: T };
}

function eachSetting<T extends z.ZodType>(make: (name: LabSettingName) => T): { [K in LabSettingName]: T } {
  return { ...eachRule(make), ...eachExitRule(make), ...eachRiskRule(make) };
}

/**
 * The rule's complete settings a backtest ran with (the live ones, then the overrides): every
 * signal rule, and each exit and risk rule that is on (absent: off; a backtest run before them has none).
 */
export const LabRulesSchema = z
  .object({
    ...eachRule(ruleValueSchema),
    ...eachExitRule((name) => ruleValueSchema(name).optional()),
    ...eachRiskRule((name) => ruleValueSchema(name).optional()),
  })
  .meta({ id: 'LabRules' });
export type LabRules = z.infer<typeof LabRulesSchema>;

/** Overrides of the live settings; each absent one is the strategy's own (its config). */
export const LabRuleOverridesSchema = z.strictObject(eachSetting((name) => ruleValueSchema(name).optional())).meta({
  id: 'LabRuleOverrides',
  description:
    "Settings of the signal rule, of the exit rules (break-even, trailing stops, time exit, exit on the opposite signal; 0 off) and of the risk (sizing by risk_percent, the limits; 0 off) that replace the strategy's live ones (its config) for this run",
});
export type LabRuleOverrides = z.infer<typeof LabRuleOverridesSchema>;

// ── The fill model ───────────────────────────────────────────────────────────────────────────

const Points = z.number().min(0).max(100_000);

const FixedLotsSchema = z.strictObject({
  lots: z.number().min(0.01).max(100).meta({ description: 'Fixed lots per trade (rules.risk_percent 0), rounded down to the 0.01 step' }),
});

/**
 * How a trade's size is chosen, as a backtest's settings show it: fixed lots; `risk_percent` only
 * on a backtest run before issue 24 (sizing by risk is now rules.risk_percent).
 */
export const LabVolumeSchema = z
  .union([
    FixedLotsSchema,
    z.strictObject({
      risk_percent: z
        .number()
        .gt(0)
        .max(100)
        .meta({ description: 'Before issue 24: percent of the equity at the entry lost at the stop; ask with rules.risk_percent now' }),
    }),
  ])
  .meta({ id: 'LabVolume' });
export type LabVolume = z.infer<typeof LabVolumeSchema>;

/** The fill model of a request: each field optional (the defaults in the description). */
export const FillModelRequestSchema = z
  .strictObject({
    spread_points: Points.nullable()
      .optional()
      .meta({ description: "Spread in points (10^-digits) paid on candles that carry none of their own; null or absent: the fill model's default" }),
    slippage_points: Points.optional().meta({ description: 'Slippage in points against the trade on the entry and on a stop exit; default 0' }),
    commission_per_lot: z
      .number()
      .min(0)
      .max(100_000)
      .optional()
      .meta({ description: 'Per lot per round turn, in the account currency, booked at the exit; default 0' }),
    volume: z
      .union([
        FixedLotsSchema,
        z.strictObject({ risk_percent: z.number().meta({ description: 'Refused (422): size by risk with rules.risk_percent, which a sweep can vary' }) }),
      ])
      .optional()
      .meta({ description: 'Fixed lots, used when rules.risk_percent is 0 (SIZING=fixed). Default: TRADE_VOLUME lots' }),
  })
  .meta({ id: 'FillModelRequest' });
export type FillModelRequest = z.infer<typeof FillModelRequestSchema>;

/** The fill model a backtest ran with, complete. */
export const FillModelSchema = z
  .object({
    spread_points: Points.nullable().meta({ description: "Spread (points) on candles without their own; null: the fill model's default" }),
    slippage_points: Points,
    commission_per_lot: z.number(),
    volume: LabVolumeSchema,
  })
  .meta({ id: 'FillModel' });
export type FillModel = z.infer<typeof FillModelSchema>;

// ── Backtests ────────────────────────────────────────────────────────────────────────────────

const DAY_OR_DATE_TIME = /^([0-9]{4})-([0-9]{2})-([0-9]{2})(?:[Tt]([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.[0-9]{1,9})?(?:[Zz]|[+-][0-9]{2}:[0-9]{2}))?$/;

/** Whether the text names a real day and time (no February 30th, no 25:00). */
export function isRealTime(text: string): boolean {
  const [, year, month, day, hour = '0', minute = '0', second = '0'] = DAY_OR_DATE_TIME.exec(text) ?? [];
  const date = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  return (
    date.getUTCFullYear() === Number(year) &&
    date.getUTCMonth() === Number(month) - 1 &&
    date.getUTCDate() === Number(day) &&
    Number(hour) <= 23 &&
    Number(minute) <= 59 &&
    Number(second) <= 59
  );
}

export const LAB_TIME_MESSAGE = 'expected a date like 2026-01-01 or an RFC 3339 date-time with its zone';

const LAB_TIME_META = { description: 'A date (midnight UTC) or an RFC 3339 date-time with its zone', example: '2026-01-01' };

/** A day or a date-time by its form alone, for a query: OpenAPI states the form; the route checks the date is real ({@link isRealTime}). */
const LabTimeFormSchema = z.string().regex(DAY_OR_DATE_TIME, { message: LAB_TIME_MESSAGE, abort: true }).meta(LAB_TIME_META);

/** A day (`2026-01-01`, midnight UTC) or an RFC 3339 date-time with its zone. */
export const LabTimeSchema = LabTimeFormSchema.refine(isRealTime, { message: LAB_TIME_MESSAGE }).meta(LAB_TIME_META);

export const MAX_BACKTEST_INSTRUMENTS = 20;

export const LAB_SOURCES = ['stored', 'venue', 'simulated'] as const;
/** Where a backtest's candles come from. */
export const LabSourceSchema = z.enum(LAB_SOURCES);
export type LabSource = z.infer<typeof LabSourceSchema>;

/** POST /backtests body (and a sweep's `base`). The range's own rules (from < to ≤ now, at most 5 years) answer 422 too. */
export const BacktestRequestSchema = z
  .strictObject({
    instruments: z
      .array(InstrumentNameSchema)
      .min(1)
      .max(MAX_BACKTEST_INSTRUMENTS)
      .meta({ description: 'Pairs to trade, 1 to 20, each monitored or listed by the market (else 422)' }),
    timeframe: TimeframeSchema.optional().meta({ description: "Candles to decide on; default the strategy's TIMEFRAME" }),
    from: LabTimeSchema.meta({
      description: 'Start of the decision window (inclusive): a date (midnight UTC) or an RFC 3339 date-time',
      example: '2025-12-01',
    }),
    to: LabTimeSchema.meta({ description: 'End of the window (exclusive), after from, not in the future, at most 5 years after from', example: '2025-12-05' }),
    rules: LabRuleOverridesSchema.optional(),
    initial_balance: z.number().gt(0).max(1e12).optional().meta({ description: 'Starting balance in the account currency; default PAPER_BALANCE' }),
    leverage: z.number().int().min(1).max(1000).optional().meta({
      description:
        'The account’s leverage, 1 to 1000; default PAPER_LEVERAGE. An entry whose margin (lots × contract size × the base currency in USD / leverage) does not fit the free margin is skipped (insufficient_margin)',
    }),
    fill_model: FillModelRequestSchema.optional(),
    source: LabSourceSchema.optional().meta({
      description:
        "The candles to run on. stored: the market-data service's candle store (`npm run data -- import` or `download`; MARKET_DATA_URL), 422 CANDLES_NOT_COVERED naming the missing ranges when it does not hold the range; venue: the market-data service's history of its feed; simulated: the strategy's own simulated market (SIM_SEED). Default: stored when the store holds any candles of the pairs, else the desk's market (venue with MARKET_DATA_URL, else simulated)",
    }),
    name: z.string().trim().min(1).max(100).optional().meta({ description: 'A label for lists' }),
  })
  .meta({ id: 'BacktestRequest' });
export type BacktestRequest = z.infer<typeof BacktestRequestSchema>;

/** POST /backtests and POST /sweeps: the job is queued. */
export const LabJobCreatedSchema = z
  .object({ id: z.string().meta({ description: 'GET /backtests/{id} (or /sweeps/{id}) follows it' }) })
  .meta({ id: 'LabJobCreated' });
export type LabJobCreated = z.infer<typeof LabJobCreatedSchema>;

export const LAB_JOB_STATUSES = ['queued', 'running', 'done', 'failed', 'cancelled'] as const;
export const LabJobStatusSchema = z.enum(LAB_JOB_STATUSES).meta({
  description: 'queued: waiting for a worker; running; done: results readable; failed: see error; cancelled: DELETE while queued or running',
});
export type LabJobStatus = z.infer<typeof LabJobStatusSchema>;

/** Why a job failed. */
export const LabJobErrorSchema = z
  .object({
    code: z.string().meta({
      description:
        'INTERRUPTED (the process stopped while it ran), CANDLES_UNAVAILABLE (the market could not give the history), SYMBOL_TERMS_UNAVAILABLE (the venue could not give the volume terms sizing by risk reads), FAILED',
    }),
    message: z.string(),
  })
  .meta({ id: 'LabJobError' });
export type LabJobError = z.infer<typeof LabJobErrorSchema>;

/** What a backtest ran with: the request with every default filled in. */
export const BacktestSettingsSchema = z
  .object({
    instruments: z.array(z.string()),
    timeframe: TimeframeSchema,
    from: Timestamp,
    to: Timestamp,
    rules: LabRulesSchema,
    initial_balance: z.number(),
    leverage: z.number().int().optional().meta({ description: 'The account’s leverage; absent on a backtest run before issue 26 (no margin held)' }),
    fill_model: FillModelSchema,
    source: LabSourceSchema.optional().meta({ description: 'The candles it runs on (see BacktestRequest); absent on a backtest run before issue 26' }),
    account_currency: z.string().meta({ description: 'Currency of balances and P/L (the paper account’s, USD)' }),
    warmup_candles: z.number().int().meta({ description: 'Candles read before from to warm the indicators up (no decisions on them)' }),
  })
  .meta({ id: 'BacktestSettings' });
export type BacktestSettings = z.infer<typeof BacktestSettingsSchema>;

/** GET /lab/defaults: what a backtest takes for each setting its request leaves out. */
export const LabDefaultsSchema = z
  .object({
    timeframe: TimeframeSchema.meta({ description: "The strategy's TIMEFRAME" }),
    rules: LabRulesSchema.meta({ description: 'The live rule settings (the strategy’s config)' }),
    initial_balance: z.number().meta({ description: 'PAPER_BALANCE' }),
    leverage: z.number().int().meta({ description: 'PAPER_LEVERAGE' }),
    account_currency: z.string().meta({ description: 'Currency of balances and P/L (USD)' }),
    volume_lots: z.number().meta({ description: 'TRADE_VOLUME: the lots of each trade' }),
  })
  .meta({ id: 'LabDefaults' });
export type LabDefaults = z.infer<typeof LabDefaultsSchema>;

/** A run's figures, overall or for one pair. Sharpe and Sortino from daily returns (services/strategy/README.md). */
export const LabMetricsSchema = z
  .object({
    net_profit: z.number(),
    trade_count: z.number().int(),
    win_rate: z.number().meta({ description: 'Winning trades (P/L > 0) / trades, 0..1; 0 without trades' }),
    profit_factor: z.number().nullable().meta({ description: 'Gross profit / gross loss; null without a losing trade' }),
    expectancy: z.number().meta({ description: 'Mean P/L per trade; 0 without trades' }),
    average_r: z.number().meta({ description: 'Mean R multiple; 0 without trades' }),
    max_drawdown: z.number().meta({ description: 'Largest fall of the equity from a running peak, in the account currency' }),
    max_drawdown_percent: z.number().meta({ description: 'The same as a percentage of that peak, 0..100' }),
    sharpe: z
      .number()
      .nullable()
      .meta({ description: 'Annualised (× √252) mean / sample stdev of daily returns, risk-free 0; null with fewer than 2 days or no variation' }),
    sortino: z.number().nullable().meta({ description: 'Annualised mean / downside deviation of daily returns; null with fewer than 2 days or no losing day' }),
    cagr: z.number().nullable().meta({ description: '(final / initial)^(1 / years of the window) − 1' }),
    exposure: z.number().meta({ description: "Fraction of the window's candle time with a position open, 0..1" }),
    longest_losing_streak: z.number().int(),
    gross_profit: z.number(),
    gross_loss: z.number(),
    final_equity: z.number(),
  })
  .meta({ id: 'LabMetrics' });
export type LabMetrics = z.infer<typeof LabMetricsSchema>;

/**
 * Why the lab left a signal untraded (services/strategy/README.md "Risk in the lab"): the pair's
 * position (open, or a signal already waiting), stops a broker would refuse at the fill, each
 * limit of @fxdesk/trading's RiskBook (a halt counted under what halted it), the sizing by risk
 * (riskLots' skips), a margin the free margin cannot hold at the account's leverage, and a signal of
 * the last candle, which has no next open to enter at.
 */
export const LAB_SKIP_REASONS = [
  'position_open',
  'invalid_stops',
  'max_open_trades',
  'currency_exposure',
  'cooldown',
  'daily_loss_limit',
  'max_drawdown',
  'volume_rounds_to_zero',
  'volume_below_minimum',
  'no_risk_at_stop',
  'insufficient_margin',
  'end_of_data',
] as const;
export type LabSkipReason = (typeof LAB_SKIP_REASONS)[number];

/** Signals skipped, by reason; the reasons sum to the backtest's skipped_signals (or the pair's share of it). */
export const LabSkipsSchema = z
  .object(Object.fromEntries(LAB_SKIP_REASONS.map((reason) => [reason, z.number().int()])) as Record<LabSkipReason, z.ZodNumber>)
  .meta({ id: 'LabSkips' });
export type LabSkips = z.infer<typeof LabSkipsSchema>;

export const BacktestMetricsSchema = z
  .object({
    overall: LabMetricsSchema,
    per_pair: z.record(z.string(), LabMetricsSchema),
    skipped: z
      .object({ overall: LabSkipsSchema, per_pair: z.record(z.string(), LabSkipsSchema) })
      .optional()
      .meta({ description: 'The signals each limit (and each other reason) skipped, overall and by pair; absent on a backtest run before issue 24' }),
  })
  .meta({ id: 'BacktestMetrics' });
export type BacktestMetrics = z.infer<typeof BacktestMetricsSchema>;

const JobTimes = {
  created_at: Timestamp,
  started_at: Timestamp.nullable().meta({ description: 'When a worker took it; null while queued' }),
  finished_at: Timestamp.nullable().meta({ description: 'When it was done, failed or cancelled' }),
};

export const LAB_DATA_SOURCES = LAB_SOURCES;
/** What a backtest ran on: where its candles came from and a digest of them, so a result can be reproduced. */
export const LabDataSchema = z
  .object({
    source: z.enum(LAB_DATA_SOURCES).meta({
      description:
        "stored: the market-data service's candle store; simulated: the strategy's own simulated market (SIM_SEED); venue: the market-data service's history of its feed (MARKET_DATA_URL; its BROKER, the simulated one by default)",
    }),
    sha256: z.string().meta({
      description:
        'SHA-256 of the candles loaded (each pair, traded then converting, its symbol and its time, open, high, low, close, volume and spread as 64-bit floats)',
    }),
    candles: z.number().int().meta({ description: 'Candles loaded, warm-up and conversion pairs included' }),
  })
  .meta({ id: 'LabData' });
export type LabData = z.infer<typeof LabDataSchema>;

/** GET /backtests/{id}. */
export const BacktestSchema = z
  .object({
    id: z.string(),
    name: z.string().nullable(),
    status: LabJobStatusSchema,
    progress: z.number().min(0).max(1).meta({ description: 'Loading the candles counts for the first part, then the run' }),
    ...JobTimes,
    error: LabJobErrorSchema.nullable(),
    settings: BacktestSettingsSchema,
    candles: z.number().int().nullable().meta({ description: 'Candles of the window processed, all pairs together; null until done' }),
    signals: z.number().int().meta({ description: 'Signals the rule gave in the window' }),
    skipped_signals: z.number().int().meta({
      description:
        'Signals not traded: a position already open on the pair, a stop on the wrong side of the fill, a risk limit, a size that rounds to zero; by reason in metrics.skipped',
    }),
    metrics: BacktestMetricsSchema.nullable().meta({ description: 'null until done' }),
    data: LabDataSchema.nullable().meta({ description: 'The candles it ran on; null until done, and on a backtest run before issue 26' }),
    sweep_id: z.string().nullable().meta({ description: 'The sweep it belongs to' }),
  })
  .meta({ id: 'Backtest' });
export type Backtest = z.infer<typeof BacktestSchema>;

/** One backtest in GET /backtests: the record without its per-pair metrics. */
export const BacktestSummarySchema = BacktestSchema.omit({ metrics: true })
  .extend({ metrics: z.object({ overall: LabMetricsSchema }).nullable().meta({ description: 'The overall figures; null until done' }) })
  .meta({ id: 'BacktestSummary' });
export type BacktestSummary = z.infer<typeof BacktestSummarySchema>;

const Cursor = z
  .string()
  .regex(/^[0-9]{1,15}$/, { message: 'not a cursor this service issued' })
  .optional()
  .meta({ description: 'next_cursor of the previous page, as given' });
const NextCursor = z.string().nullable().meta({ description: 'Pass as cursor (with the same filters) for the next page; null on the last page' });
const pageLimit = (max: number, fallback: number) =>
  z.coerce
    .number()
    .int()
    .min(1)
    .max(max)
    .default(fallback)
    .meta({ description: `Items per page, 1 to ${max}; default ${fallback}` });

/** GET /backtests query. */
export const BacktestListQuerySchema = z.strictObject({
  limit: pageLimit(200, 50),
  cursor: Cursor,
  sweep_id: z.string().max(64).optional().meta({ description: "A sweep's backtests only; without it, the backtests started alone" }),
});
export type BacktestListQuery = z.output<typeof BacktestListQuerySchema>;

/** GET /backtests: newest first. */
export const BacktestListSchema = z.object({ backtests: z.array(BacktestSummarySchema), next_cursor: NextCursor }).meta({ id: 'BacktestList' });
export type BacktestList = z.infer<typeof BacktestListSchema>;

/** Path of /backtests/{id}… and /sweeps/{id}: any text; an id the lab does not know is 404. */
export const LabJobParamsSchema = z.object({ id: z.string().max(64).meta({ description: 'The id POST answered' }) });

export const TRADE_SIDES = ['LONG', 'SHORT'] as const;
/**
 * Why a trade closed: its stop (`stop`; `break_even` or `trailing` once an exit rule moved it),
 * its target, a time exit, an opposite signal, the end of a backtest's data; `manual` and
 * `flatten` are a trader's closes (the live journal's).
 */
export const EXIT_REASONS = ['stop', 'target', 'break_even', 'trailing', 'time', 'opposite_signal', 'end_of_data', 'manual', 'flatten'] as const;
export type ExitReason = (typeof EXIT_REASONS)[number];

/** One trade of a backtest. */
export const LabTradeSchema = z
  .object({
    instrument: z.string(),
    side: z.enum(TRADE_SIDES),
    signal_time: Timestamp.meta({ description: 'Open time of the candle the signal was decided on' }),
    entry_time: Timestamp.meta({ description: 'Open time of the next candle, where it entered' }),
    entry_price: z.number(),
    exit_time: Timestamp.meta({ description: 'Open time of the candle it left in' }),
    exit_price: z.number(),
    exit_reason: z.enum(EXIT_REASONS).meta({
      description:
        'stop, target; break_even or trailing: the stop an exit rule moved; time, opposite_signal: closed at the next open by an exit rule; end_of_data: open at the end of the range, closed at its last close',
    }),
    volume_lots: z.number(),
    pnl: z.number().meta({ description: 'In the account currency, commission included' }),
    r_multiple: z.number().meta({ description: 'P/L over the money at risk to the stop' }),
    duration_seconds: z.number(),
    commission: z.number(),
  })
  .meta({ id: 'LabTrade' });
export type LabTrade = z.infer<typeof LabTradeSchema>;

/** GET /backtests/{id}/trades query. */
export const BacktestTradesQuerySchema = z.strictObject({
  limit: pageLimit(1000, 100),
  cursor: Cursor,
  instrument: InstrumentNameSchema.optional().meta({ description: "One pair's trades only" }),
});
export type BacktestTradesQuery = z.output<typeof BacktestTradesQuerySchema>;

/** GET /backtests/{id}/trades: in entry order. */
export const BacktestTradesSchema = z.object({ trades: z.array(LabTradeSchema), next_cursor: NextCursor }).meta({ id: 'BacktestTrades' });
export type BacktestTrades = z.infer<typeof BacktestTradesSchema>;

/**
 * GET /backtests/{id}/candles query: one pair's candles of the run in [from, to) (the run's
 * window when absent), at most `limit` of them (at most CHART_CANDLES, `chartCandles`), the
 * newest before `to` when the range holds more. The answer is a PairCandles (strategy.ts).
 */
export function backtestCandlesQuerySchema(chartCandles: number) {
  return z.strictObject({
    instrument: InstrumentNameSchema.meta({ description: "One of the backtest's instruments" }),
    from: LabTimeFormSchema.optional().meta({
      description: "Start of the range (inclusive): a date (midnight UTC) or an RFC 3339 date-time; default the run's from",
      example: '2026-01-01',
    }),
    to: LabTimeFormSchema.optional().meta({ description: "End of the range (exclusive), after from; default the run's to", example: '2026-02-01' }),
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .max(chartCandles)
      .default(Math.min(500, chartCandles))
      .meta({ description: `Most candles to answer, the newest before to; at most CHART_CANDLES (${chartCandles})` }),
  });
}
export type BacktestCandlesQuery = z.output<ReturnType<typeof backtestCandlesQuerySchema>>;

/** A point of the equity curve: marked to market at a candle. */
export const EquityPointSchema = z
  .object({
    time: Timestamp,
    equity: z.number(),
    drawdown: z.number().meta({ description: 'Below the highest equity so far, in the account currency (≥ 0)' }),
    drawdown_percent: z.number().meta({ description: 'The same as a percentage of that high' }),
  })
  .meta({ id: 'EquityPoint' });
export type EquityPoint = z.infer<typeof EquityPointSchema>;

/** GET /backtests/{id}/equity: at most 5,000 points (each bucket keeps its lowest equity) plus the first and last. */
export const BacktestEquitySchema = z.object({ points: z.array(EquityPointSchema) }).meta({ id: 'BacktestEquity' });
export type BacktestEquity = z.infer<typeof BacktestEquitySchema>;

// ── Sweeps ───────────────────────────────────────────────────────────────────────────────────

export const MAX_SWEEP_SETTINGS = 256;

/** Metrics a sweep can rank by: higher is better, except the drawdowns (lower); a null ranks last, ties keep the settings' order. */
export const RANK_METRICS = [
  'net_profit',
  'sharpe',
  'sortino',
  'profit_factor',
  'expectancy',
  'average_r',
  'win_rate',
  'cagr',
  'max_drawdown',
  'max_drawdown_percent',
] as const;
export const RankMetricSchema = z.enum(RANK_METRICS);
export type RankMetric = z.infer<typeof RankMetricSchema>;

/** Values to try per rule (the cartesian product of the lists, at most 256 settings). */
export const SweepGridSchema = z
  .strictObject(eachSetting((name) => z.array(ruleValueSchema(name)).min(1).max(MAX_SWEEP_SETTINGS).optional()))
  .meta({ id: 'SweepGrid' });
export type SweepGrid = z.infer<typeof SweepGridSchema>;

const RuleRange = (name: LabSettingName) =>
  z.strictObject({
    min: ruleValueSchema(name),
    max: ruleValueSchema(name),
    step: z.number().gt(0).optional().meta({ description: 'Values drawn on min + k × step only' }),
  });

/** A seeded random sample of settings within ranges. */
export const SweepRandomSchema = z
  .strictObject({
    samples: z.number().int().min(1).max(MAX_SWEEP_SETTINGS),
    ranges: z.strictObject(eachSetting((name) => RuleRange(name).optional())),
    seed: z
      .number()
      .int()
      .min(0)
      .max(2 ** 32 - 1)
      .default(1)
      .meta({ description: 'The same seed draws the same settings' }),
  })
  .meta({ id: 'SweepRandom' });
export type SweepRandom = z.infer<typeof SweepRandomSchema>;

/** Split [from, to) into consecutive windows, each an in-sample part followed by its out-of-sample part. */
export const WalkForwardSchema = z
  .strictObject({
    windows: z.number().int().min(1).max(20),
    in_sample_fraction: z.number().min(0.5).max(0.9).meta({ description: 'Share of each window chosen on; the rest is out-of-sample' }),
  })
  .meta({ id: 'WalkForward' });
export type WalkForward = z.infer<typeof WalkForwardSchema>;

/** Exactly one of grid or random, as JSON Schema for the OpenAPI document (the refinement below answers the requests). */
const ONE_OF_GRID_OR_RANDOM = { if: { required: ['grid'] }, then: { not: { required: ['random'] } }, else: { required: ['random'] } };

/** POST /sweeps body: exactly one of grid or random. */
export const SweepRequestSchema = z
  .strictObject({
    base: BacktestRequestSchema.meta({ description: 'The backtest each setting varies (its rules are the base the sweep overrides)' }),
    grid: SweepGridSchema.optional().meta({ description: 'Values to try per rule; give grid or random, not both', example: { risk_reward: [1.5, 2, 3] } }),
    random: SweepRandomSchema.optional().meta({ description: 'A seeded random sample within ranges; give grid or random, not both' }),
    rank_by: RankMetricSchema,
    walk_forward: WalkForwardSchema.optional(),
    name: z.string().trim().min(1).max(100).optional(),
  })
  .superRefine((sweep, ctx) => {
    if ((sweep.grid === undefined) === (sweep.random === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['grid'], message: 'give one of grid or random' });
      return;
    }
    if (sweep.grid !== undefined) {
      const lists = Object.values(sweep.grid).filter((values) => values !== undefined);
      const count = lists.reduce((product, values) => product * values.length, 1);
      if (lists.length === 0) ctx.addIssue({ code: 'custom', path: ['grid'], message: 'name at least one rule to vary' });
      else if (count > MAX_SWEEP_SETTINGS) ctx.addIssue({ code: 'custom', path: ['grid'], message: `${count} settings: at most ${MAX_SWEEP_SETTINGS}` });
    }
    if (sweep.random !== undefined) {
      const ranges = Object.entries(sweep.random.ranges);
      if (ranges.every(([, range]) => range === undefined))
        ctx.addIssue({ code: 'custom', path: ['random', 'ranges'], message: 'name at least one rule to vary' });
      for (const [name, range] of ranges) {
        if (range !== undefined && range.min > range.max)
          ctx.addIssue({ code: 'custom', path: ['random', 'ranges', name, 'max'], message: 'must not be below min' });
      }
    }
  })
  .meta({ id: 'SweepRequest', ...ONE_OF_GRID_OR_RANDOM });
export type SweepRequest = z.infer<typeof SweepRequestSchema>;
/** A sweep request as a client writes it (defaults left out). */
export type SweepRequestInput = z.input<typeof SweepRequestSchema>;

/** One setting of a sweep over the whole range, ranked. */
export const SweepResultSchema = z
  .object({
    rank: z.number().int().nullable().meta({ description: '1 is best; null until its backtest is done' }),
    rules: LabRulesSchema,
    backtest_id: z.string(),
    status: LabJobStatusSchema,
    metric: z.number().nullable().meta({ description: 'Its rank_by metric; null until done, or when the metric has no value' }),
  })
  .meta({ id: 'SweepResult' });
export type SweepResult = z.infer<typeof SweepResultSchema>;

const Range = z.object({ from: Timestamp, to: Timestamp });

/** One walk-forward window: the settings chosen on its in-sample part and how they did after. */
export const WalkForwardWindowSchema = z
  .object({
    index: z.number().int(),
    in_sample: Range,
    out_of_sample: Range,
    chosen: z
      .object({
        rules: LabRulesSchema,
        in_sample_metric: z.number().nullable(),
        out_of_sample_metric: z.number().nullable(),
        backtest_id: z.string().nullable().meta({ description: 'The out-of-sample backtest of the chosen settings' }),
      })
      .nullable()
      .meta({ description: 'null until every setting of the window has run in-sample' }),
  })
  .meta({ id: 'WalkForwardWindow' });
export type WalkForwardWindow = z.infer<typeof WalkForwardWindowSchema>;

export const WalkForwardResultSchema = z
  .object({
    windows: z.array(WalkForwardWindowSchema),
    out_of_sample_total: z
      .object({
        metric: z.number().nullable().meta({
          description:
            'The rank_by metric over the out-of-sample parts: the sum for net_profit, the worst window for drawdowns, the mean of the windows for ratios',
        }),
        net_profit: z.number().meta({ description: 'Sum of the out-of-sample net profits' }),
        trade_count: z.number().int(),
      })
      .nullable()
      .meta({ description: 'The chosen settings over every out-of-sample part; null until done' }),
  })
  .meta({ id: 'WalkForwardResult' });
export type WalkForwardResult = z.infer<typeof WalkForwardResultSchema>;

/** GET /sweeps/{id}. */
export const SweepSchema = z
  .object({
    id: z.string(),
    name: z.string().nullable(),
    status: LabJobStatusSchema,
    progress: z.number().min(0).max(1),
    ...JobTimes,
    error: LabJobErrorSchema.nullable(),
    settings: z.object({
      base: BacktestSettingsSchema,
      grid: SweepGridSchema.nullable(),
      random: SweepRandomSchema.nullable(),
      rank_by: RankMetricSchema,
      walk_forward: WalkForwardSchema.nullable(),
    }),
    settings_count: z.number().int().meta({ description: 'Settings tried (the grid’s product or the samples)' }),
    results: z.array(SweepResultSchema).meta({ description: 'Every setting over the whole range, best first by rank_by' }),
    walk_forward: WalkForwardResultSchema.nullable(),
  })
  .meta({ id: 'Sweep' });
export type Sweep = z.infer<typeof SweepSchema>;

/** One sweep in GET /sweeps: without its results. */
export const SweepSummarySchema = SweepSchema.omit({ results: true, walk_forward: true })
  .extend({ best: SweepResultSchema.nullable().meta({ description: 'The top result so far' }) })
  .meta({ id: 'SweepSummary' });
export type SweepSummary = z.infer<typeof SweepSummarySchema>;

/** GET /sweeps query. */
export const SweepListQuerySchema = z.strictObject({ limit: pageLimit(200, 50), cursor: Cursor });
export type SweepListQuery = z.output<typeof SweepListQuerySchema>;

/** GET /sweeps: newest first. */
export const SweepListSchema = z.object({ sweeps: z.array(SweepSummarySchema), next_cursor: NextCursor }).meta({ id: 'SweepList' });
export type SweepList = z.infer<typeof SweepListSchema>;
