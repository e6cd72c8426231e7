import { z } from 'zod';
import { CURRENCIES, requireVenueSettings, venueSettings } from '@fxdesk/broker';
import { commonSettings, databaseSettings, envInt } from '@fxdesk/core';

/** Currencies the simulated market prices, so a simulated account can be kept in them (not gold). */
const SIM_CURRENCIES = CURRENCIES.map((c) => c.code).filter((code) => code !== 'XAU') as [string, ...string[]];

/** The development value of INTERNAL_API_KEY, taken outside production when it is unset (with a warning). */
export const ACCOUNT_DEV_SECRETS = { INTERNAL_API_KEY: 'dev-account-key' };

/** Every setting of the account service; `.env.example` and the README document each one. */
export const AccountConfigSchema = z
  .object({
    ...commonSettings(3000),
    INTERNAL_API_KEY: z.string().min(8, { message: 'must be at least 8 characters' }),
    /** How long the instrument list is served from memory before the broker is asked again. */
    INSTRUMENTS_CACHE_TTL_SECONDS: envInt(300, { min: 0, max: 86_400 }),
    /** Timeout of every broker call, whatever the venue. */
    BROKER_TIMEOUT_MS: envInt(10_000, { min: 100, max: 120_000 }),
    /** Newest snapshots kept in the database; older ones are deleted as new ones arrive (0: keep all). */
    SNAPSHOT_RETENTION: envInt(100_000, { min: 0 }),
    /** postgres://… keeps the snapshots in PostgreSQL, for several replicas on one database; unset: SQLite in DATA_DIR. */
    DATABASE_URL: databaseSettings().DATABASE_URL,
    SIM_ACCOUNT_BALANCE: z
      .string()
      .regex(/^\d{1,15}(\.\d{1,4})?$/, { message: 'expected a non-negative decimal like 100000 or 2500.50' })
      .default('100000'),
    SIM_ACCOUNT_CURRENCY: z.enum(SIM_CURRENCIES, { message: `expected one of the simulated market's currencies: ${SIM_CURRENCIES.join(' ')}` }).default('USD'),
    /** OANDA_*, METAAPI_*, CTRADER_*: each venue's settings, the same in every service; the BROKER names' required ones. */
    ...venueSettings,
    /** With BROKER=simulated: the execution service whose terminal's account is read (unset: the service's own simulated account). */
    EXECUTION_URL: z.url({ protocol: /^https?$/, message: 'expected an http:// or https:// URL' }).optional(),
    /** The execution service's X-API-Key; required with EXECUTION_URL. */
    EXECUTION_API_KEY: z.string().min(8, { message: 'must be at least 8 characters' }).optional(),
  })
  .superRefine((config, ctx) => {
    if (config.EXECUTION_URL !== undefined && config.EXECUTION_API_KEY === undefined) {
      ctx.addIssue({ code: 'custom', path: ['EXECUTION_API_KEY'], message: 'is required when EXECUTION_URL is set' });
    }
    requireVenueSettings(config.BROKER, config, ctx);
  });

export type AccountConfig = z.output<typeof AccountConfigSchema>;
