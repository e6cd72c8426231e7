import type { Backtest, BacktestRequest, JournalAccount, StartRequest, Sweep, SweepRequestInput } from '@fxdesk/schemas';
import type { z } from 'zod';
import { HttpClient, type CallParts, type ClientOptions, type ServiceCall } from './http.js';
import { strategyCalls } from './strategy-calls.js';

/**
 * Client of the strategy control service (spec 000, and the strategy lab; no authentication).
 * Errors throw ServiceError with the spec's codes: `STRATEGY_ALREADY_RUNNING`,
 * `STRATEGY_NOT_RUNNING`, `INSTRUMENT_NOT_FOUND`, `VALIDATION_ERROR`, `RATE_LIMITED` (with
 * `retryAfterSeconds`), and the lab's `BACKTEST_NOT_FOUND`, `SWEEP_NOT_FOUND`,
 * `BACKTEST_IN_SWEEP`, `LAB_QUEUE_FULL`, and the desk's `NOT_HALTED`.
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

  /** The desk's risk limits, their use now and the halt, per account (GET /risk). */
  async risk() {
    return this.call(strategyCalls.risk);
  }

  /** Resumes a halted account (POST /risk/resume); `NOT_HALTED` (409) when it is not halted. */
  async resumeRisk(account: JournalAccount) {
    return this.call(strategyCalls.resumeRisk, { body: { account } });
  }

  /** What a backtest takes for each setting its request leaves out: the strategy's timeframe, live rules, balance and volume. */
  async labDefaults() {
    return this.call(strategyCalls.labDefaults);
  }

  /** Queues a backtest; follow it with backtest(id). */
  async submitBacktest(request: BacktestRequest) {
    return this.call(strategyCalls.submitBacktest, { body: request });
  }

  /** Backtests newest first (those started alone, or one sweep's); pass `next_cursor` back as `cursor`. */
  async backtests(query: { limit?: number; cursor?: string; sweep_id?: string } = {}) {
    return this.call(strategyCalls.backtests, { query });
  }

  async backtest(id: string) {
    return this.call(strategyCalls.backtest, { params: { id } });
  }

  /** A backtest's trades in entry order, a page at a time. */
  async backtestTrades(id: string, query: { limit?: number; cursor?: string; instrument?: string } = {}) {
    return this.call(strategyCalls.backtestTrades, { params: { id }, query });
  }

  async backtestEquity(id: string) {
    return (await this.call(strategyCalls.backtestEquity, { params: { id } })).points;
  }

  /** One pair's candles of a backtest in [from, to) with the indicators on the run's rules, oldest first (at most `limit`, the newest). */
  async backtestCandles(id: string, query: { instrument: string; from?: string; to?: string; limit?: number }) {
    return this.call(strategyCalls.backtestCandles, { params: { id }, query });
  }

  /** Cancels a queued or running backtest (its record, now cancelled) or deletes one that has ended (undefined). */
  async deleteBacktest(id: string): Promise<Backtest | undefined> {
    return this.call(strategyCalls.deleteBacktest, { params: { id }, alsoStatuses: [204] });
  }

  /** Queues a sweep; follow it with sweep(id). */
  async submitSweep(request: SweepRequestInput) {
    return this.call(strategyCalls.submitSweep, { body: request });
  }

  async sweeps(query: { limit?: number; cursor?: string } = {}) {
    return this.call(strategyCalls.sweeps, { query });
  }

  async sweep(id: string) {
    return this.call(strategyCalls.sweep, { params: { id } });
  }

  /** Cancels a queued or running sweep (its record, now cancelled) or deletes one that has ended with its backtests (undefined). */
  async deleteSweep(id: string): Promise<Sweep | undefined> {
    return this.call(strategyCalls.deleteSweep, { params: { id }, alsoStatuses: [204] });
  }

  close(): Promise<void> {
    return this.http.close();
  }

  private async call<S extends z.ZodType>(call: ServiceCall<S>, parts?: CallParts): Promise<z.output<S>> {
    return (await this.http.send(call, parts)).data;
  }
}
