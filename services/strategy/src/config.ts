import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { commonSettings, databaseSettings, envBoolean, envInt, envList, envNumber } from '@fxdesk/core';
import { isDecimalString } from '@fxdesk/primitives';
import { BrokerSymbolSchema, InstrumentNameSchema, SourceSlugSchema, TimeframeSchema } from '@fxdesk/schemas';
import { NOTIFICATION_CHANNELS } from '@fxdesk/client';
import { RISK_BOUNDS } from './risk-settings.js';
import { EXIT_RULE_BOUNDS, RULE_BOUNDS } from './rules.js';

/** `EUR_USD=EURUSD.m,XAU_USD=GOLD`: instrument → broker symbol, for names that differ from the default. */
const symbolMap = z
  .string()
  .transform((text, ctx) => {
    const map: Record<string, string> = {};
    for (const item of text
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s.length > 0)) {
      const eq = item.indexOf('=');
      const instrument = item.slice(0, eq).trim();
      const symbol = item.slice(eq + 1).trim();
      if (eq < 0 || !InstrumentNameSchema.safeParse(instrument).success || !BrokerSymbolSchema.safeParse(symbol).success) {
        ctx.addIssue({ code: 'custom', message: `expected INSTRUMENT=SYMBOL items like EUR_USD=EURUSD.m, got "${item}"` });
        return z.NEVER;
      }
      map[instrument] = symbol;
    }
    return map;
  })
  .prefault('');

const instrumentList = envList(['EUR_USD', 'GBP_USD', 'USD_JPY', 'AUD_USD']).pipe(
  z.array(InstrumentNameSchema).min(1, { message: 'name at least one instrument' }),
);

const channelList = envList(['CHAT_APP']).pipe(
  z.array(z.enum(NOTIFICATION_CHANNELS, { message: `expected channels among ${NOTIFICATION_CHANNELS.join(', ')}` })).min(1),
);

const lots = z
  .string()
  .trim()
  .refine((v) => isDecimalString(v) && !v.startsWith('-') && /[1-9]/.test(v), { message: 'expected a positive decimal like "0.10"' })
  .prefault('0.10');

/** Whether Intl knows the zone (Node's full ICU knows every IANA zone). */
function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** Where `npm run build -w @fxdesk/console` writes the console (the same from src/ and from the compiled dist/). */
const CONSOLE_BUILD = fileURLToPath(new URL('../../../packages/console/dist', import.meta.url));

