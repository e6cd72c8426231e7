import { AccountSummaryReadSchema, type AccountSummary } from '@fxdesk/schemas';
import { HttpClient, type ClientOptions } from './http.js';

/** The normalized account summary of spec 001 (B), money as decimal strings: the service's own record. */
export type { AccountSummary };

/** The calls AccountClient makes, each with the schema (from @fxdesk/schemas) its answer is checked with. */
export const accountCalls = {
  summary: { method: 'GET', path: '/api/v1/account/summary', status: 200, schema: AccountSummaryReadSchema },
} as const;

/** Client of the account-read service (X-Internal-API-Key). */
export class AccountClient {
  private readonly http: HttpClient;

  constructor(options: ClientOptions) {
    this.http = new HttpClient('account', options, options.apiKey ? { 'x-internal-api-key': options.apiKey } : {});
  }

  /** GET /api/v1/account/summary (the service stores each read as a snapshot). */
  async summary(): Promise<AccountSummary> {
    const { method, path, status, schema } = accountCalls.summary;
    return (await this.http.call({ method, path, schema, statuses: [status] })).data.account;
  }

  close(): Promise<void> {
    return this.http.close();
  }
}
