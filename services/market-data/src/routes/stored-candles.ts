import type { App } from '@fxdesk/core';
import { BrokerSymbolSchema, ErrorEnvelopeSchema, IsoTimestampSchema, Rfc3339Schema, TIMEFRAMES, TimeframeSchema } from '@fxdesk/schemas';
import { z } from 'zod';
import { errors } from '../errors.js';
import type { StoredCandles } from '../store/stored-candles.js';

const StoredCandleSchema = z
  .object({
    time: IsoTimestampSchema.meta({ description: 'Start of the candle interval (UTC)' }),
    open: z.number(),
    high: z.number(),
    low: z.number(),
    close: z.number(),
    volume: z.number().meta({ description: 'As the source counted it (MT5 and MT4: ticks; 0 where the file has none)' }),
    spread: z.number().nullable().meta({ description: "Spread in points as the source gave it (MT5: the bar's); null when it gave none" }),
  })
  .meta({ id: 'StoredCandle' });

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

const StoredCandlesSchema = z
  .object({
    symbol: z.string(),
    timeframe: TimeframeSchema,
    source: z.string(),
    resampled_from: z.enum(['M1']).nullable().meta({ description: 'M1 when the timeframe is not stored and its bars were made from the stored M1' }),
    candles: z.array(StoredCandleSchema).meta({ description: 'Oldest first' }),
    next_cursor: z.string().nullable().meta({ description: 'Pass it as `cursor` for the next page; null when the range holds no more' }),
  })
  .meta({ id: 'StoredCandles' });

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
}
