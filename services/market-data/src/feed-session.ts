import type { FeedStateChange, FeedSymbol, Quote, QuoteFeed, Unsubscribe } from '@fxdesk/broker';
import { backoffDelayMs, type Clock, type TimerHandle } from '@fxdesk/primitives';
import type { Logger } from 'pino';

export interface FeedSessionOptions {
  feed: QuoteFeed;
  clock: Clock;
  logger: Logger;
  /** Longest wait between two connection attempts; the wait doubles from 1 s up to it. */
  reconnectMaxMs: number;
  /** Symbols to serve; empty: every enabled symbol of the catalog. */
  symbols: readonly string[];
  onQuote: (quote: Quote) => void;
  onState: (change: FeedStateChange) => void;
  /** The catalog served and the symbols subscribed, once loaded (before the first subscription). */
  onCatalog: (catalog: ReadonlyMap<string, FeedSymbol>, subscribed: readonly string[]) => void;
}

const FIRST_RETRY_MS = 1000;

/**
 * Keeps the broker feed connected and subscribed to every enabled symbol of its catalog. The
 * feed reconnects by itself after a drop (QuoteFeed's contract); this session covers what is
 * left: a first connection that fails, and a feed left disconnected, which it retries with a
 * capped exponential backoff on the injected clock.
 */
export class FeedSession {
  private readonly options: FeedSessionOptions;
  private readonly listeners: Unsubscribe[] = [];
  private catalog: ReadonlyMap<string, FeedSymbol> | undefined;
  private subscribed: readonly string[] | undefined;
  private retryTimer: TimerHandle | undefined;
  private failures = 0;
  /** The failure last logged as a warning: the same one again is logged at debug level only. */
  private lastWarned: string | undefined;
  private isStopped = false;

  constructor(options: FeedSessionOptions) {
    this.options = options;
  }

  /** The symbol catalog by name, once a connection has loaded it. */
  symbols(): ReadonlyMap<string, FeedSymbol> | undefined {
    return this.catalog;
  }

  /** The symbols served with live quotes (the catalog's enabled ones), once it is loaded. */
  subscribedSymbols(): readonly string[] | undefined {
    return this.subscribed;
  }

  /** Subscribes to the feed and makes the first connection attempt (retries run in the background). */
  async start(): Promise<void> {
    const { feed } = this.options;
    this.listeners.push(feed.onQuote(this.options.onQuote));
    this.listeners.push(
      feed.onState((change) => {
        this.options.onState(change);
        if (change.state === 'connected') {
          this.failures = 0;
          this.lastWarned = undefined;
        }
        if (change.state === 'disconnected') this.scheduleRetry();
      }),
    );
    await this.attempt();
  }

  /** Stops retrying and listening; the feed itself is closed by whoever made it. */
  stop(): void {
    this.isStopped = true;
    this.clearRetry();
    for (const unsubscribe of this.listeners.splice(0)) unsubscribe();
  }

  private async attempt(): Promise<void> {
    const { feed, logger } = this.options;
    if (this.isStopped || feed.state() === 'connecting') return;
    try {
      if (feed.state() !== 'connected') await feed.connect();
      if (!this.catalog || !this.subscribed) {
        this.catalog = this.served(await feed.symbols());
        this.subscribed = [...this.catalog.values()].filter((s) => s.enabled).map((s) => s.name);
        this.options.onCatalog(this.catalog, this.subscribed);
      }
      await feed.subscribe([...this.subscribed]);
      this.failures = 0;
    } catch (err) {
      this.failures++;
      // A refused token or a maintenance fails every attempt alike until it changes: say it once.
      const message = err instanceof Error ? err.message : String(err);
      if (message === this.lastWarned) logger.debug({ attempt: this.failures }, 'broker feed connection failed again, for the same reason; retrying');
      else logger.warn({ err, attempt: this.failures }, 'broker feed connection failed; retrying');
      this.lastWarned = message;
      this.scheduleRetry();
    }
  }

  /**
   * The catalog this service serves: the broker's, narrowed to SYMBOLS when set (a real account
   * lists hundreds of symbols; subscribing them all costs the broker's rate limits for nothing).
   */
  private served(catalog: FeedSymbol[]): ReadonlyMap<string, FeedSymbol> {
    const wanted = this.options.symbols;
    const byName = new Map(catalog.map((s) => [s.name, s]));
    if (wanted.length === 0) return byName;
    const missing = wanted.filter((name) => !byName.has(name));
    if (missing.length > 0) this.options.logger.warn({ missing }, 'SYMBOLS names symbols the broker does not list; they are not served');
    return new Map(wanted.filter((name) => byName.has(name)).map((name) => [name, byName.get(name) as FeedSymbol]));
  }

  private scheduleRetry(): void {
    if (this.isStopped || this.retryTimer) return;
    const delayMs = backoffDelayMs({ baseMs: FIRST_RETRY_MS, capMs: this.options.reconnectMaxMs }, Math.max(0, this.failures - 1));
    this.retryTimer = this.options.clock
      .setTimeout(() => {
        this.retryTimer = undefined;
        // The feed may have reconnected on its own meanwhile; only a feed still down is retried.
        if (this.options.feed.state() === 'disconnected' || !this.catalog) void this.attempt();
      }, delayMs)
      .unref();
  }

  private clearRetry(): void {
    if (this.retryTimer) this.options.clock.clearTimer(this.retryTimer);
    this.retryTimer = undefined;
  }
}
