import type { SignalSubmissionInput } from '@fxdesk/schemas';
import { z } from 'zod';
import { HttpClient, type ClientOptions } from './http.js';

const TicketsSchema = z.object({ order: z.string().nullable(), deal: z.string().nullable(), position: z.string().nullable() });

/** Body of a successful POST /v1/signals (spec 001 A): the fields a caller acts on; others pass through. */
export const ExecutionResultSchema = z.looseObject({
  signal_id: z.string(),
  state: z.enum(['filled', 'partially_filled', 'placed']),
  tickets: TicketsSchema,
  result: z.looseObject({ retcode: z.number().int(), price: z.string().nullable() }),
});
export type ExecutionResult = z.infer<typeof ExecutionResultSchema>;

/** GET /v1/signals/{signal_id}: the durable record of a signal in any state. */
export const ExecutionRecordSchema = z.looseObject({
  signal_id: z.string(),
  state: z.enum(['processing', 'filled', 'partially_filled', 'placed', 'rejected', 'unknown']),
  request: z.record(z.string(), z.unknown()),
  tickets: TicketsSchema,
  error: z.looseObject({ code: z.string(), message: z.string() }).nullable(),
  http_status: z.number().int().nullable(),
  received_at: z.string(),
});
export type ExecutionRecord = z.infer<typeof ExecutionRecordSchema>;

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
    this.http = new HttpClient('execution', options, options.apiKey ? { 'x-api-key': options.apiKey } : {});
  }

  async submitSignal(signal: SignalSubmissionInput): Promise<SubmitResult> {
    const res = await this.http.call({ method: 'POST', path: '/v1/signals', body: signal, schema: ExecutionResultSchema, statuses: [200] });
    return { result: res.data, replayed: res.headers['idempotent-replayed'] === 'true' };
  }

  async signal(signalId: string): Promise<ExecutionRecord> {
    return (await this.http.call({ method: 'GET', path: `/v1/signals/${encodeURIComponent(signalId)}`, schema: ExecutionRecordSchema })).data;
  }

  close(): Promise<void> {
    return this.http.close();
  }
}
