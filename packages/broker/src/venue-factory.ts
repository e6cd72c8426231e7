import path from 'node:path';
import type { Clock } from '@fxdesk/primitives';
import type { AccountReader } from './account.js';
import { CTRADER_HOSTS, CTraderAccount, CTraderFeed, CTraderTerminal, ctraderUrl, fileTokenStore, type TokenStatus } from './ctrader/index.js';
import type { QuoteFeed } from './feed.js';
import { metaApiClientUrl, MetaApiAccountReader, MetaApiFeed, MetaApiTerminal, type MetaApiConnectionOptions, type MetaApiTradeMode } from './metaapi/index.js';
import { OANDA_HOSTS, OANDA_STREAM_HOSTS, oandaBaseUrl, OandaAccountReader, OandaFeed, OandaTerminal } from './oanda/index.js';
import type { TerminalCallStats, TradingTerminal } from './terminal.js';
import type { RealVenue, VenueSettings } from './venue-settings.js';

/** What a process brings to its venue beside the venue's settings. */
export interface VenueOptions {
  clock: Clock;
  /** Where cTrader's renewed token pairs are kept (`<dataDir>/ctrader-tokens-<account>.json`); none when unset or `:memory:`. */
  dataDir?: string;
  /** Overrides the venue's timeout of every read and request (the account service's BROKER_TIMEOUT_MS). */
  timeoutMs?: number;
  /** Longest wait between two attempts to reconnect the feed (market data's FEED_RECONNECT_MAX_SECONDS). */
  reconnectMaxMs?: number;
  /** The symbols a feed's catalog lists, where the venue charges per symbol (MetaApi); default every one. */
  catalog?: string[];
}

/** Whose money an account trades, and what says so: a setting, a host, or the account itself. */
export interface VenueEnvironment {
  /** `practice` (OANDA), `demo` or `contest` (cTrader, MT5), `live`; `unknown` (the account does not say) counts as live. */
  name: 'practice' | 'demo' | 'contest' | 'live' | 'unknown';
  /** Real money, or not known to be otherwise. */
  isLive: boolean;
  /** What told, e.g. `OANDA_ENVIRONMENT=practice`, `the account's type ACCOUNT_TRADE_MODE_DEMO`. */
  source: string;
}

/** A terminal and the call counts it keeps, for the execution service's /metrics. */
export type CountedTerminal = TradingTerminal & { readonly stats: TerminalCallStats };

/**
 * One venue account in this process, the roles built from it on first use and kept: asking
 * twice for a role answers the same adapter. The roles of cTrader share one authorised session
 * (the feed's), as DESIGN §7 asks; OANDA's and MetaApi's adapters each hold their own HTTP pool
 * to the account (their constructors take no shared client).
 */
export interface VenueConnection {
  readonly venue: RealVenue;
  terminal(): CountedTerminal;
  accountReader(): AccountReader;
  feed(): QuoteFeed;
  /**
   * Whose money the account trades: OANDA's and cTrader's from their ENVIRONMENT setting and host
   * overrides (a host of the live environment is live whatever the setting says), MetaApi's from
   * the account's own trade mode (a read).
   */
  environment(): Promise<VenueEnvironment>;
  /** Readiness checks of the venue's own (cTrader: `ctrader_token`, the access token works or can be renewed). */
  checks(): Record<string, () => TokenStatus>;
  /** Closes every role built, then the connection they share. */
  close(): Promise<void>;
}

/** The venue `venue` names, its roles built on demand from `settings` (which must hold what the venue requires). */
export function openVenue(venue: RealVenue, settings: VenueSettings, options: VenueOptions): VenueConnection {
  if (venue === 'oanda') return openOanda(settings, options);
  if (venue === 'metaapi') return openMetaApi(settings, options);
  return openCTrader(settings, options);
}

