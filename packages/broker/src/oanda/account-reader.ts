import { systemClock, type Clock } from '@fxdesk/primitives';
import type { AccountChanges, AccountDetails, AccountReader, AccountSummary, Instrument } from '../account.js';
import { oandaBaseUrl, type OandaEnvironment } from './hosts.js';
import { OandaHttpClient } from './http-client.js';
import { changesFrom, detailsFrom, instrumentFrom, summaryFrom } from './normalize.js';
import { ChangesResponseSchema, DetailsResponseSchema, InstrumentsResponseSchema, SummaryResponseSchema } from './wire.js';

export interface OandaAccountOptions {
  /** Personal access token (OANDA_API_TOKEN). */
  token: string;
  /** `{siteID}-{divisionID}-{userID}-{accountNumber}`, e.g. `101-004-1435156-001` (OANDA_ACCOUNT_ID). */
  accountId: string;
  /** Which documented host to use (OANDA_ENVIRONMENT); ignored when baseUrl is set. */
  environment?: OandaEnvironment;
  /** Overrides the host (OANDA_BASE_URL): a proxy, or a local fake server in tests. */
  baseUrl?: string;
  /** Timeout of every call, in milliseconds. */
  timeoutMs?: number;
  /** Most requests in any one second (default 100, OANDA's Best Practices). */
  requestsPerSecond?: number;
  clock?: Clock;
}

/**
 * AccountReader over the OANDA v20 REST API: the Account endpoints of
 * https://developer.oanda.com/rest-live-v20/account-ep/ —
 * `GET /v3/accounts/{accountID}/summary`, `GET /v3/accounts/{accountID}`,
 * `GET /v3/accounts/{accountID}/instruments[?instruments=A,B]` and
 * `GET /v3/accounts/{accountID}/changes?sinceTransactionID=N`.
 * Methods throw BrokerError: unauthorized (401/403), not_found (404/416), rate_limited (429,
 * with Retry-After), unavailable (5xx, unreachable), timeout, protocol (malformed body).
 */
export class OandaAccountReader implements AccountReader {
  readonly name = 'oanda';
  private readonly http: OandaHttpClient;
  private readonly clock: Clock;
  private readonly accountPath: string;

  constructor(options: OandaAccountOptions) {
    this.clock = options.clock ?? systemClock;
    this.accountPath = `/v3/accounts/${encodeURIComponent(options.accountId)}`;
    this.http = new OandaHttpClient({
      baseUrl: oandaBaseUrl(options.environment ?? 'practice', options.baseUrl),
      token: options.token,
      timeoutMs: options.timeoutMs ?? 10_000,
      requestsPerSecond: options.requestsPerSecond,
      clock: this.clock,
    });
  }

  async summary(): Promise<AccountSummary> {
    const body = await this.http.get(`${this.accountPath}/summary`, {}, SummaryResponseSchema);
    return summaryFrom(body.account, body.lastTransactionID, this.asOf());
  }

  async details(): Promise<AccountDetails> {
    const body = await this.http.get(this.accountPath, {}, DetailsResponseSchema);
    return detailsFrom(body.account, body.lastTransactionID, this.asOf());
  }

  async instruments(names?: string[]): Promise<Instrument[]> {
    // `instruments`: "List of instruments to query specifically", collectionFormat csv.
    const filter = names && names.length > 0 ? names.join(',') : undefined;
    const body = await this.http.get(`${this.accountPath}/instruments`, { instruments: filter }, InstrumentsResponseSchema);
    return body.instruments.map(instrumentFrom);
  }

  async changesSince(sinceTransactionId: string): Promise<AccountChanges> {
    const body = await this.http.get(`${this.accountPath}/changes`, { sinceTransactionID: sinceTransactionId }, ChangesResponseSchema);
    return changesFrom(body, sinceTransactionId);
  }

  /** HTTP requests sent to OANDA and not yet answered. */
  get requestsInFlight(): number {
    return this.http.requestsInFlight;
  }

  async close(): Promise<void> {
    await this.http.close();
  }

  /** OANDA's account responses carry no state time: the state is as of its arrival. */
  private asOf(): string {
    return new Date(this.clock.now()).toISOString();
  }
}
