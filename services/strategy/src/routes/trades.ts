import type { App } from '@fxdesk/core';
import {
  ErrorEnvelopeSchema,
  JournalPageSchema,
  JournalQuerySchema,
  PerformanceQuerySchema,
  PerformanceSchema,
  StrategyRateLimitedSchema,
} from '@fxdesk/schemas';
import { z } from 'zod';
import { CONSOLE_REFUSALS } from '../console-access.js';
import type { JournalReads } from '../journal.js';
import { readRouteOptions, type ReadRouteOptions } from './read-routes.js';

/** GET /trades (the journal, JSON pages or CSV) and GET /performance; with `prefix` '/console', the console's copies. */
export function registerTradeRoutes(app: App, journal: JournalReads, options: ReadRouteOptions = {}): void {
  const { prefix, limits, tags } = readRouteOptions(options, 'journal');
  const refusals = prefix ? CONSOLE_REFUSALS : {};
  app.get(
    `${prefix}/trades`,
    {
      ...limits,
      schema: {
        tags,
        summary: 'The trade journal: closed trades, newest exit first',
        description:
          'Every closed trade of the live account (read from the execution service’s deals, so a stop hit at the venue or a close by hand is journaled too) and of the paper account. Filter by account, instrument, side, exit_reason and exit time; follow `next_cursor` (as `cursor`) for older trades. `format=csv` answers every matching trade as text/csv.',
        querystring: JournalQuerySchema,
        response: {
          200: {
            description: 'A page of the journal; with format=csv, every matching trade as text/csv (a header line, then a line per trade)',
            content: { 'application/json': { schema: JournalPageSchema }, 'text/csv': { schema: z.string() } },
          },
          422: ErrorEnvelopeSchema,
          429: StrategyRateLimitedSchema,
          ...refusals,
        },
      },
    },
    async (request, reply) => {
      if (request.query.format === 'json') return journal.page(request.query);
      // A stream is sent as it is (the response schema's serializer is not applied to it).
      const csv = journal.csv(request.query) as unknown as string;
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="fxdesk-trades${request.query.account ? `-${request.query.account}` : ''}.csv"`)
        .send(csv);
    },
  );

  app.get(
    `${prefix}/performance`,
    {
      ...limits,
      schema: {
        tags,
        summary: 'Performance of the live or paper journal over a range',
        description:
          'The lab’s metrics over the journal’s closed trades with an exit in [from, to) (from: the first trade, to: now, when omitted), the realized equity after each trade, and P/L by UTC day and by week (starting Monday). 503 DOWNSTREAM_UNAVAILABLE when the live balance cannot be read; 404 NOT_CONFIGURED for account=live without ACCOUNT_URL.',
        querystring: PerformanceQuerySchema,
        response: {
          200: PerformanceSchema,
          404: ErrorEnvelopeSchema,
          422: ErrorEnvelopeSchema,
          429: StrategyRateLimitedSchema,
          503: ErrorEnvelopeSchema,
          ...refusals,
        },
      },
    },
    async (request) => journal.performance(request.query),
  );
}