/** One line naming the venue, its host and account, for a start line; never a credential. */
export function describeVenue(venue: RealVenue, settings: VenueSettings): string {
  if (venue === 'oanda') {
    return `oanda (${settings.OANDA_ENVIRONMENT}, ${oandaBaseUrl(settings.OANDA_ENVIRONMENT, settings.OANDA_BASE_URL)}, account ${settings.OANDA_ACCOUNT_ID})`;
  }
  if (venue === 'metaapi') return `metaapi (account ${settings.METAAPI_ACCOUNT_ID}, ${metaApiClientUrl(settings.METAAPI_REGION, settings.METAAPI_BASE_URL)})`;
  return `ctrader (${ctraderUrl(settings.CTRADER_ENVIRONMENT, { host: settings.CTRADER_HOST, port: settings.CTRADER_PORT })}, account ${settings.CTRADER_ACCOUNT_ID})`;
}

/** A role's adapter, made once. */
function once<T>(make: () => T): { get: () => T; made: () => T | undefined } {
  let value: T | undefined;
  return { get: () => (value ??= make()), made: () => value };
}

function required<T>(value: T | undefined, name: string): T {
  if (value === undefined) throw new RangeError(`${name} is not set`);
  return value;
}

async function closeAll(roles: { made: () => { close(): Promise<void> } | undefined }[]): Promise<void> {
  for (const role of roles) await role.made()?.close();
}

function openOanda(settings: VenueSettings, options: VenueOptions): VenueConnection {
  const connection = {
    token: required(settings.OANDA_API_TOKEN, 'OANDA_API_TOKEN'),
    accountId: required(settings.OANDA_ACCOUNT_ID, 'OANDA_ACCOUNT_ID'),
    environment: settings.OANDA_ENVIRONMENT,
    baseUrl: settings.OANDA_BASE_URL,
    requestsPerSecond: settings.OANDA_REQUESTS_PER_SECOND,
    timeoutMs: options.timeoutMs ?? settings.OANDA_TIMEOUT_MS,
    clock: options.clock,
  };
  const terminal = once(() => new OandaTerminal(connection));
  const reader = once(() => new OandaAccountReader(connection));
  const feed = once(() => new OandaFeed({ ...connection, streamBaseUrl: settings.OANDA_STREAM_BASE_URL, reconnectMaxMs: options.reconnectMaxMs }));
  return {
    venue: 'oanda',
    terminal: terminal.get,
    accountReader: reader.get,
    feed: feed.get,
    environment: async () => oandaEnvironment(settings),
    checks: () => ({}),
    close: () => closeAll([terminal, reader, feed]),
  };
}

function oandaEnvironment(settings: VenueSettings): VenueEnvironment {
  if (settings.OANDA_ENVIRONMENT === 'live') return { name: 'live', isLive: true, source: 'OANDA_ENVIRONMENT=live' };
  const liveHosts = [OANDA_HOSTS.live, OANDA_STREAM_HOSTS.live].map((url) => new URL(url).host);
  for (const name of ['OANDA_BASE_URL', 'OANDA_STREAM_BASE_URL'] as const) {
    const url = settings[name];
    if (url !== undefined && liveHosts.includes(new URL(url).host)) return { name: 'live', isLive: true, source: `${name} is fxTrade's live host` };
  }
  return { name: 'practice', isLive: false, source: 'OANDA_ENVIRONMENT=practice' };
}

function openMetaApi(settings: VenueSettings, options: VenueOptions): VenueConnection {
  const connection: MetaApiConnectionOptions & { clock: Clock; timeoutMs: number } = {
    token: required(settings.METAAPI_TOKEN, 'METAAPI_TOKEN'),
    accountId: required(settings.METAAPI_ACCOUNT_ID, 'METAAPI_ACCOUNT_ID'),
    region: settings.METAAPI_REGION,
    baseUrl: settings.METAAPI_BASE_URL,
    marketDataBaseUrl: settings.METAAPI_MARKET_DATA_BASE_URL,
    timeoutMs: options.timeoutMs ?? settings.METAAPI_TIMEOUT_MS,
    clock: options.clock,
  };
  const terminal = once(
    () =>
      new MetaApiTerminal({
        ...connection,
        tradeTimeoutMs: settings.METAAPI_TRADE_TIMEOUT_MS,
        healthIntervalMs: settings.METAAPI_HEALTH_INTERVAL_MS,
        historyLookbackMs: settings.METAAPI_HISTORY_LOOKBACK_HOURS * 3_600_000,
      }),
  );
  const reader = once(() => new MetaApiAccountReader(connection));
  const feed = once(
    () =>
      new MetaApiFeed({
        ...connection,
        // The feed's probe cannot be turned off: it is how a lost link shows while nothing is subscribed.
        healthIntervalMs: settings.METAAPI_HEALTH_INTERVAL_MS || undefined,
        reconnectMaxMs: options.reconnectMaxMs,
        catalog: options.catalog?.length ? options.catalog : undefined,
      }),
  );
  return {
    venue: 'metaapi',
    terminal: terminal.get,
    accountReader: reader.get,
    feed: feed.get,
    environment: async () => metaApiEnvironment(await reader.get().tradeMode()),
    checks: () => ({}),
    close: () => closeAll([terminal, reader, feed]),
  };
}

