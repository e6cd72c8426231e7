import type { App } from '@fxdesk/core';
import {
  ErrorEnvelopeSchema,
  LatestSignalResponseSchema,
  SignalHistoryQuerySchema,
  SignalHistorySchema,
  SignalInstrumentParamsSchema,
  StrategyRateLimitedSchema,
} from '@fxdesk/schemas';
import { SCOPE_LIMITED } from '../rate-limits.js';
import type { StrategyControl } from '../strategy-control.js';

/** GET /signals/{instrument} (spec 000) and GET /signals (history). */
export function registerSignalRoutes(app: App, strategy: StrategyControl): void {
  app.get(
    '/signals/:instrument',
    {
      ...SCOPE_LIMITED,
      schema: {
        tags: ['signals'],
        summary: 'Latest signal of one pair',
        description: '`signal` is null (with a `message`) when the pair has no signal yet; 404 INSTRUMENT_NOT_FOUND for a name the desk does not know.',
        params: SignalInstrumentParamsSchema,
        response: { 200: LatestSignalResponseSchema, 404: ErrorEnvelopeSchema, 429: StrategyRateLimitedSchema },
      },
    },
    async (request) => strategy.latestSignal(request.params.instrument),
  );

  app.get(
    '/signals',
    {
      ...SCOPE_LIMITED,
      schema: {
        tags: ['signals'],
        summary: 'Signal history, newest first',
        description: 'Filter by `instrument`; follow `next_cursor` (as `cursor`) for older signals.',
        querystring: SignalHistoryQuerySchema,
        response: { 200: SignalHistorySchema, 422: ErrorEnvelopeSchema, 429: StrategyRateLimitedSchema },
      },
    },
    async (request) => strategy.history(request.query),
  );
}
