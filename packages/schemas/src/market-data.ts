import { z } from 'zod';
import { ErrorEnvelopeSchema } from './error.js';
import { BrokerSymbolSchema, IsoTimestampSchema, Rfc3339Schema, TIMEFRAMES, TimeframeSchema } from './primitives.js';

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

/** Candles a GET /v1/market-data/candles without a range answers when `count` is not given. */
export const DEFAULT_CANDLE_COUNT = 100;

/**
 * GET /v1/market-data/candles's query; `count` is capped by the MAX_CANDLES setting. Without
 * `from`, the newest closed candles; with it, the closed candles whose interval starts in
 * [from, to), oldest first, a page at a time (`next_from`). The service answers 422
 * `invalid_range` for `from` not before `to`, and for `to` without `from`.
 */
export function candlesQuerySchema(maxCandles: number) {
  return z.object({
    symbol: BrokerSymbolSchema,
    timeframe: TimeframeSchema.default('M1').meta({ description: `One of ${TIMEFRAMES.join(' ')}; default M1` }),
    count: z.coerce
      .number()
      .int()
      .min(1)
      .max(maxCandles)
      .optional()
      .meta({
        description:
          `Closed candles to return, at most MAX_CANDLES (${maxCandles}). Without a range: the newest, ` +
          `default ${DEFAULT_CANDLE_COUNT}. With one: the page size, default MAX_CANDLES`,
      }),
    from: Rfc3339Schema.optional().meta({
      description: 'The candles whose interval starts at or after this instant (`ts` minus the timeframe), oldest first',
      example: '2026-01-05T00:00:00Z',
    }),
    to: Rfc3339Schema.optional().meta({
      description:
        'Only with `from` (without it: 422 `invalid_range`): the candles that start before this instant (exclusive); default now. ' +
        'A candle still forming is never returned',
      example: '2026-01-10T00:00:00Z',
    }),
  });
}

