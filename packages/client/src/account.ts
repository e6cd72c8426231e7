import { AccountSummaryReadSchema, type AccountSummary, type AccountSummaryRead } from '@fxdesk/schemas';
import { HttpClient, type ClientOptions, type ServiceCall } from './http.js';

/** The normalized account summary of spec 001 (B), money as decimal strings: the service's own record. */
export type { AccountSummary };

/** The calls AccountClient makes, each with the schema (from @fxdesk/schemas) its answer is checked with. */
export const accountCalls = {
  summary: { method: 'GET', path: '/api/v1/account/summary', status: 200, schema: AccountSummaryReadSchema },
} as const satisfies Record<string, ServiceCall>;

/** Client of the account-read service (X-Internal-API-Key). */
export class AccountClient {
  private readonly http: HttpClient;

  constructor(options: ClientOptions) {
    this.http = new HttpClient('account', options, 'x-internal-api-key');
  }

  /** GET /api/v1/account/summary (the service stores each read as a snapshot). */
  async summary(): Promise<AccountSummary> {
    return (await this.summaryRead()).account;
  }

  /** GET /api/v1/account/summary as the service answers it: the summary and the snapshot it was stored as. */
  async summaryRead(): Promise<AccountSummaryRead> {
    return (await this.http.send(accountCalls.summary)).data;
  }

  close(): Promise<void> {
    return this.http.close();
  }
}
