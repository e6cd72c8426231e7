import {
  SignalListSchema,
  SignalRecordSchema,
  SignalResultSchema,
  type SignalList,
  type SignalListQuery,
  type SignalRecord,
  type SignalResult,
  type SignalSubmissionInput,
} from '@fxdesk/schemas';
import { HttpClient, type ClientOptions, type ServiceCall } from './http.js';

/** Body of a successful POST /v1/signals (spec 001 A). */
export type ExecutionResult = SignalResult;

/** GET /v1/signals/{signal_id}: the durable record of a signal in any state. */
export type ExecutionRecord = SignalRecord;

/** GET /v1/signals query: every filter optional, `limit` 50 when left out; `cursor` is a page's `next_cursor`. */
export type ExecutionListQuery = Partial<SignalListQuery>;

/** Each call ExecutionClient makes, as the service's OpenAPI document names it, with the schema its answer is checked with. */
export const executionCalls = {
  submitSignal: { method: 'POST', path: '/v1/signals', status: 200, schema: SignalResultSchema },
  signal: { method: 'GET', path: '/v1/signals/{signal_id}', status: 200, schema: SignalRecordSchema },
  listSignals: { method: 'GET', path: '/v1/signals', status: 200, schema: SignalListSchema },
} as const satisfies Record<string, ServiceCall>;

export interface SubmitResult {
  result: ExecutionResult;
  /** The service answered a stored outcome (`Idempotent-Replayed: true`): nothing was traded again. */
  replayed: boolean;
}

/**
 * Client of the order-execution service (X-API-Key). `submitSignal` is idempotent by
 * `signal_id`, so repeating it after a timeout is safe: the service replays the stored outcome.
 * A refusal throws ServiceError with the service's code (`signal_too_old`, `invalid_stops`,
 * `execution_outcome_unknown`…).
 */
export class ExecutionClient {
  private readonly http: HttpClient;

  constructor(options: ClientOptions) {
    this.http = new HttpClient('execution', options, 'x-api-key');
  }

  async submitSignal(signal: SignalSubmissionInput): Promise<SubmitResult> {
    const res = await this.http.send(executionCalls.submitSignal, { body: signal });
    return { result: res.data, replayed: res.headers['idempotent-replayed'] === 'true' };
  }

  async signal(signalId: string): Promise<ExecutionRecord> {
    return (await this.http.send(executionCalls.signal, { params: { signal_id: signalId } })).data;
  }

  /**
   * Stored signals, newest received first, filtered by state, symbol, source and received time
   * (`from` inclusive, `to` exclusive). Pass `next_cursor` back as `cursor`, with the same
   * filters, for the next page; it is null on the last.
   */
  async listSignals(query: ExecutionListQuery = {}): Promise<SignalList> {
    return (await this.http.send(executionCalls.listSignals, { query })).data;
  }

  close(): Promise<void> {
    return this.http.close();
  }
}
