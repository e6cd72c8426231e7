import { FeedEvents, type Bar, type FeedState, type FeedSymbol, type Quote, type QuoteFeed, type Timeframe } from '@fxdesk/broker';
import type { Clock } from '@fxdesk/primitives';

export const FAKE_SYMBOLS: FeedSymbol[] = [
  { symbolId: 1, name: 'EURUSD', digits: 5, pipPosition: 4, enabled: true, description: 'Euro vs US Dollar' },
  { symbolId: 2, name: 'GBPUSD', digits: 5, pipPosition: 4, enabled: true, description: 'Pound vs US Dollar' },
  { symbolId: 3, name: 'USDJPY', digits: 3, pipPosition: 2, enabled: true, description: 'US Dollar vs Yen' },
  { symbolId: 41, name: 'XAUUSD', digits: 2, pipPosition: 2, enabled: false, description: 'Gold vs US Dollar' },
];

/**
 * A QuoteFeed a test drives by hand: it emits exactly the quotes and state changes the test
 * asks for, answers trendbars from a list the test sets, and opens or closes the market.
 */
export class FakeFeed extends FeedEvents implements QuoteFeed {
  readonly name = 'fake';
  marketOpen = true;
  /** Symbols whose own session is closed while the market is open. */
  closedSymbols = new Set<string>();
  /** Connection attempts that fail before one succeeds. */
  failConnects = 0;
  /** Catalog requests that fail (after a successful connection) before one succeeds. */
  failSymbols = 0;
  /** The catalog `symbols()` answers. */
  catalog: FeedSymbol[] = FAKE_SYMBOLS;
  connectCalls = 0;
  subscribed = new Set<string>();
  bars: Bar[] = [];
  lastTrendbarRequest: { symbol: string; timeframe: Timeframe; count: number } | undefined;
  rangeRequests: { symbol: string; timeframe: Timeframe; fromMs: number; toMs: number; limit: number }[] = [];

  constructor(protected readonly clock: Clock) {
    super();
  }

  async connect(): Promise<void> {
    this.connectCalls++;
    if (this.failConnects > 0) {
      this.failConnects--;
      throw new Error('connection refused');
    }
    this.setState('connected', 'connected');
  }

  async close(): Promise<void> {
    this.current = 'disconnected';
  }

  async symbols(): Promise<FeedSymbol[]> {
    if (this.failSymbols > 0) {
      this.failSymbols--;
      throw new Error('catalog request timed out');
    }
    return this.catalog;
  }

  async subscribe(symbols: string[]): Promise<void> {
    for (const s of symbols) this.subscribed.add(s);
  }

  async unsubscribe(symbols: string[]): Promise<void> {
    for (const s of symbols) this.subscribed.delete(s);
  }

  async trendbars(symbol: string, timeframe: Timeframe, count: number): Promise<Bar[]> {
    this.lastTrendbarRequest = { symbol, timeframe, count };
    return this.bars.slice(-count);
  }

  /** The closed bars of `bars` opening in [fromMs, toMs), the oldest `limit`. */
  async trendbarsBetween(symbol: string, timeframe: Timeframe, fromMs: number, toMs: number, limit: number): Promise<Bar[]> {
    this.rangeRequests.push({ symbol, timeframe, fromMs, toMs, limit });
    return this.bars.filter((bar) => bar.closed && bar.time * 1000 >= fromMs && bar.time * 1000 < toMs).slice(0, limit);
  }

  isMarketOpen(symbol: string): boolean {
    return this.marketOpen && !this.closedSymbols.has(symbol);
  }

  /** Emits a quote of `symbol` stamped now. */
  quote(symbol: string, bid: number, ask: number): Quote {
    const quote = { symbol, bid, ask, time: this.clock.now() };
    this.emitQuote(quote);
    return quote;
  }

  setState(state: FeedState, reason?: string): void {
    this.transition(state, reason);
  }
}
