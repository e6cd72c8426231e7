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
import type { z } from 'zod';
import { HttpClient, type CallParts, type ClientOptions, type ServiceCall } from './http.js';

/**
 * Each call StrategyClient makes, as the service's OpenAPI document names it, with the schema its
 * answer is checked with (the one the service serializes it with). GET /health also answers 503
 * with the same record when the strategy is unhealthy; the client reads that one too.
 */
export const strategyCalls = {
  health: { method: 'GET', path: '/health', status: 200, schema: StrategyHealthSchema },
  status: { method: 'GET', path: '/status', status: 200, schema: StrategyStatusSchema },
  pairs: { method: 'GET', path: '/pairs', status: 200, schema: PairsResponseSchema },
  pairCandles: { method: 'GET', path: '/pairs/{instrument}/candles', status: 200, schema: PairCandlesSchema },
  latestSignal: { method: 'GET', path: '/signals/{instrument}', status: 200, schema: LatestSignalResponseSchema },
  signals: { method: 'GET', path: '/signals', status: 200, schema: SignalHistorySchema },
  start: { method: 'POST', path: '/start', status: 200, schema: StartResponseSchema },
  stop: { method: 'POST', path: '/stop', status: 200, schema: StopResponseSchema },
  restart: { method: 'POST', path: '/restart', status: 200, schema: RestartResponseSchema },
} as const satisfies Record<string, ServiceCall>;

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
    return this.call(strategyCalls.health, { alsoStatuses: [503] });
  }

  async status() {
    return this.call(strategyCalls.status);
  }

  async pairs() {
    return (await this.call(strategyCalls.pairs)).pairs;
  }

  /** Recent closed candles of a monitored pair with each indicator's value, oldest first. */
  async pairCandles(instrument: string, limit?: number) {
    return this.call(strategyCalls.pairCandles, { params: { instrument }, query: { limit } });
  }

  /** The latest signal of a pair (`signal` null when it has none). */
  async latestSignal(instrument: string) {
    return this.call(strategyCalls.latestSignal, { params: { instrument } });
  }

  /** Signal history, newest first; pass `next_cursor` back as `cursor` for the next page. */
  async signals(query: { instrument?: string; limit?: number; cursor?: string } = {}) {
    return this.call(strategyCalls.signals, { query });
  }

  async start(request: StartRequest = {}) {
    return this.call(strategyCalls.start, { body: request });
  }

  async stop() {
    return this.call(strategyCalls.stop);
  }

  async restart() {
    return this.call(strategyCalls.restart);
  }

  close(): Promise<void> {
    return this.http.close();
  }

  private async call<S extends z.ZodType>(call: ServiceCall<S>, parts?: CallParts): Promise<z.output<S>> {
    return (await this.http.send(call, parts)).data;
  }
}
