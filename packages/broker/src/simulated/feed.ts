import type { Clock, TimerHandle } from '@fxdesk/primitives';
import { TIMEFRAME_SECONDS } from '@fxdesk/schemas';
import { BrokerError } from '../errors.js';
import { FeedEvents } from '../feed-events.js';
import type { FeedSymbol, QuoteFeed } from '../feed.js';
import type { Bar, Quote, Timeframe, Unsubscribe } from '../types.js';
import { MAX_BAR_COUNT, type SimulatedMarket } from './market.js';

export interface SimulatedFeedOptions {
  market: SimulatedMarket;
}

/**
 * A cTrader-style quote feed over the simulated market: a catalog with stable symbol ids, spot
 * subscriptions, trendbars from the market's bars. `connect()` starts the market's live ticking
 * (stop it with `market.stop()` at shutdown). While the feed is down, ticks are missed, as over
 * a real dropped link; subscriptions survive a drop and apply again on reconnect.
 *
 * Like cTrader's spot event after each subscription, a subscription (a new one, or one applied
 * again on reconnect) starts with the symbol's current quote: the market's latest tick, which
 * over a weekend is the last one before the close. No quote is delivered twice.
 */
export class SimulatedFeed extends FeedEvents implements QuoteFeed {
  readonly name = 'simulated';
  private readonly market: SimulatedMarket;
  protected readonly clock: Clock;
  /** Subscribed symbols, each with the time of the last quote delivered (−∞ before the first). */
  private readonly subscribed = new Map<string, number>();
  private detachMarket: Unsubscribe | undefined;
  private reconnectTimer: TimerHandle | undefined;

  constructor(options: SimulatedFeedOptions) {
    super();
    this.market = options.market;
    this.clock = options.market.clock;
  }

  async connect(): Promise<void> {
    if (this.current === 'connected') return;
    this.openSession('connect requested', 'session ready');
  }

  async close(): Promise<void> {
    this.cancelReconnect();
    this.closeSession('closed by client');
  }

  async symbols(): Promise<FeedSymbol[]> {
    this.ensureConnected();
    return this.market.symbols().map((spec) => ({
      symbolId: spec.symbolId,
      name: spec.symbol,
      digits: spec.digits,
      pipPosition: -spec.pipLocation,
      enabled: true,
      description: spec.description,
    }));
  }

  /** Subscribes to spots; an unknown symbol fails the whole call with `not_found`. */
  async subscribe(symbols: string[]): Promise<void> {
    this.ensureConnected();
    const unknown = symbols.filter((s) => !this.market.spec(s));
    if (unknown.length > 0) throw new BrokerError('not_found', `unknown symbol(s): ${unknown.join(', ')}`);
    for (const symbol of symbols) {
      if (this.subscribed.has(symbol)) continue;
      this.subscribed.set(symbol, Number.NEGATIVE_INFINITY);
      this.deliverCurrent(symbol);
    }
  }

  async unsubscribe(symbols: string[]): Promise<void> {
    this.ensureConnected();
    for (const symbol of symbols) this.subscribed.delete(symbol);
  }

  async trendbars(symbol: string, timeframe: Timeframe, count: number): Promise<Bar[]> {
    this.ensureConnected();
    if (!this.market.spec(symbol)) throw new BrokerError('not_found', `unknown symbol ${symbol}`);
    if (!Number.isInteger(count) || count < 0) throw new BrokerError('rejected', `count must be a non-negative integer, got ${count}`);
    return this.market.barsSliced(symbol, timeframe, Math.min(count, MAX_BAR_COUNT), this.clock.now());
  }

  /** The market's bars by range (barsBetweenSliced, MAX_BAR_COUNT at a time), cut where the bar forming now starts. */
  async trendbarsBetween(symbol: string, timeframe: Timeframe, fromMs: number, toMs: number, limit: number): Promise<Bar[]> {
    this.ensureConnected();
    if (!this.market.spec(symbol)) throw new BrokerError('not_found', `unknown symbol ${symbol}`);
    if (!Number.isInteger(limit) || limit < 0) throw new BrokerError('rejected', `limit must be a non-negative integer, got ${limit}`);
    if (!Number.isFinite(fromMs) || !Number.isFinite(toMs)) throw new BrokerError('rejected', 'fromMs and toMs must be finite epoch milliseconds');
    const sizeMs = TIMEFRAME_SECONDS[timeframe] * 1000;
    const endMs = Math.min(toMs, Math.floor(this.clock.now() / sizeMs) * sizeMs);
    const bars: Bar[] = [];
    for (let pageFromMs = fromMs; bars.length < limit;) {
      const wanted = Math.min(MAX_BAR_COUNT, limit - bars.length);
      const page = await this.market.barsBetweenSliced(symbol, timeframe, pageFromMs, endMs, wanted);
      bars.push(...page);
      if (page.length < wanted) break;
      pageFromMs = page.at(-1)!.time * 1000 + sizeMs;
    }
    return bars;
  }

  isMarketOpen(symbol: string, epochMs: number): boolean {
    return this.market.spec(symbol) !== undefined && this.market.isOpen(epochMs);
  }

  /** The link drops (quotes stop) until `simulateReconnect()`. */
  simulateDisconnect(reason = 'connection lost (simulated)'): void {
    this.cancelReconnect();
    this.closeSession(reason);
  }

  /** The feed reconnects and resumes the subscriptions it had. */
  simulateReconnect(): void {
    this.cancelReconnect();
    if (this.current !== 'connected') this.openSession('reconnecting', 'reconnected');
  }

  /** Drops the link now and reconnects `ms` later on the market's clock. */
  dropFor(ms: number, reason = 'connection lost (simulated)'): void {
    this.simulateDisconnect(reason);
    this.reconnectTimer = this.clock
      .setTimeout(() => {
        this.reconnectTimer = undefined;
        this.simulateReconnect();
      }, ms)
      .unref();
  }

  private openSession(connectingReason: string, connectedReason: string): void {
    this.transition('connecting', connectingReason);
    this.detachMarket ??= this.market.onTick((tick) => this.deliver(tick));
    this.market.start();
    this.transition('connected', connectedReason);
    for (const symbol of this.subscribed.keys()) this.deliverCurrent(symbol);
  }

  private closeSession(reason: string): void {
    this.detachMarket?.();
    this.detachMarket = undefined;
    if (this.current !== 'disconnected') this.transition('disconnected', reason);
  }

  private deliver(tick: Quote): void {
    const lastDelivered = this.subscribed.get(tick.symbol);
    // A market tick at or before the last delivered is the current quote delivered already.
    if (this.current !== 'connected' || lastDelivered === undefined || tick.time <= lastDelivered) return;
    this.subscribed.set(tick.symbol, tick.time);
    this.emitQuote(tick);
  }

  private deliverCurrent(symbol: string): void {
    const tick = this.market.lastTick(symbol);
    if (tick) this.deliver(tick);
  }

  private ensureConnected(): void {
    if (this.current !== 'connected') throw new BrokerError('disconnected', 'the simulated feed is not connected');
  }

  private cancelReconnect(): void {
    if (this.reconnectTimer) this.clock.clearTimer(this.reconnectTimer);
    this.reconnectTimer = undefined;
  }
}
