import type { App } from '@fxdesk/core';
import {
  ErrorEnvelopeSchema,
  LatestSignalResponseSchema,
  SignalHistoryQuerySchema,
  SignalHistorySchema,
  SignalInstrumentParamsSchema,
  StrategyRateLimitedSchema,
} from '@fxdesk/schemas';
import { CONSOLE_REFUSALS } from '../console-access.js';
import type { StrategyControl } from '../strategy-control.js';
import { readRouteOptions, type ReadRouteOptions } from './read-routes.js';

/** GET /signals/{instrument} (spec 000) and GET /signals (history); with `prefix` '/console', the console's copies. */
export function registerSignalRoutes(app: App, strategy: StrategyControl, options: ReadRouteOptions = {}): void {
  const { prefix, limits, tags } = readRouteOptions(options, 'signals');
  const refusals = prefix ? CONSOLE_REFUSALS : {};
  app.get(
    `${prefix}/signals/:instrument`,
    {
      ...limits,
      schema: {
        tags,
        summary: 'Latest signal of one pair',
        description: '`signal` is null (with a `message`) when the pair has no signal yet; 404 INSTRUMENT_NOT_FOUND for a name the desk does not know.',
        params: SignalInstrumentParamsSchema,
        response: { 200: LatestSignalResponseSchema, 404: ErrorEnvelopeSchema, 429: StrategyRateLimitedSchema, ...refusals },
      },
    },
    async (request) => strategy.latestSignal(request.params.instrument),
  );

  app.get(
    `${prefix}/signals`,
    {
      ...limits,
      schema: {
        tags,
        summary: 'Signal history, newest first',
        description: 'Filter by `instrument`; follow `next_cursor` (as `cursor`) for older signals.',
        querystring: SignalHistoryQuerySchema,
        response: { 200: SignalHistorySchema, 422: ErrorEnvelopeSchema, 429: StrategyRateLimitedSchema, ...refusals },
      },
    },
    async (request) => strategy.history(request.query),
  );
}
