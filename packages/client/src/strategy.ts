import {
  LatestSignalResponseSchema,
  PairCandlesSchema,
  PairsResponseSchema,
  RestartResponseSchema,
  SignalHistorySchema,
  StartResponseSchema,
  StopResponseSchema,
  StrategyHealthSchema,
  StrategyStatusSchema,
  type StartRequest,
} from '@fxdesk/schemas';
import { HttpClient, type ClientOptions } from './http.js';

/**
 * Client of the strategy control service (spec 000; no authentication). Errors throw
 * ServiceError with the spec's codes: `STRATEGY_ALREADY_RUNNING`, `STRATEGY_NOT_RUNNING`,
 * `INSTRUMENT_NOT_FOUND`, `VALIDATION_ERROR`, `RATE_LIMITED` (with `retryAfterSeconds`).
 */
export class StrategyClient {
  private readonly http: HttpClient;

  constructor(options: ClientOptions) {
    this.http = new HttpClient('strategy', options);
  }

  async health() {
    return (await this.http.call({ method: 'GET', path: '/health', schema: StrategyHealthSchema, statuses: [200, 503] })).data;
  }

  async status() {
    return (await this.http.call({ method: 'GET', path: '/status', schema: StrategyStatusSchema })).data;
  }

  async pairs() {
    return (await this.http.call({ method: 'GET', path: '/pairs', schema: PairsResponseSchema })).data.pairs;
  }

  /** Recent closed candles of a monitored pair with each indicator's value, oldest first. */
  async pairCandles(instrument: string, limit?: number) {
    const path = `/pairs/${encodeURIComponent(instrument)}/candles`;
    return (await this.http.call({ method: 'GET', path, query: { limit }, schema: PairCandlesSchema })).data;
  }

  /** The latest signal of a pair (`signal` null when it has none). */
  async latestSignal(instrument: string) {
    return (await this.http.call({ method: 'GET', path: `/signals/${encodeURIComponent(instrument)}`, schema: LatestSignalResponseSchema })).data;
  }

  /** Signal history, newest first; pass `next_cursor` back as `cursor` for the next page. */
  async signals(query: { instrument?: string; limit?: number; cursor?: string } = {}) {
    return (await this.http.call({ method: 'GET', path: '/signals', query, schema: SignalHistorySchema })).data;
  }

  async start(request: StartRequest = {}) {
    return (await this.http.call({ method: 'POST', path: '/start', body: request, schema: StartResponseSchema })).data;
  }

  async stop() {
    return (await this.http.call({ method: 'POST', path: '/stop', schema: StopResponseSchema })).data;
  }

  async restart() {
    return (await this.http.call({ method: 'POST', path: '/restart', schema: RestartResponseSchema })).data;
  }

  close(): Promise<void> {
    return this.http.close();
  }
}
