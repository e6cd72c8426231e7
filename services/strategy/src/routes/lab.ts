import type { App } from '@fxdesk/core';
import {
  backtestCandlesQuerySchema,
  BacktestEquitySchema,
  BacktestListQuerySchema,
  BacktestListSchema,
  BacktestRequestSchema,
  BacktestSchema,
  BacktestTradesQuerySchema,
  BacktestTradesSchema,
  ErrorEnvelopeSchema,
  LabDefaultsSchema,
  LabJobCreatedSchema,
  LabJobParamsSchema,
  PairCandlesSchema,
  StrategyRateLimitedSchema,
  SweepListQuerySchema,
  SweepListSchema,
  SweepRequestSchema,
  SweepSchema,
  type LabDefaults,
} from '@fxdesk/schemas';
import { z } from 'zod';
import type { LabJobs } from '../lab/jobs.js';
import { SCOPE_LIMITED } from '../rate-limits.js';

const NotFound = ErrorEnvelopeSchema.meta({ description: 'BACKTEST_NOT_FOUND or SWEEP_NOT_FOUND' });
const Deleted = z.undefined().meta({ description: 'Deleted (it had ended), with its trades and equity' });

/** What POST /backtests and POST /sweeps answer besides 202. */
const SUBMIT_REFUSALS = {
  422: ErrorEnvelopeSchema.meta({
    description:
      'VALIDATION_ERROR with `details`: a field out of its bounds, a range that is not from < to ≤ now or is longer than 5 years, an instrument the market does not list, more candles than LAB_MAX_CANDLES',
  }),
  429: StrategyRateLimitedSchema,
  502: ErrorEnvelopeSchema.meta({ description: "DOWNSTREAM_ERROR: the market-data service failed to answer its symbols (the instruments' check)" }),
  503: ErrorEnvelopeSchema.meta({
    description: 'LAB_QUEUE_FULL (LAB_MAX_QUEUE jobs are waiting; Retry-After), or DOWNSTREAM_UNAVAILABLE: the market-data service cannot be reached',
  }),
  504: ErrorEnvelopeSchema.meta({ description: 'DOWNSTREAM_TIMEOUT: the market-data service did not answer in time' }),
};

/**
 * The strategy lab (issue 13): backtests and sweeps of the live strategy's own code, queued and run
 * on worker threads (lab/jobs.ts), under spec 000's limits (POST and DELETE on the POST counter).
 */