/** GET /v1/market-data/candles. */
export const IntervalCandlesSchema = z
  .object({
    symbol: z.string(),
    timeframe: TimeframeSchema,
    candles: z.array(IntervalCandleSchema),
    next_from: IsoTimestampSchema.nullable().optional().meta({
      description:
        'Only with `from`: where the next page starts (pass it as `from`, with the same `to`), or null when the range holds no more closed candles now',
    }),
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
  503: ErrorEnvelopeSchema.describe(
    'The broker session is not connected (`broker_unavailable`); on a replica that does not hold the venue, also when it cannot ' +
      'forward the request to the one that does (none at the moment, one without REPLICA_URL, or no answer in time), with `Retry-After`',
  ),
  504: ErrorEnvelopeSchema.describe('The broker did not answer in time (`broker_timeout`)'),
};

/** Every answer of each market-data route, by status, as the routes declare them. */
export const marketDataResponses = {
  tick: {
    200: TickSchema,
    404: ErrorEnvelopeSchema.describe('An unknown symbol (`symbol_not_found`), or none of its quotes yet (`no_quote_yet`)'),
    503: ErrorEnvelopeSchema.describe('The symbol catalog is not loaded yet (`broker_unavailable`)'),
  },
  candles: {
    200: IntervalCandlesSchema,
    ...BROKER_READ_ERRORS,
    422: ErrorEnvelopeSchema.describe('A malformed query (`validation_error`), or `from` not before `to`, or `to` without `from` (`invalid_range`)'),
  },
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

// ── The candle store (issue 26) ──────────────────────────────────────────────────────────

/** Missing market time longer than this (or one bar) is a gap in the candle store. */
export const STORED_GAP_MINUTES = 30;

export const StoredCandleSchema = z
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

/** GET /v1/market-data/stored-candles: a page of the candle store. */
export const StoredCandlesSchema = z
  .object({
    symbol: z.string(),
    timeframe: TimeframeSchema,
    source: z.string(),
    resampled_from: z.enum(['M1']).nullable().meta({ description: 'M1 when the timeframe is not stored and its bars were made from the stored M1' }),
    candles: z.array(StoredCandleSchema).meta({ description: 'Oldest first' }),
    next_cursor: z.string().nullable().meta({ description: 'Pass it as `cursor` for the next page; null when the range holds no more' }),
  })
  .meta({ id: 'StoredCandles' });
export type StoredCandles = z.infer<typeof StoredCandlesSchema>;

const StoredGapSchema = z.object({
  from: IsoTimestampSchema.meta({ description: 'The end of the bar before the gap (UTC)' }),
  to: IsoTimestampSchema.meta({ description: 'The start of the bar after it' }),
  open_minutes: z.number().int().meta({ description: 'Market minutes missing: its length less the FX weekend it spans' }),
});

/** GET /v1/market-data/stored-coverage: what the candle store holds. */
export const StoredCoverageSchema = z
  .object({
    series: z.array(
      z.object({
        symbol: z.string(),
        timeframe: TimeframeSchema,
        source: z.string(),
        first: IsoTimestampSchema.nullable().meta({ description: 'Start of the first candle held in the range; null when it holds none there' }),
        last: IsoTimestampSchema.nullable().meta({ description: 'Start of the last candle held in the range' }),
        gaps: z.array(StoredGapSchema).meta({
          description: `Missing market time between first and last longer than ${STORED_GAP_MINUTES} minutes (or one bar), the weekend (Friday to Sunday 17:00 New York) left out; holidays show`,
        }),
        missing: z.array(StoredGapSchema).meta({
          description:
            'All the series lacks of the range: its gaps, and the market time (beyond the same threshold) from `from` to its first candle and from the end of its last to `to`, each end only when bounded; the whole range when it holds nothing there',
        }),
      }),
    ),
  })
  .meta({ id: 'StoredCoverage' });
export type StoredCoverage = z.infer<typeof StoredCoverageSchema>;

/** The file formats of an import (`npm run data -- import --format`, the upload's `format`); each also gzipped. */
export const CANDLE_FILE_FORMATS = ['mt5', 'mt4', 'histdata', 'dukascopy', 'csv'] as const;

/** The media types an upload of a candle file is sent as: its bytes as they are, gzipped or not. */
export const CANDLE_FILE_MEDIA_TYPES = ['text/csv', 'text/plain', 'application/gzip', 'application/octet-stream'] as const;

/** The name a series' source goes by (`--source`, the upload's `source`). */
export const CandleSourceNameSchema = z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, { message: 'expected 1-64 letters, digits, dots, dashes or underscores' });

/** POST /v1/market-data/stored-candles/imports's query: what `npm run data -- import` takes as options. */
export const StoredCandleImportQuerySchema = z.object({
  symbol: BrokerSymbolSchema.meta({ description: 'The symbol the candles are stored under, e.g. EUR_USD', example: 'EUR_USD' }),
  format: z
    .enum(CANDLE_FILE_FORMATS)
    .optional()
    .meta({ description: `One of ${CANDLE_FILE_FORMATS.join(', ')}; default: detected from the first line` }),
  tz: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .meta({
      description:
        'The server time of mt5, mt4 and zone-less csv times: UTC, an offset (+2, -05:00) or an IANA zone (Europe/Athens, DST-aware); default UTC. ' +
        'histdata is always EST without DST and dukascopy GMT: a `tz` with either is refused (`invalid_import`)',
      example: 'Europe/Athens',
    }),
  timeframe: TimeframeSchema.default('M1').meta({ description: `The timeframe the file holds: one of ${TIMEFRAMES.join(' ')}; default M1` }),
  source: CandleSourceNameSchema.default('file').meta({ description: 'Where the candles came from, part of their key; default file', example: 'file' }),
});
export type StoredCandleImportQuery = z.input<typeof StoredCandleImportQuerySchema>;

/** POST /v1/market-data/stored-candles/imports: what an import read, added and skipped. */
export const StoredCandleImportSchema = z
  .object({
    symbol: z.string(),
    timeframe: TimeframeSchema,
    source: z.string(),
    format: z.enum(CANDLE_FILE_FORMATS).meta({ description: 'The format the file was read as (detected, or given)' }),
    time_zone: z.string().meta({ description: "How the file's times were read into UTC (UTC, the `tz` given, or UTC-5 for histdata)" }),
    rows_read: z.number().int().meta({ description: 'Data rows read, the header and empty lines aside' }),
    imported: z.number().int().meta({ description: 'Candles the store did not hold yet, now added' }),
    already_held: z.number().int().meta({ description: 'Well-formed candles the store already held (a re-import adds nothing)' }),
    skipped: z
      .object({ malformed: z.number().int(), out_of_order: z.number().int(), duplicate: z.number().int() })
      .meta({ description: 'Rows left out, by why' }),
    rejects: z
      .array(z.object({ line: z.number().int().meta({ description: 'Line number in the file, from 1' }), reason: z.string() }))
      .meta({ description: 'The first 20 rows left out, by line number' }),
    first: IsoTimestampSchema.nullable().meta({ description: 'Start of the first candle read (UTC); null when none was' }),
    last: IsoTimestampSchema.nullable().meta({ description: 'Start of the last candle read' }),
  })
  .meta({ id: 'StoredCandleImport' });
export type StoredCandleImport = z.infer<typeof StoredCandleImportSchema>;
