import { z } from 'zod';
import { HttpClient, type ClientOptions } from './http.js';

const Decimal = z.string().regex(/^-?\d+(\.\d+)?$/, { message: 'expected a decimal string' });

/** The normalized account summary of spec 001 (B): money as decimal strings. Other fields pass through. */
export const AccountSummarySchema = z.looseObject({
  id: z.string(),
  currency: z.string(),
  balance: Decimal,
  nav: Decimal,
  unrealizedPL: Decimal,
  marginUsed: Decimal,
  marginAvailable: Decimal,
  lastTransactionId: z.string(),
  asOf: z.string(),
});
export type AccountSummary = z.infer<typeof AccountSummarySchema>;

const SummaryReadSchema = z.looseObject({ account: AccountSummarySchema });

/** Client of the account-read service (X-Internal-API-Key). */
export class AccountClient {
  private readonly http: HttpClient;

  constructor(options: ClientOptions) {
    this.http = new HttpClient('account', options, options.apiKey ? { 'x-internal-api-key': options.apiKey } : {});
  }

  /** GET /api/v1/account/summary (the service stores each read as a snapshot). */
  async summary(): Promise<AccountSummary> {
    return (await this.http.call({ method: 'GET', path: '/api/v1/account/summary', schema: SummaryReadSchema })).data.account;
  }

  close(): Promise<void> {
    return this.http.close();
  }
}
