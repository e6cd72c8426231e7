import { envInt } from '@fxdesk/schemas';
import { z } from 'zod';
import { METAAPI_DEFAULT_REGION, METAAPI_REGION_PATTERN } from './metaapi/hosts.js';

/**
 * Each real venue's settings, written once: every service spreads `venueSettings` into its
 * config, so a user sets OANDA_*, METAAPI_* and CTRADER_* once in `.env` for the whole stack,
 * and `openVenue` (venue-factory.ts) builds any role's adapter from them.
 *
 * They live here, beside the adapters and the factory that reads them, rather than in
 * @fxdesk/core: the broker does not depend on the service kit, and a smoke command builds an
 * adapter from them without a service.
 */

const httpUrl = z.url({ protocol: /^https?$/, message: 'expected an http:// or https:// URL' });
const secret = z.string().min(1).optional();

/** OANDA v20: the account service's reads, the execution service's trades, the market-data service's prices. */
export const oandaSettings = {
  /** Personal access token (`Authorization: Bearer`); required when BROKER=oanda. */
  OANDA_API_TOKEN: secret,
  /** `{siteID}-{divisionID}-{userID}-{accountNumber}` (OANDA AccountID), e.g. 101-004-1435156-001; required when BROKER=oanda. */
  OANDA_ACCOUNT_ID: z
    .string()
    .regex(/^\d+-\d+-\d+-\d+$/, { message: 'expected an OANDA v20 account id like 101-004-1435156-001' })
    .optional(),
  OANDA_ENVIRONMENT: z.enum(['practice', 'live']).default('practice'),
  /** Overrides the environment's REST host (a proxy, or a local fake). */
  OANDA_BASE_URL: httpUrl.optional(),
  /** Overrides the environment's streaming host (the pricing stream). */
  OANDA_STREAM_BASE_URL: httpUrl.optional(),
  /** Most OANDA requests in any one second (Best Practices: at most 100 per second). */
  OANDA_REQUESTS_PER_SECOND: envInt(100, { min: 1, max: 1_000_000 }),
  /** Every OANDA trade and read of the terminal and the feed; silence past it on a trade is ambiguous. */
  OANDA_TIMEOUT_MS: envInt(10_000, { min: 100, max: 120_000 }),
};

/** MetaApi (MT5): trades, account reads and prices of one MT5 account. */
export const metaApiSettings = {
  /** MetaApi API token (the `auth-token` header); required when BROKER=metaapi. */
  METAAPI_TOKEN: secret,
  /** MetaApi account id of the MT5 account; required when BROKER=metaapi. */
  METAAPI_ACCOUNT_ID: z.string().min(1).optional(),
  METAAPI_REGION: z.string().regex(METAAPI_REGION_PATTERN, { message: 'expected a MetaApi region like new-york or london' }).default(METAAPI_DEFAULT_REGION),
  METAAPI_BASE_URL: httpUrl.optional(),
  METAAPI_MARKET_DATA_BASE_URL: httpUrl.optional(),
  /** Longest wait for a read. */
  METAAPI_TIMEOUT_MS: envInt(10_000, { min: 100, max: 120_000 }),
  /** Longest wait for POST /trade; silence past it is ambiguous. */
  METAAPI_TRADE_TIMEOUT_MS: envInt(60_000, { min: 1_000, max: 600_000 }),
  /** Period of the account-information probe (terminal, and the feed while nothing is subscribed); 0 turns the terminal's off. */
  METAAPI_HEALTH_INTERVAL_MS: envInt(15_000, { min: 0, max: 3_600_000 }),
  /** How far back the terminal looks for an order by its comment. */
  METAAPI_HISTORY_LOOKBACK_HOURS: envInt(168, { min: 1, max: 24 * 366 }),
};

/** cTrader Open API: one session per process carries the feed, the terminal and the account reader. */
export const ctraderSettings = {
  /** cTrader Open API application (openapi.ctrader.com "Applications"): Client ID and Secret. */
  CTRADER_CLIENT_ID: secret,
  CTRADER_CLIENT_SECRET: secret,
  /** An access token the account's owner granted the application. */
  CTRADER_ACCESS_TOKEN: secret,
  /**
   * The refresh token granted with it: renews the access token (about 30 days) when it expires.
   * Renewed pairs are kept in DATA_DIR/ctrader-tokens-<account>.json, which wins at start while
   * CTRADER_ACCESS_TOKEN and CTRADER_REFRESH_TOKEN still name the pair it was renewed from.
   */
  CTRADER_REFRESH_TOKEN: secret,
  /**
   * Where the renewed pair is kept, instead of DATA_DIR/ctrader-tokens-<account>.json: one file
   * every process trading the account shares (they renew one at a time, under its lock), so
   * replicas each with a DATA_DIR of their own do not spend each other's refresh token.
   */
  CTRADER_TOKEN_FILE: z.string().min(1).optional(),
  /** ctidTraderAccountId: the account's id in the Open API, not its login number. */
  CTRADER_ACCOUNT_ID: z
    .string()
    .regex(/^\d{1,15}$/, { message: 'expected the numeric ctidTraderAccountId' })
    .transform(Number)
    .optional(),
  /** demo (demo.ctraderapi.com) or live (live.ctraderapi.com): an account works on its own only. */
  CTRADER_ENVIRONMENT: z.enum(['demo', 'live']).default('demo'),
  /** Overrides the environment's host: a host name (TLS), or ws://host for a local stand-in. */
  CTRADER_HOST: z
    .string()
    .regex(/^(wss?:\/\/)?(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)$/, { message: 'expected a host name, or a ws:// or wss:// origin without a port' })
    .optional(),
  /** The Open API's JSON port. */
  CTRADER_PORT: envInt(5036, { min: 1, max: 65_535 }),
};

/** Every venue's settings, for a service config to spread. */
export const venueSettings = { ...oandaSettings, ...metaApiSettings, ...ctraderSettings };

export const VenueSettingsSchema = z.object(venueSettings);
export type VenueSettings = z.output<typeof VenueSettingsSchema>;

/** The settings a venue cannot run without. */
export const REQUIRED_VENUE_SETTINGS = {
  oanda: ['OANDA_API_TOKEN', 'OANDA_ACCOUNT_ID'],
  metaapi: ['METAAPI_TOKEN', 'METAAPI_ACCOUNT_ID'],
  ctrader: ['CTRADER_CLIENT_ID', 'CTRADER_CLIENT_SECRET', 'CTRADER_ACCESS_TOKEN', 'CTRADER_ACCOUNT_ID'],
} as const satisfies Record<string, readonly (keyof VenueSettings)[]>;

export type RealVenue = keyof typeof REQUIRED_VENUE_SETTINGS;

export function isRealVenue(broker: string): broker is RealVenue {
  return Object.hasOwn(REQUIRED_VENUE_SETTINGS, broker);
}

/** For a config's superRefine: an issue per setting `broker` requires and `config` lacks, "is required when BROKER=x". */
export function requireVenueSettings(broker: string, config: Partial<VenueSettings>, ctx: z.RefinementCtx): void {
  if (!isRealVenue(broker)) return;
  for (const name of REQUIRED_VENUE_SETTINGS[broker]) {
    if (config[name] === undefined) ctx.addIssue({ code: 'custom', path: [name], message: `is required when BROKER=${broker}` });
  }
}