/** Every setting of the strategy service; `.env.example` and the README document each one. */
export const StrategyConfigSchema = z
  .object({
    ...commonSettings(8000),
    INSTRUMENTS: instrumentList,
    TIMEFRAME: TimeframeSchema.default('M5'),
    RATE_LIMIT_GET_PER_MINUTE: envInt(60, { min: 1 }),
    RATE_LIMIT_POST_PER_MINUTE: envInt(10, { min: 1 }),
    SYMBOL_MAP: symbolMap,

    // The signal rule (bounds: RULE_BOUNDS, shared with the lab's overrides).
    MIN_CONFLUENCE: envInt(3, RULE_BOUNDS.minConfluence),
    RISK_REWARD: envNumber(2, RULE_BOUNDS.riskReward),
    MIN_STOP_ATR: envNumber(0.5, RULE_BOUNDS.minStopAtr),
    SUPERTREND_ATR_PERIOD: envInt(10, RULE_BOUNDS.supertrendAtrPeriod),
    SUPERTREND_MULTIPLIER: envNumber(3, RULE_BOUNDS.supertrendMultiplier),
    VOLUME_PROFILE_WINDOW: envInt(100, RULE_BOUNDS.volumeProfileWindow),
    /** Candles a fair value gap stays open at most, its confirming candle included. */
    FVG_MAX_AGE: envInt(100, RULE_BOUNDS.fvgMaxAge),

    // The exit rules, run at each candle close by paper, the lab and (later) live; 0 or false is off (bounds: EXIT_RULE_BOUNDS).
    /** Move the stop to the entry once a close is this many R in profit. */
    BREAK_EVEN_R: envNumber(0, EXIT_RULE_BOUNDS.breakEvenR),
    /** Trail the stop this many of the Supertrend's ATRs behind each close. */
    TRAILING_STOP_ATR: envNumber(0, EXIT_RULE_BOUNDS.trailingStopAtr),
    /** Trail the stop this many R behind each close. */
    TRAILING_STOP_R: envNumber(0, EXIT_RULE_BOUNDS.trailingStopR),
    /** Close at the next open after this many candles held. */
    TIME_EXIT_CANDLES: envInt(0, EXIT_RULE_BOUNDS.timeExitCandles),
    /** A signal of the other side closes the position at the next open (and enters there). */
    EXIT_ON_OPPOSITE_SIGNAL: envBoolean(false),

    // Risk before every entry (issue 24), the same in live, paper and the lab (risk-settings.ts; bounds: RISK_BOUNDS); 0 or false is off.
    /** fixed: TRADE_VOLUME lots (paper and lab: their fixed lots); risk: the lots that lose RISK_PERCENT of the equity at the stop. */
    SIZING: z.enum(['fixed', 'risk'], { message: 'expected fixed or risk' }).default('fixed'),
    RISK_PERCENT: envNumber(1, RISK_BOUNDS.riskPercent),
    /** At most one open position per pair. */
    ONE_POSITION_PER_PAIR: envBoolean(true),
    MAX_OPEN_TRADES: envInt(0, RISK_BOUNDS.maxOpenTrades),
    /** Net lots long or short in any one currency, summed across pairs. */
    MAX_CURRENCY_EXPOSURE_LOTS: envNumber(0, RISK_BOUNDS.maxCurrencyExposureLots),
    /** % of the trading day's starting equity; reaching it halts the desk until a resume. */
    DAILY_LOSS_LIMIT: envNumber(0, RISK_BOUNDS.dailyLossLimitPercent),
    /** % below the equity's peak; reaching it halts the desk until a resume. */
    MAX_DRAWDOWN: envNumber(0, RISK_BOUNDS.maxDrawdownPercent),
    /** After this many losing trades in a row, no entry for COOLDOWN_CANDLES candles. */
    COOLDOWN_LOSSES: envInt(0, RISK_BOUNDS.cooldownLosses),
    COOLDOWN_CANDLES: envInt(0, RISK_BOUNDS.cooldownCandles),
    /** The trading day starts at this hour of RISK_DAY_TIME_ZONE: 17:00 New York as the FX market counts it. */
    RISK_DAY_ROLL_HOUR: envInt(17, { min: 0, max: 23 }),
    RISK_DAY_TIME_ZONE: z.string().trim().refine(isTimeZone, { message: 'expected an IANA time zone like America/New_York' }).default('America/New_York'),
    /** A halt also closes everything the strategy opened (the flatten of POST /stop with close_positions). */
    HALT_FLATTEN: envBoolean(false),

    // Data.
    WARMUP_CANDLES: envInt(300, { min: 1, max: 1000 }),
    CANDLE_CLOSE_DELAY_MS: envInt(1500, { min: 0, max: 60_000 }),
    STALE_AFTER_SECONDS: envInt(120, { min: 1, max: 86_400 }),
    /** Start again, at process start, what was running when the process last stopped. */
    RESUME_ON_START: envBoolean(true),
    /** At the first start on a DATA_DIR (no run ever recorded), start on INSTRUMENTS with dry_run false. */
    AUTO_START: envBoolean(false),
    CHART_CANDLES: envInt(500, { min: 10, max: 5000 }),

    // Trading and announcing.
    TRADE_VOLUME: lots,
    SIGNAL_SOURCE: SourceSlugSchema.default('fxdesk-strategy'),
    NOTIFICATION_CHANNELS: channelList,
    PAPER_BALANCE: envNumber(100_000, { min: 0 }),
    PAPER_LEVERAGE: envInt(30, { min: 1, max: 1000 }),
    /** The paper account's fill model, the lab's (a backtest's fill_model defaults): the spread of candles without their own, in points; unset: the fill model's 10. */
    PAPER_SPREAD_POINTS: z
      .string()
      .regex(/^\d+(\.\d+)?$/, { message: 'expected a number' })
      .transform(Number)
      .pipe(z.number().max(100_000))
      .optional(),
    /** Points against the paper trade on its entry, a stop and a market close. */
    PAPER_SLIPPAGE_POINTS: envNumber(0, { min: 0, max: 100_000 }),
    /** USD per lot per round turn, booked at the exit. */
    PAPER_COMMISSION_PER_LOT: envNumber(0, { min: 0, max: 100_000 }),
    /** Seconds between two reads of the execution service's deals for the live journal (the leader's). */
    LIVE_JOURNAL_SYNC_SECONDS: envInt(60, { min: 5, max: 3600 }),
    /** Announce each fill: a live order the execution service filled, a paper trade entered. */
    ANNOUNCE_FILLS: envBoolean(true),
    /** Announce each exit the journal records, live and paper, with its P/L, R and reason. */
    ANNOUNCE_EXITS: envBoolean(true),
    /** Announce each UTC day's summary (trades, wins, P/L) of each account that closed a trade that day. */
    ANNOUNCE_DAILY_SUMMARY: envBoolean(true),
    /** The hour (UTC) of the next day at which a day's summary goes (then 2 × LIVE_JOURNAL_SYNC_SECONDS + 1 minute later). */
    DAILY_SUMMARY_UTC_HOUR: envInt(0, { min: 0, max: 23 }),

    // Replicas (issue 15).
    /**
     * DATABASE_URL: postgres://… keeps the strategy's records (signals, paper trades, the run, console sessions) and the lab's in PostgreSQL,
     * for several replicas on one database; unset: SQLite in DATA_DIR. REPLICA_ID: this replica's name in the election and on the lab jobs it leases.
     */
    ...databaseSettings(),
    /** With DATABASE_URL: how often a follower tries to take the lead, and the leader checks that it still holds it. */
    LEADER_CHECK_MS: envInt(2000, { min: 100, max: 10_000 }),

    // Downstream services.
    MARKET_DATA_URL: z.url().optional(),
    MARKET_DATA_API_KEY: z.string().min(1).optional(),
    EXECUTION_URL: z.url().optional(),
    EXECUTION_API_KEY: z.string().min(1).optional(),
    ACCOUNT_URL: z.url().optional(),
    ACCOUNT_API_KEY: z.string().min(1).optional(),
    NOTIFICATION_URL: z.url().optional(),
    NOTIFICATION_API_KEY: z.string().min(1).optional(),
    DOWNSTREAM_TIMEOUT_MS: envInt(5000, { min: 100, max: 120_000 }),
    DOWNSTREAM_RETRIES: envInt(3, { min: 0, max: 10 }),
    ACCOUNT_REFRESH_SECONDS: envInt(5, { min: 0, max: 3600 }),

    // The console (/ui, /console/*, /events).
    /** Unset: the console answers loopback clients only (development). Required in production. */
    CONSOLE_PASSWORD: z.string().min(12, { message: 'must be at least 12 characters' }).optional(),
    CONSOLE_SESSION_HOURS: envInt(12, { min: 1, max: 720 }),
    CONSOLE_LOGIN_PER_MINUTE: envInt(5, { min: 1, max: 1000 }),
    /** The console's own reads (/console/* GETs, /events), per session (per client IP without a login), apart from spec 000's. */
    CONSOLE_READS_PER_MINUTE: envInt(600, { min: 10, max: 100_000 }),
    CONSOLE_DIST_DIR: z.string().min(1).default(CONSOLE_BUILD),
    EVENTS_REPLAY: envInt(1000, { min: 10, max: 100_000 }),
    EVENTS_MAX_CLIENTS: envInt(100, { min: 1, max: 10_000 }),

    // The strategy lab (/backtests, /sweeps).
    /** Worker threads that run backtests, off the event loop; default the machine's cores. */
    LAB_WORKERS: envInt(os.availableParallelism(), { min: 1, max: 64 }),
    /** Backtests and sweeps waiting for their turn; one more is refused (503 LAB_QUEUE_FULL). */
    LAB_MAX_QUEUE: envInt(20, { min: 1, max: 1000 }),
    /** Candles one job may hold in memory (all its pairs, warm-up included); a longer request is refused (422). */
    LAB_MAX_CANDLES: envInt(2_000_000, { min: 10_000, max: 50_000_000 }),
  })
  .superRefine((c, ctx) => {
    // Fewer history candles than the volume profile's window would leave every pair warming up
    // for hours after a start.
    if (c.WARMUP_CANDLES < c.VOLUME_PROFILE_WINDOW) {
      ctx.addIssue({ code: 'custom', path: ['WARMUP_CANDLES'], message: `must be at least VOLUME_PROFILE_WINDOW (${c.VOLUME_PROFILE_WINDOW})` });
    }
    // A gap's value reads FVG_MAX_AGE + 2 candles: the warm-up must hold them all, or a run's
    // first decisions would depend on where its history began.
    if (c.FVG_MAX_AGE > c.WARMUP_CANDLES - 2) {
      ctx.addIssue({ code: 'custom', path: ['FVG_MAX_AGE'], message: `must be at most WARMUP_CANDLES − 2 (${c.WARMUP_CANDLES - 2})` });
    }
    // The console reads the other services with their keys: in production it is never open.
    if (c.NODE_ENV === 'production' && c.CONSOLE_PASSWORD === undefined) {
      ctx.addIssue({ code: 'custom', path: ['CONSOLE_PASSWORD'], message: 'is required when NODE_ENV=production (the console needs a login there)' });
    }
  });

export type StrategyConfig = z.output<typeof StrategyConfigSchema>;