export function registerLabRoutes(app: App, lab: LabJobs, defaults: LabDefaults): void {
  app.get(
    '/lab/defaults',
    {
      ...SCOPE_LIMITED,
      schema: {
        tags: ['lab'],
        summary: 'What a backtest takes for each setting its request leaves out',
        description: "The strategy's TIMEFRAME, its live rule settings, PAPER_BALANCE and TRADE_VOLUME: what the console's Lab form shows in its empty fields.",
        response: { 200: LabDefaultsSchema, 429: StrategyRateLimitedSchema },
      },
    },
    async () => defaults,
  );

  app.post(
    '/backtests',
    {
      ...SCOPE_LIMITED,
      schema: {
        tags: ['lab'],
        summary: 'Queue a backtest',
        description:
          "Backtests the live strategy's code on the instruments' history over [from, to): the candles before from warm the indicators up (WARMUP_CANDLES, or the volume profile's window when larger), " +
          "decisions are taken on the window's candles only. Rules default to the live settings, the balance to PAPER_BALANCE, the volume to TRADE_VOLUME lots. " +
          'Answers 202 with the id at once; follow GET /backtests/{id}.',
        body: BacktestRequestSchema,
        response: { 202: LabJobCreatedSchema, ...SUBMIT_REFUSALS },
      },
    },
    async (request, reply) => {
      const created = await lab.submitBacktest(request.body);
      return reply.code(202).send(created);
    },
  );

  app.get(
    '/backtests',
    {
      ...SCOPE_LIMITED,
      schema: {
        tags: ['lab'],
        summary: 'Backtests, newest first',
        description:
          'The backtests started alone, or with `sweep_id` those of one sweep; each with its overall metrics. Follow `next_cursor` (as `cursor`) for older ones.',
        querystring: BacktestListQuerySchema,
        response: { 200: BacktestListSchema, 422: ErrorEnvelopeSchema, 429: StrategyRateLimitedSchema },
      },
    },
    async (request) => lab.backtests(request.query),
  );

  app.get(
    '/backtests/:id',
    {
      ...SCOPE_LIMITED,
      schema: {
        tags: ['lab'],
        summary: 'One backtest: status, progress, settings and, when done, its metrics',
        params: LabJobParamsSchema,
        response: { 200: BacktestSchema, 404: NotFound, 429: StrategyRateLimitedSchema },
      },
    },
    async (request) => lab.backtest(request.params.id),
  );

  app.get(
    '/backtests/:id/trades',
    {
      ...SCOPE_LIMITED,
      schema: {
        tags: ['lab'],
        summary: "A backtest's trades, in entry order",
        description: 'Empty until it is done. `instrument` keeps one pair; follow `next_cursor` (as `cursor`, with the same `instrument`) for the next page.',
        params: LabJobParamsSchema,
        querystring: BacktestTradesQuerySchema,
        response: { 200: BacktestTradesSchema, 404: NotFound, 422: ErrorEnvelopeSchema, 429: StrategyRateLimitedSchema },
      },
    },
    async (request) => lab.trades(request.params.id, request.query),
  );

  app.get(
    '/backtests/:id/equity',
    {
      ...SCOPE_LIMITED,
      schema: {
        tags: ['lab'],
        summary: "A backtest's equity and drawdown curve",
        description:
          'Equity marked to market at every candle, kept as at most 5,000 points (each bucket keeps its lowest equity, so no drawdown is hidden) plus the first and last; empty until done.',
        params: LabJobParamsSchema,
        response: { 200: BacktestEquitySchema, 404: NotFound, 429: StrategyRateLimitedSchema },
      },
    },
    async (request) => lab.equity(request.params.id),
  );

  app.get(
    '/backtests/:id/candles',
    {
      ...SCOPE_LIMITED,
      schema: {
        tags: ['lab'],
        summary: "One pair's candles of a backtest, with each indicator after each candle on the run's rules (oldest first)",
        description:
          "The pair's candles the run decided on within [from, to) (default: the run's window), at most `limit`, the newest before `to` when the range holds more; " +
          "each with the Supertrend, Stochastic RSI, fair value gap and volume profile after it, as a tracker on the run's rules computes them, " +
          "warmed up on the run's warmup_candles before the first candle answered (a range from the run's from gives exactly the run's indicators). " +
          "Read from the market's history at the request, as the run read it; for charting a backtest's trades.",
        params: LabJobParamsSchema,
        querystring: backtestCandlesQuerySchema(lab.chartCandles),
        response: {
          200: PairCandlesSchema,
          404: ErrorEnvelopeSchema.meta({ description: "BACKTEST_NOT_FOUND, or INSTRUMENT_NOT_FOUND: not one of the backtest's instruments" }),
          422: ErrorEnvelopeSchema.meta({ description: "VALIDATION_ERROR: a bad query, to not after from, a range outside the backtest's window" }),
          429: StrategyRateLimitedSchema,
          502: ErrorEnvelopeSchema.meta({ description: 'DOWNSTREAM_ERROR: the market-data service failed to answer the history' }),
          503: ErrorEnvelopeSchema.meta({ description: 'DOWNSTREAM_UNAVAILABLE: the market-data service cannot be reached' }),
          504: ErrorEnvelopeSchema.meta({ description: 'DOWNSTREAM_TIMEOUT: the market-data service did not answer in time' }),
        },
      },
    },
    async (request) => lab.candles(request.params.id, request.query),
  );

  app.delete(
    '/backtests/:id',
    {
      ...SCOPE_LIMITED,
      schema: {
        tags: ['lab'],
        summary: 'Cancel a queued or running backtest, or delete one that has ended',
        description:
          "200 with the backtest, now cancelled; 204 when it had ended and is deleted. A sweep's backtest goes with its sweep (409 BACKTEST_IN_SWEEP).",
        params: LabJobParamsSchema,
        response: {
          200: BacktestSchema,
          204: Deleted,
          404: NotFound,
          409: ErrorEnvelopeSchema.meta({ description: 'BACKTEST_IN_SWEEP: delete its sweep instead' }),
          429: StrategyRateLimitedSchema,
        },
      },
    },
    async (request, reply) => {
      const cancelled = await lab.deleteBacktest(request.params.id);
      return cancelled ? cancelled : reply.code(204).send();
    },
  );

  app.post(
    '/sweeps',
    {
      ...SCOPE_LIMITED,
      schema: {
        tags: ['lab'],
        summary: 'Queue a parameter sweep',
        description:
          "Backtests `base` once per setting — a grid's product or a seeded random sample over rule ranges, at most 256 — ranked by `rank_by`; each is a backtest one can open. " +
          'With `walk_forward`, [from, to) is split into windows: each setting runs on every in-sample part, the best one runs on the out-of-sample part after it. Answers 202 with the id; follow GET /sweeps/{id}.',
        body: SweepRequestSchema,
        response: { 202: LabJobCreatedSchema, ...SUBMIT_REFUSALS },
      },
    },
    async (request, reply) => {
      const created = await lab.submitSweep(request.body);
      return reply.code(202).send(created);
    },
  );

  app.get(
    '/sweeps',
    {
      ...SCOPE_LIMITED,
      schema: {
        tags: ['lab'],
        summary: 'Sweeps, newest first',
        description: 'Each with its best result so far; follow `next_cursor` (as `cursor`) for older ones.',
        querystring: SweepListQuerySchema,
        response: { 200: SweepListSchema, 422: ErrorEnvelopeSchema, 429: StrategyRateLimitedSchema },
      },
    },
    async (request) => lab.sweeps(request.query),
  );

  app.get(
    '/sweeps/:id',
    {
      ...SCOPE_LIMITED,
      schema: {
        tags: ['lab'],
        summary: 'One sweep: status, progress, its ranking and the walk-forward windows',
        params: LabJobParamsSchema,
        response: { 200: SweepSchema, 404: NotFound, 429: StrategyRateLimitedSchema },
      },
    },
    async (request) => lab.sweep(request.params.id),
  );

  app.delete(
    '/sweeps/:id',
    {
      ...SCOPE_LIMITED,
      schema: {
        tags: ['lab'],
        summary: 'Cancel a queued or running sweep, or delete one that has ended with its backtests',
        description: '200 with the sweep, now cancelled (its unfinished backtests too); 204 when it had ended and is deleted.',
        params: LabJobParamsSchema,
        response: { 200: SweepSchema, 204: Deleted, 404: NotFound, 429: StrategyRateLimitedSchema },
      },
    },
    async (request, reply) => {
      const cancelled = await lab.deleteSweep(request.params.id);
      return cancelled ? cancelled : reply.code(204).send();
    },
  );
}