function metaApiEnvironment(mode: MetaApiTradeMode): VenueEnvironment {
  if (mode === 'unknown') return { name: 'unknown', isLive: true, source: 'the account gives no known type (ACCOUNT_TRADE_MODE_*)' };
  const source = `the account's type ACCOUNT_TRADE_MODE_${mode.toUpperCase()}`;
  return mode === 'real' ? { name: 'live', isLive: true, source } : { name: mode, isLive: false, source };
}

/** CTRADER_TOKEN_FILE, else DATA_DIR/ctrader-tokens-<account>.json; none in memory (no DATA_DIR, or `:memory:`). */
function tokenStoreOf(file: string | undefined, dataDir: string | undefined, accountId: number) {
  if (file) return fileTokenStore(path.resolve(file));
  return dataDir && dataDir !== ':memory:' ? fileTokenStore(path.join(dataDir, `ctrader-tokens-${accountId}.json`)) : undefined;
}

function openCTrader(settings: VenueSettings, options: VenueOptions): VenueConnection {
  const accountId = required(settings.CTRADER_ACCOUNT_ID, 'CTRADER_ACCOUNT_ID');
  const url = ctraderUrl(settings.CTRADER_ENVIRONMENT, { host: settings.CTRADER_HOST, port: settings.CTRADER_PORT });
  const { clock, dataDir } = options;
  // The one authorised session of this account in this process: the feed, whose session the terminal and the reader share.
  const session = once(
    () =>
      new CTraderFeed({
        clientId: required(settings.CTRADER_CLIENT_ID, 'CTRADER_CLIENT_ID'),
        clientSecret: required(settings.CTRADER_CLIENT_SECRET, 'CTRADER_CLIENT_SECRET'),
        accessToken: required(settings.CTRADER_ACCESS_TOKEN, 'CTRADER_ACCESS_TOKEN'),
        refreshToken: settings.CTRADER_REFRESH_TOKEN,
        tokenStore: tokenStoreOf(settings.CTRADER_TOKEN_FILE, dataDir, accountId),
        accountId,
        url,
        clock,
        requestTimeoutMs: options.timeoutMs,
        reconnectMaxMs: options.reconnectMaxMs,
      }),
  );
  const terminal = once(() => new CTraderTerminal({ feed: session.get(), clock }));
  const reader = once(() => new CTraderAccount({ feed: session.get(), clock }));
  return {
    venue: 'ctrader',
    terminal: terminal.get,
    accountReader: reader.get,
    feed: session.get,
    environment: async () => ctraderEnvironment(settings),
    checks: () => ({ ctrader_token: () => session.get().tokenStatus() }),
    // The roles first (they stop listening), then the session they share.
    close: () => closeAll([terminal, reader, session]),
  };
}

/** cTrader's live proxies are `live.ctraderapi.com` and the regional `live-<region>` names of its older list. */
function ctraderEnvironment(settings: VenueSettings): VenueEnvironment {
  if (settings.CTRADER_ENVIRONMENT === 'live') return { name: 'live', isLive: true, source: 'CTRADER_ENVIRONMENT=live' };
  const host = settings.CTRADER_HOST?.replace(/^wss?:\/\//, '');
  if (host !== undefined && (host === CTRADER_HOSTS.live || /^live-[a-z0-9]+\.ctraderapi\.com$/i.test(host))) {
    return { name: 'live', isLive: true, source: `CTRADER_HOST is a live proxy (${host})` };
  }
  return { name: 'demo', isLive: false, source: 'CTRADER_ENVIRONMENT=demo' };
}
