import { IntervalCandleSchema, TickSchema, type IntervalCandle, type Tick, type Timeframe } from '@fxdesk/schemas';
import { z } from 'zod';
import { HttpClient, type ClientOptions } from './http.js';
import { openEventStream, type EventStream, type EventStreamOptions } from './sse.js';

/** One entry of GET /v1/symbols (spec 002 C); other fields pass through. */
export const CatalogEntrySchema = z.looseObject({
  symbol: z.string(),
  symbolId: z.number().int(),
  digits: z.number().int(),
  enabled: z.boolean(),
  description: z.string(),
});
export type CatalogEntry = z.infer<typeof CatalogEntrySchema>;

const CatalogSchema = z.looseObject({ symbols: z.array(CatalogEntrySchema) });
const CandlesSchema = z.looseObject({ symbol: z.string(), timeframe: z.string(), candles: z.array(IntervalCandleSchema) });

/** Data of the stream's `status` event: the service's connection to its broker. */
export const StreamStatusSchema = z.looseObject({
  state: z.enum(['connected', 'disconnected', 'stale']),
  dropped: z.number().int(),
  ts: z.string(),
  reason: z.string().optional(),
});
export type StreamStatus = z.infer<typeof StreamStatusSchema>;

/**
 * The tick stream's handlers, and the connection handlers and reconnection settings of
 * `openEventStream`; `onListenerError` also hears of an event whose data does not parse.
 */
export interface TickStreamOptions extends Omit<EventStreamOptions, 'path' | 'query' | 'onEvent'> {
  /** Symbols to receive; omitted: every symbol. */
  symbols?: string[];
  onTick: (tick: Tick) => void;
  onStatus?: (status: StreamStatus) => void;
}

/** Client of the market-data service (X-API-Key): catalog, latest tick, closed candles, the tick stream. */
export class MarketDataClient {
  private readonly http: HttpClient;

  constructor(options: ClientOptions) {
    this.http = new HttpClient('market-data', options, options.apiKey ? { 'x-api-key': options.apiKey } : {});
  }

  async symbols(): Promise<CatalogEntry[]> {
    return (await this.http.call({ method: 'GET', path: '/v1/symbols', schema: CatalogSchema })).data.symbols;
  }

  async tick(symbol: string): Promise<Tick> {
    return (await this.http.call({ method: 'GET', path: '/v1/market-data/tick', query: { symbol }, schema: TickSchema })).data;
  }

  /** Closed candles, oldest first; `ts` is the END of each candle's interval. */
  async candles(symbol: string, timeframe: Timeframe, count: number): Promise<IntervalCandle[]> {
    const query = { symbol, timeframe, count };
    return (await this.http.call({ method: 'GET', path: '/v1/market-data/candles', query, schema: CandlesSchema })).data.candles;
  }

  /** GET /v1/stream/ticks, kept open: reconnects with backoff, never gives up until closed. */
  streamTicks({ symbols, onTick, onStatus, ...stream }: TickStreamOptions): EventStream {
    return openEventStream(this.http, {
      ...stream,
      path: '/v1/stream/ticks',
      query: { symbols: symbols?.join(',') },
      onEvent: (event) => {
        if (event.event === 'tick') onTick(TickSchema.parse(JSON.parse(event.data)));
        else if (event.event === 'status') onStatus?.(StreamStatusSchema.parse(JSON.parse(event.data)));
      },
    });
  }

  close(): Promise<void> {
    return this.http.close();
  }
}
