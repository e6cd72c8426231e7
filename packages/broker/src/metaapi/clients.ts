import { Pacer, type Clock } from '@fxdesk/primitives';
import { BrokerError } from '../errors.js';
import { metaApiClientUrl, metaApiMarketDataUrl, metaApiProvisioningUrl, METAAPI_DEFAULT_REGION } from './hosts.js';
import { MetaApiHttp } from './http-client.js';
import { ProvisionedAccountSchema } from './wire.js';

/**
 * MetaApi's REST limits (metaapi.cloud/docs/client/rateLimiting): CPU credits per application,
 * per server and per account, over periods of a second and longer; the historical market data API
 * counts its credits apart and also limits concurrent requests per account.
 */
export interface MetaApiPacing {
  /** Credits per second for the whole application (TooManyRequestsError example: "allows 1000 cpu credits per 1s"). */
  applicationCreditsPerSecond: number;
  /** Credits per second for this account (CreditUsage example: perAccount, periodInSeconds 1, creditsAvailable 2000). */
  accountCreditsPerSecond: number;
  /** Credits one request is charged (TooManyRequestsError example: getAccountInformation "needed": 50). */
  creditsPerRequest: number;
  /** Historical market data requests in flight at once for the account. */
  marketDataConcurrency: number;
}

export const METAAPI_PACING: MetaApiPacing = {
  applicationCreditsPerSecond: 1000,
  accountCreditsPerSecond: 2000,
  creditsPerRequest: 50,
  marketDataConcurrency: 1,
};

/** Where and how an adapter reaches MetaApi: what the terminal, the account reader and the feed take alike. */
export interface MetaApiConnectionOptions {
  /** MetaApi API token (the `auth-token` header). */
  token: string;
  /** MetaApi account id of the MT5 account. */
  accountId: string;
  /** Region the account is deployed in (default new-york). */
  region?: string;
  /** Overrides the region's client API host. */
  baseUrl?: string;
  /** Overrides the region's market data API host. */
  marketDataBaseUrl?: string;
  /** Overrides the provisioning API host (default: `baseUrl` when that is set, else MetaApi's). */
  provisioningBaseUrl?: string;
  /** MetaApi's rate limits the adapter keeps under (defaults: METAAPI_PACING). */
  pacing?: Partial<MetaApiPacing>;
}

/** The three MetaApi APIs one adapter talks to, each request paced, and the account's path on them. */
export interface MetaApiClients {
  client: MetaApiHttp;
  marketData: MetaApiHttp;
  provisioning: MetaApiHttp;
  accountPath: string;
  /** HTTP requests sent to MetaApi and not yet answered. */
  requestsInFlight(): number;
  close(): Promise<void>;
}

/**
 * The client API and the market data API, each under its own pair of credit pacers (the
 * account's and the application's: "calculated independently"), the market data API also at most
 * `marketDataConcurrency` requests in flight; and the provisioning API, unpaced (read once a
 * second at most, while waiting for a synchronized account).
 */
export function metaApiClients(options: MetaApiConnectionOptions, clock: Clock): MetaApiClients {
  const region = options.region ?? METAAPI_DEFAULT_REGION;
  const pacing = { ...METAAPI_PACING, ...options.pacing };
  const creditPacers = () => [Pacer.within(pacing.accountCreditsPerSecond, 1000, clock), Pacer.within(pacing.applicationCreditsPerSecond, 1000, clock)];
  const common = { token: options.token, clock, creditsPerRequest: pacing.creditsPerRequest };
  const client = new MetaApiHttp({ ...common, baseUrl: metaApiClientUrl(region, options.baseUrl), pacers: creditPacers() });
  const marketData = new MetaApiHttp({
    ...common,
    baseUrl: metaApiMarketDataUrl(region, options.marketDataBaseUrl),
    pacers: creditPacers(),
    maxInFlight: pacing.marketDataConcurrency,
  });
  const provisioning = new MetaApiHttp({
    token: options.token,
    clock,
    baseUrl: metaApiProvisioningUrl(options.provisioningBaseUrl ?? options.baseUrl),
    connections: 1,
  });
  return {
    client,
    marketData,
    provisioning,
    accountPath: `/users/current/accounts/${encodeURIComponent(options.accountId)}`,
    requestsInFlight: () => client.requestsInFlight + marketData.requestsInFlight + provisioning.requestsInFlight,
    close: async () => {
      await Promise.all([client.close(), marketData.close(), provisioning.close()]);
    },
  };
}

/** Between two reads of the account's state while waiting for it to synchronize (the SDK's waitConnected polls each second). */
export const SYNC_POLL_MS = 1000;

/**
 * Resolves once the provisioning API reports the account DEPLOYED and CONNECTED; `unavailable`
 * when it is not by `deadlineMs`. The REST history routes answer a bare array whether or not
 * the terminal has loaded its history, so a history read waits for this first.
 */
export async function untilSynchronized(clients: MetaApiClients, clock: Clock, readTimeoutMs: number, deadlineMs: number): Promise<void> {
  for (;;) {
    const timeoutMs = Math.min(readTimeoutMs, deadlineMs - clock.now());
    const account = await clients.provisioning.get(clients.accountPath, {}, ProvisionedAccountSchema, timeoutMs);
    if (account.state === 'DEPLOYED' && account.connectionStatus === 'CONNECTED') return;
    if (clock.now() + SYNC_POLL_MS >= deadlineMs) {
      throw new BrokerError(
        'unavailable',
        `MetaApi's terminal is not synchronized (state ${account.state}, ${account.connectionStatus}); its history could be incomplete`,
        { venueCode: account.connectionStatus, retryAfterSeconds: SYNC_POLL_MS / 1000 },
      );
    }
    await new Promise<void>((resolve) => clock.setTimeout(resolve, SYNC_POLL_MS));
  }
}
