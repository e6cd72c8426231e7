import { z } from 'zod';
import { commonSettings, databaseSettings, envBoolean, envInt, envList, venueMixProblem, VENUES } from '@fxdesk/core';
import { parseFaultSpec, requireVenueSettings, venueSettings } from '@fxdesk/broker';
import { isDecimalString } from '@fxdesk/primitives';
import { BrokerSymbolSchema, SourceSlugSchema } from '@fxdesk/schemas';

/** The simulated market's majors and gold: what the desk trades out of the box (exact case). */
export const DEFAULT_ALLOWED_SYMBOLS = ['EURUSD', 'GBPUSD', 'USDJPY', 'USDCHF', 'AUDUSD', 'USDCAD', 'NZDUSD', 'XAUUSD'];

/** Four provider slugs; `fxdesk-strategy` is the desk's own strategy service. */
export const DEFAULT_ALLOWED_SIGNAL_SOURCES = ['fxdesk-strategy', 'tradingview', 'manual', 'webhook'];

const symbolList = envList(DEFAULT_ALLOWED_SYMBOLS).pipe(z.array(BrokerSymbolSchema).min(1, { message: 'name at least one symbol' }));
const sourceList = envList(DEFAULT_ALLOWED_SIGNAL_SOURCES).pipe(z.array(SourceSlugSchema).min(1, { message: 'name at least one source' }));

/** A positive decimal (lots, money), kept as the string for exact comparisons. */
const positiveDecimal = (defaultValue: string) =>
  z
    .string()
    .trim()
    .refine((v) => isDecimalString(v) && /[1-9]/.test(v) && !v.startsWith('-'), { message: 'expected a positive decimal like "10"' })
    .prefault(defaultValue);

/** `method:kind[:times]` items, comma-separated, parsed by the simulated terminal's own parser. */
const faultSpec = z.string().transform((text, ctx) => {
  try {
    return parseFaultSpec(text);
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: (err as Error).message });
    return z.NEVER;
  }
});

/** The development value of API_KEY, taken outside production when it is unset (with a warning). */
export const EXECUTION_DEV_SECRETS = { API_KEY: 'dev-execution-key' };

/** Every setting of the execution service; `.env.example` and the README document each one. */
export const ExecutionConfigSchema = z
  .object({
    ...commonSettings(8000, '127.0.0.1'),
    API_KEY: z.string().min(8, { message: 'must be at least 8 characters' }),
    TRADING_ENABLED: envBoolean(false),
    ALLOWED_SYMBOLS: symbolList,
    ALLOWED_SIGNAL_SOURCES: sourceList,
    MAXIMUM_VOLUME: positiveDecimal('10'),
    MAX_DEVIATION_POINTS: envInt(50, { min: 0, max: 100_000 }),
    MAX_CANDLES_LOOKBACK: envInt(1000, { min: 1, max: 100_000 }),
    SIGNAL_MAX_AGE_SECONDS: envInt(60, { min: 1 }),
    SIGNAL_FUTURE_TOLERANCE_SECONDS: envInt(5, { min: 0 }),
    MAGIC_NUMBER: envInt(880_001, { min: 0, max: 2 ** 31 - 1 }),
    ORDER_SEND_TIMEOUT_MS: envInt(15_000, { min: 100, max: 600_000 }),
    PRE_SEND_TIMEOUT_MS: envInt(15_000, { min: 100, max: 600_000 }),
    /** postgres://… keeps the signals in PostgreSQL, for several replicas on one database; unset: SQLite in DATA_DIR. */
    /** DATABASE_URL, and REPLICA_ID: this replica's name on the store, whose own claims are the ones it recovers after a restart. */
    ...databaseSettings(),
    SIM_TERMINAL_FAULTS: faultSpec.optional(),
    SIM_STARTING_BALANCE: positiveDecimal('100000'),
    /** OANDA_*, METAAPI_*, CTRADER_*: each venue's settings, the same in every service; the BROKER names' required ones. */
    ...venueSettings,
    /**
     * The stack's venues (README "Trading your own account"), read to refuse real orders decided
     * on another source's prices: VENUE, and the other roles' brokers. Unset (the service alone,
     * its signals from anywhere): no check.
     */
    VENUE: z.enum(VENUES).optional(),
    MARKET_DATA_BROKER: z.string().optional(),
    ACCOUNT_BROKER: z.string().optional(),
    ALLOW_MIXED_VENUES: envBoolean(false),
  })
  .superRefine((config, ctx) => {
    if (config.VENUE !== undefined || config.MARKET_DATA_BROKER !== undefined || config.ACCOUNT_BROKER !== undefined) {
      const mixed = venueMixProblem({
        VENUE: config.VENUE,
        EXECUTION_BROKER: config.BROKER,
        MARKET_DATA_BROKER: config.MARKET_DATA_BROKER,
        ACCOUNT_BROKER: config.ACCOUNT_BROKER,
        ALLOW_MIXED_VENUES: String(config.ALLOW_MIXED_VENUES),
      });
      if (mixed) ctx.addIssue({ code: 'custom', path: ['BROKER'], message: mixed });
    }
    requireVenueSettings(config.BROKER, config, ctx);
  });

export type ExecutionConfig = z.output<typeof ExecutionConfigSchema>;
