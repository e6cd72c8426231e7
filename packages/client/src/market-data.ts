import {
  CatalogSchema,
  IntervalCandlesSchema,
  StatusEventSchema,
  StoredCandlesSchema,
  StoredCoverageSchema,
  TickSchema,
  type CatalogEntry,
  type IntervalCandle,
  type StatusEvent,
  type StoredCandles,
  type StoredCoverage,
  type Tick,
  type Timeframe,
} from '@fxdesk/schemas';
import { HttpClient, type ClientOptions, type ServiceCall } from './http.js';
import { openEventStream, type EventStream, type EventStreamOptions } from './sse.js';

export type { CatalogEntry } from '@fxdesk/schemas';

/** A page of candles by date range (MarketDataClient.candlePage). */
export interface CandlePage {
  candles: IntervalCandle[];
  /** Where the next page starts: pass it as `from` with the same `to`; null when none is left now. */
  nextFrom: string | null;
}

/** Data of the stream's `status` event: the service's connection to its broker. */
export type StreamStatus = StatusEvent;

/**
 * Every JSON call the client makes, with the schema the service's OpenAPI document names for
 * its answer (the same object the service serializes with). The tick stream is not here: its
 * answer is an event stream, whose `tick` and `status` data are read with TickSchema and
 * StatusEventSchema.
 */
export const marketDataCalls = {
  symbols: { method: 'GET', path: '/v1/symbols', status: 200, schema: CatalogSchema },
  tick: { method: 'GET', path: '/v1/market-data/tick', status: 200, schema: TickSchema },
  candles: { method: 'GET', path: '/v1/market-data/candles', status: 200, schema: IntervalCandlesSchema },
  storedCandles: { method: 'GET', path: '/v1/market-data/stored-candles', status: 200, schema: StoredCandlesSchema },
  storedCoverage: { method: 'GET', path: '/v1/market-data/stored-coverage', status: 200, schema: StoredCoverageSchema },
} as const satisfies Record<string, ServiceCall>;

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
    this.http = new HttpClient('market-data', options, 'x-api-key');
  }

  async symbols(): Promise<CatalogEntry[]> {
    return (await this.http.send(marketDataCalls.symbols)).data.symbols;
  }

  async tick(symbol: string): Promise<Tick> {
    return (await this.http.send(marketDataCalls.tick, { query: { symbol } })).data;
  }

  /** Closed candles, oldest first; `ts` is the END of each candle's interval. */
  async candles(symbol: string, timeframe: Timeframe, count: number): Promise<IntervalCandle[]> {
    return (await this.http.send(marketDataCalls.candles, { query: { symbol, timeframe, count } })).data.candles;
  }

  /**
   * One page of history by date: the closed candles whose interval starts in [from, to) (RFC
   * 3339), oldest first, at most `count` (default: the service's MAX_CANDLES), and the `from`
   * of the next page, or null when the range holds no more closed candles now.
   */
  async candlePage(symbol: string, timeframe: Timeframe, from: string, to: string, count?: number): Promise<CandlePage> {
    const { data } = await this.http.send(marketDataCalls.candles, { query: { symbol, timeframe, from, to, count } });
    return { candles: data.candles, nextFrom: data.next_from ?? null };
  }

  /**
   * One page of the candle store: the candles of a series whose interval starts in [from, to)
   * (`time` is the START of each), oldest first, at most `limit`; `next_cursor` continues it.
   */
  async storedCandles(query: {
    symbol: string;
    timeframe: Timeframe;
    source?: string;
    from?: string;
    to?: string;
    limit?: number;
    cursor?: string;
  }): Promise<StoredCandles> {
    return (await this.http.send(marketDataCalls.storedCandles, { query })).data;
  }

  /** What the candle store holds of [from, to): per series of the symbol (every symbol's when unset), its first and last candle and its gaps. */
  async storedCoverage(query: { symbol?: string; from?: string; to?: string } = {}): Promise<StoredCoverage['series']> {
    return (await this.http.send(marketDataCalls.storedCoverage, { query })).data.series;
  }

  /** GET /v1/stream/ticks, kept open: reconnects with backoff, never gives up until closed. */
  streamTicks({ symbols, onTick, onStatus, ...stream }: TickStreamOptions): EventStream {
    return openEventStream(this.http, {
      ...stream,
      path: '/v1/stream/ticks',
      query: { symbols: symbols?.join(',') },
      onEvent: (event) => {
        if (event.event === 'tick') onTick(TickSchema.parse(JSON.parse(event.data)));
        else if (event.event === 'status') onStatus?.(StatusEventSchema.parse(JSON.parse(event.data)));
      },
    });
  }

  close(): Promise<void> {
    return this.http.close();
  }
}
