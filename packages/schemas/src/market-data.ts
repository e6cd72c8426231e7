import { z } from 'zod';
import { ErrorEnvelopeSchema } from './error.js';
import { BrokerSymbolSchema, IsoTimestampSchema, TIMEFRAMES, TimeframeSchema } from './primitives.js';

/**
 * The market-data service's contract (spec 002 C): the request and response schemas of its
 * routes and the data of its stream's events, shared by the service (validation, the OpenAPI
 * document) and @fxdesk/client (each answer checked with the same schema).
 */

/** A live quote as the market-data service streams it (spec 002, SSE event `tick`). */
export const TickSchema = z
  .object({
    symbol: z.string(),
    bid: z.number(),
    ask: z.number(),
    spread: z.number(),
    ts: IsoTimestampSchema,
    provider: z.string(),
  })
  .meta({ id: 'Tick' });
export type Tick = z.infer<typeof TickSchema>;

/** A closed candle of spec 002 (C): `ts` is the END of the bar's UTC interval. */
export const IntervalCandleSchema = z
  .object({
    ts: IsoTimestampSchema.meta({ description: 'End of the candle interval (UTC)' }),
    open: z.number(),
    high: z.number(),
    low: z.number(),
    close: z.number(),
    volume: z.number(),
    provider: z.string(),
    source_instrument: z.string(),
    spread: z.number().nullable(),
    spread_source: z.string().nullable(),
  })
  .meta({ id: 'IntervalCandle' });
export type IntervalCandle = z.infer<typeof IntervalCandleSchema>;

/** Data of the stream's `status` event: the service's connection to its broker (DESIGN.md §4). */
export const StatusEventSchema = z
  .object({
    state: z.enum(['connected', 'disconnected', 'stale']),
    dropped: z.number().int().meta({ description: 'Ticks discarded for this client since it connected' }),
    ts: IsoTimestampSchema,
    reason: z.string().optional(),
  })
  .meta({ id: 'StatusEvent' });
export type StatusEvent = z.infer<typeof StatusEventSchema>;

/** One entry of the symbol catalog. */
export const CatalogEntrySchema = z
  .object({
    symbol: z.string().meta({ description: 'Name as the broker spells it, e.g. EURUSD' }),
    symbolId: z.number().int().meta({ description: "The broker's integer symbol id" }),
    digits: z.number().int().meta({ description: 'Decimal places of a price' }),
    enabled: z.boolean().meta({ description: 'Whether the service subscribes to its quotes' }),
    description: z.string(),
  })
  .meta({ id: 'CatalogEntry' });
export type CatalogEntry = z.infer<typeof CatalogEntrySchema>;

/** GET /v1/symbols. */
export const CatalogSchema = z.object({ symbols: z.array(CatalogEntrySchema) }).meta({ id: 'Catalog' });

/** GET /v1/market-data/tick's query. */
export const TickQuerySchema = z.object({ symbol: BrokerSymbolSchema });

/** GET /v1/market-data/candles's query; `count` is capped by the MAX_CANDLES setting. */
export function candlesQuerySchema(maxCandles: number) {
  return z.object({
    symbol: BrokerSymbolSchema,
    timeframe: TimeframeSchema.default('M1').meta({ description: `One of ${TIMEFRAMES.join(' ')}; default M1` }),
    count: z.coerce
      .number()
      .int()
      .min(1)
      .max(maxCandles)
      .default(100)
      .meta({ description: `Closed candles to return, newest last; default 100, at most MAX_CANDLES (${maxCandles})` }),
  });
}

/** GET /v1/market-data/candles. */
export const IntervalCandlesSchema = z
  .object({
    symbol: z.string(),
    timeframe: TimeframeSchema,
    candles: z.array(IntervalCandleSchema),
  })
  .meta({ id: 'IntervalCandles' });

const SymbolListSchema = z
  .string()
  .regex(/[^\s,]/, { message: 'list at least one symbol, or omit the parameter for all' })
  .transform((value) =>
    value
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s.length > 0),
  )
  .meta({ description: 'Comma-separated symbols, e.g. EURUSD,GBPUSD; omitted means every symbol', example: 'EURUSD,GBPUSD' });

/** GET /v1/stream/ticks's query. */
export const TickStreamQuerySchema = z.object({ symbols: SymbolListSchema.optional() });

/** What a route that asks the broker can answer beside its own 200. */
const BROKER_READ_ERRORS = {
  404: ErrorEnvelopeSchema.describe('A symbol the catalog does not list (`symbol_not_found`)'),
  502: ErrorEnvelopeSchema.describe('The broker failed to answer (`broker_error`)'),
  503: ErrorEnvelopeSchema.describe('The broker session is not connected (`broker_unavailable`)'),
  504: ErrorEnvelopeSchema.describe('The broker did not answer in time (`broker_timeout`)'),
};

/** Every answer of each market-data route, by status, as the routes declare them. */
export const marketDataResponses = {
  tick: {
    200: TickSchema,
    404: ErrorEnvelopeSchema.describe('An unknown symbol (`symbol_not_found`), or none of its quotes yet (`no_quote_yet`)'),
    503: ErrorEnvelopeSchema.describe('The symbol catalog is not loaded yet (`broker_unavailable`)'),
  },
  candles: { 200: IntervalCandlesSchema, ...BROKER_READ_ERRORS },
  symbols: {
    200: CatalogSchema,
    503: ErrorEnvelopeSchema.describe('The catalog is not loaded yet: the broker session has not connected (`broker_unavailable`)'),
  },
  stream: {
    200: {
      description: 'The event stream: `event: tick` and `event: status` frames, each with an `id:` and JSON `data:`',
      content: { 'text/event-stream': { schema: z.string() } },
    },
    404: ErrorEnvelopeSchema.describe('A requested symbol the catalog does not list (`symbol_not_found`)'),
    503: ErrorEnvelopeSchema.describe('MAX_STREAM_CLIENTS reached (`too_many_clients`), or the catalog not loaded yet (`broker_unavailable`)'),
  },
};
