import type { Bar, FeedState, FeedStateChange, FeedSymbol, Quote, QuoteFeed, SimulatedFeed, SimulatedMarket, Timeframe, Unsubscribe } from '@fxdesk/broker';
import { PacedTicks } from './paced-ticks.js';

/**
 * The simulated feed (catalog, session, trendbars, market hours) with its quotes replaced by
 * PacedTicks at an exact rate, so the benchmark's load is R ticks/s whatever the hour.
 */
export class RateFeed implements QuoteFeed {
  readonly name: string;
  private readonly listeners = new Set<(quote: Quote) => void>();
  private readonly ticks: PacedTicks;

  constructor(
    private readonly inner: SimulatedFeed,
    market: SimulatedMarket,
    symbols: readonly string[],
    ratePerSecond: number,
  ) {
    this.name = inner.name;
    this.ticks = new PacedTicks(market, symbols, ratePerSecond, (quote) => {
      for (const listener of this.listeners) listener(quote);
    });
  }

  async connect(): Promise<void> {
    await this.inner.connect();
    this.ticks.start();
  }

  async close(): Promise<void> {
    this.ticks.stop();
    await this.inner.close();
  }

  state(): FeedState {
    return this.inner.state();
  }

  onState(listener: (change: FeedStateChange) => void): Unsubscribe {
    return this.inner.onState(listener);
  }

  onQuote(listener: (quote: Quote) => void): Unsubscribe {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  symbols(): Promise<FeedSymbol[]> {
    return this.inner.symbols();
  }

  subscribe(symbols: string[]): Promise<void> {
    return this.inner.subscribe(symbols);
  }

  unsubscribe(symbols: string[]): Promise<void> {
    return this.inner.unsubscribe(symbols);
  }

  trendbars(symbol: string, timeframe: Timeframe, count: number): Promise<Bar[]> {
    return this.inner.trendbars(symbol, timeframe, count);
  }

  trendbarsBetween(symbol: string, timeframe: Timeframe, fromMs: number, toMs: number, limit: number): Promise<Bar[]> {
    return this.inner.trendbarsBetween(symbol, timeframe, fromMs, toMs, limit);
  }

  isMarketOpen(symbol: string, epochMs: number): boolean {
    return this.inner.isMarketOpen(symbol, epochMs);
  }
}
