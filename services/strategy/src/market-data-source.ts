import type { MarketDataClient } from '@fxdesk/client';
import type { Clock } from '@fxdesk/primitives';
import { TIMEFRAME_SECONDS, type Timeframe } from '@fxdesk/schemas';
import { candleOfInterval, type MarketCandle, type MarketSource, type QuoteHandlers, type QuoteSubscription, type SourceSymbol } from './market-source.js';

/**
 * Prices from the market-data service: REST for the catalog and closed candles, the SSE tick
 * stream for live quotes (kept open: it reconnects with a doubling delay up to 30 s).
 */
export class MarketDataSource implements MarketSource {
  readonly name = 'market-data';
  private cachedCatalog: SourceSymbol[] | undefined;
  /** Latest mid of every symbol the stream delivered, for currency conversion. */
  private readonly mids = new Map<string, number>();

  constructor(
    private readonly client: MarketDataClient,
    /** Schedules the tick stream's reconnections. */
    private readonly clock?: Clock,
  ) {}

  /** The enabled symbols: the service streams no quotes of a disabled one, so it cannot be monitored. */
  async catalog(): Promise<SourceSymbol[]> {
    this.cachedCatalog ??= (await this.client.symbols()).filter((e) => e.enabled).map((e) => ({ symbol: e.symbol, digits: e.digits }));
    return this.cachedCatalog;
  }

  async closedCandles(symbol: string, timeframe: Timeframe, count: number): Promise<MarketCandle[]> {
    const candles = await this.client.candles(symbol, timeframe, count);
    // Spec 002 stamps a candle with the END of its interval; the indicators take the open.
    const length = TIMEFRAME_SECONDS[timeframe];
    return candles.map((c) => candleOfInterval(c, length));
  }

  subscribe(symbols: string[], handlers: QuoteHandlers): QuoteSubscription {
    return this.client.streamTicks({
      symbols,
      timers: this.clock,
      onOpen: () => handlers.onHealthy?.(),
      // A stream the service ends cleanly is a restart or a shutdown (the whole desk stopping):
      // no failure yet; the reconnection tells, and reports if it is refused.
      onDisconnect: (err) => {
        if (err.code !== 'stream_ended') handlers.onTrouble?.(err);
      },
      onListenerError: (err) => handlers.onTrouble?.(err),
      onStatus: (status) => {
        // The service answers, but its own broker feed may be down or silent.
        if (status.state === 'connected') handlers.onHealthy?.();
        else handlers.onTrouble?.({ code: `feed_${status.state}`, message: status.reason ?? `market-data feed ${status.state}` });
      },
      onTick: (tick) => {
        this.mids.set(tick.symbol, (tick.bid + tick.ask) / 2);
        handlers.onQuote({ symbol: tick.symbol, bid: tick.bid, ask: tick.ask, time: Date.parse(tick.ts) });
      },
    });
  }

  rate(from: string, to: string): number | undefined {
    if (from === to) return 1;
    const direct = this.mids.get(from + to);
    if (direct !== undefined) return direct;
    const inverse = this.mids.get(to + from);
    return inverse === undefined ? undefined : 1 / inverse;
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
