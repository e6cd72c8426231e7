import type { App } from '@fxdesk/core';
import {
  BrokerSymbolSchema,
  ErrorEnvelopeSchema,
  Rfc3339Schema,
  StoredCandlesSchema,
  StoredCoverageSchema,
  TIMEFRAMES,
  TimeframeSchema,
} from '@fxdesk/schemas';
import { z } from 'zod';
import { errors } from '../errors.js';
import type { Gap } from '../store/coverage.js';
import type { StoredCandles } from '../store/stored-candles.js';

export function storedCandlesQuerySchema(maxCandles: number) {
  return z.object({
    symbol: BrokerSymbolSchema.meta({ description: 'The symbol as it was imported, e.g. EUR_USD', example: 'EUR_USD' }),
    timeframe: TimeframeSchema.default('M1').meta({
      description: `One of ${TIMEFRAMES.join(' ')}; default M1. A timeframe not stored is made from the stored M1 of the same source`,
    }),
    source: z
      .string()
      .regex(/^[A-Za-z0-9._-]{1,64}$/, { message: 'expected 1-64 letters, digits, dots, dashes or underscores' })
      .optional()
      .meta({ description: 'Where the candles came from (`npm run data -- import --source`); default: the one source holding the symbol', example: 'file' }),
    from: Rfc3339Schema.optional().meta({
      description: 'The candles whose interval starts at or after this instant; required unless `cursor` is given',
      example: '2024-01-02T00:00:00Z',
    }),
    to: Rfc3339Schema.optional().meta({
      description: 'The candles that start before this instant (exclusive); default: no bound',
      example: '2024-02-01T00:00:00Z',
    }),
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .max(maxCandles)
      .optional()
      .meta({ description: `Candles a page holds at most, 1 to MAX_CANDLES (${maxCandles}); default MAX_CANDLES` }),
    cursor: z
      .string()
      .max(64)
      .optional()
      .meta({ description: 'The `next_cursor` of the page before: the next page (in place of `from`; give the other parameters again)' }),
  });
}

export const StoredCoverageQuerySchema = z.object({
  symbol: BrokerSymbolSchema.optional().meta({ description: "Only this symbol's series; default every series", example: 'EUR_USD' }),
  from: Rfc3339Schema.optional().meta({ description: 'Only the candles that start at or after this instant; default no bound' }),
  to: Rfc3339Schema.optional().meta({ description: 'Only those that start before this instant (exclusive); default no bound' }),
});

/** `next_cursor`: the start of the next page's first candle, opaque to the client. */
function cursorOf(ms: number): string {
  return Buffer.from(`t${ms}`).toString('base64url');
}

function msOfCursor(cursor: string): number {
  const text = Buffer.from(cursor, 'base64url').toString();
  if (!/^t\d{1,16}$/.test(text)) throw errors.create('invalid_cursor', '`cursor` is not a `next_cursor` this service gave');
  return Number(text.slice(1));
}

/** GET /v1/market-data/stored-candles: the candle store by date range (spec 002 adds nothing here; additive). */
export function registerStoredCandleRoutes(app: App, candles: StoredCandles | undefined, maxCandles: number): void {
  app.get(
    '/market-data/stored-candles',
    {
      schema: {
        tags: ['market data'],
        summary: 'Stored candle history of a symbol by date range, oldest first; `time` is the start of each UTC interval',
        description:
          'Candles imported into the store (`npm run data -- import`), a page at a time: those whose interval starts in [from, to), at most ' +
          '`limit`; `next_cursor` gives the next page. A timeframe the store does not hold is made from its M1 (bars start on UTC ' +
          'multiples of their length, D1 at 17:00 New York; none over the FX weekend, Friday to Sunday 17:00 New York). ' +
          '422 `invalid_range` for `from` not before `to`, or neither `from` nor `cursor`; 422 `invalid_cursor`; 422 `source_required` ' +
          'when several sources hold the symbol and none is named; 404 `no_stored_candles`.',
        querystring: storedCandlesQuerySchema(maxCandles),
        response: {
          200: StoredCandlesSchema,
          404: ErrorEnvelopeSchema.describe('Nothing of the symbol is stored, or neither the timeframe nor M1 from the source (`no_stored_candles`)'),
          422: ErrorEnvelopeSchema.describe(
            'A malformed query (`validation_error`); `from` not before `to`, or neither `from` nor `cursor` (`invalid_range`); a `cursor` ' +
              'this service did not give (`invalid_cursor`); several sources hold the symbol and none is named (`source_required`)',
          ),
          503: ErrorEnvelopeSchema.describe('The service runs without a candle store (`store_unavailable`)'),
        },
      },
    },
    async (request) => {
      if (candles === undefined) throw errors.create('store_unavailable', 'this service runs without a candle store');
      const { symbol, timeframe, source, from, to, limit, cursor } = request.query;
      const fromMs = cursor !== undefined ? msOfCursor(cursor) : from !== undefined ? Date.parse(from) : undefined;
      if (fromMs === undefined) throw errors.create('invalid_range', 'give `from` (or the `cursor` of a page)');
      const toMs = to === undefined ? Number.MAX_SAFE_INTEGER : Date.parse(to);
      if (fromMs >= toMs) throw errors.create('invalid_range', '`from` must be before `to`');
      const page = await candles.page({ symbol, timeframe, source, fromMs, toMs, limit: limit ?? maxCandles });
      return {
        symbol,
        timeframe,
        source: page.source,
        resampled_from: page.resampledFrom,
        candles: page.candles.map((c) => ({ ...c, time: new Date(c.time).toISOString() })),
        next_cursor: page.nextMs === null ? null : cursorOf(page.nextMs),
      };
    },
  );

  app.get(
    '/market-data/stored-coverage',
    {
      schema: {
        tags: ['market data'],
        summary: 'What the candle store holds: per symbol, timeframe and source, its first and last candle and the gaps beyond the weekend',
        description:
          'The series the store holds (`npm run data -- import`, `download`), each with the first and last candle that start in [from, to) ' +
          'and the gaps between them: the range a backtest on stored candles (the lab`s source `stored`) can run on. ' +
          '`npm run data -- coverage` also counts the candles and lists suspicious bars. 422 `invalid_range` for `from` not before `to`.',
        querystring: StoredCoverageQuerySchema,
        response: {
          200: StoredCoverageSchema,
          422: ErrorEnvelopeSchema.describe('A malformed query (`validation_error`); `from` not before `to` (`invalid_range`)'),
          503: ErrorEnvelopeSchema.describe('The service runs without a candle store (`store_unavailable`)'),
        },
      },
    },
    async (request) => {
      if (candles === undefined) throw errors.create('store_unavailable', 'this service runs without a candle store');
      const { symbol, from, to } = request.query;
      const fromMs = from === undefined ? 0 : Date.parse(from);
      const toMs = to === undefined ? Number.MAX_SAFE_INTEGER : Date.parse(to);
      if (fromMs >= toMs) throw errors.create('invalid_range', '`from` must be before `to`');
      const iso = (ms: number) => new Date(ms).toISOString();
      const gapOf = (g: Gap) => ({ from: iso(g.fromMs), to: iso(g.toMs), open_minutes: g.openMinutes });
      const series = await candles.coverage(symbol, fromMs, toMs);
      return {
        series: series.map((s) => ({
          symbol: s.symbol,
          timeframe: s.timeframe,
          source: s.source,
          first: s.firstMs === null ? null : iso(s.firstMs),
          last: s.lastMs === null ? null : iso(s.lastMs),
          gaps: s.gaps.map(gapOf),
          missing: s.missing.map(gapOf),
        })),
      };
    },
  );
}
