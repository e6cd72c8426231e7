import { describe, expect, it } from 'vitest';
import type { FeedStateChange } from '../src/feed.js';
import { SimulatedFeed } from '../src/simulated/feed.js';
import type { Quote } from '../src/types.js';
import { SATURDAY_NOON, makeMarket } from './fixtures.js';

/** Friday 2026-01-09 22:00 UTC: the simulated market closes for the weekend. */
const FRIDAY_CLOSE = Date.UTC(2026, 0, 9, 22, 0, 0);

/** A connected feed on a fresh market (Wednesday noon unless told), with the quotes it delivers. */
async function connectedFeed(options: { at?: number } = {}) {
  const { market, clock } = makeMarket(options);
  const feed = new SimulatedFeed({ market });
  const quotes: Quote[] = [];
  feed.onQuote((q) => quotes.push(q));
  await feed.connect();
  return { market, clock, feed, quotes };
}

describe('SimulatedFeed', () => {
  it('drops for a while and comes back by itself, keeping its subscriptions', async () => {
    const { market, clock, feed, quotes } = await connectedFeed();
    const states: FeedStateChange[] = [];
    feed.onState((s) => states.push(s));
    await feed.subscribe(['EURUSD']);
    const droppedAt = clock.now();
    feed.dropFor(10_000, 'heartbeat timeout');
    clock.advance(10_000);
    expect(states.map((s) => [s.state, s.reason, s.at - droppedAt])).toEqual([
      ['disconnected', 'heartbeat timeout', 0],
      ['connecting', 'reconnecting', 10_000],
      ['connected', 'reconnected', 10_000],
    ]);
    // What ticked during the drop is missed: the link comes back with the current quote only.
    const sinceDrop = quotes.filter((q) => q.time > droppedAt);
    expect(sinceDrop).toEqual([market.lastTick('EURUSD', droppedAt + 10_000)]);
    clock.advance(10_000);
    expect(quotes.length).toBeGreaterThan(0);
    market.stop();
  });

  it('delivers the market ticks of its subscriptions unchanged', async () => {
    const { market, clock, feed, quotes } = await connectedFeed();
    await feed.subscribe(['XAUUSD']);
    const from = clock.now();
    clock.advance(20_000);
    expect(quotes).toEqual([market.lastTick('XAUUSD', from), ...market.ticksBetween('XAUUSD', from + 1, clock.now() + 1)]);
    market.stop();
  });

  it('delivers the current quote of a symbol as soon as it subscribes to it', async () => {
    const { market, clock, feed, quotes } = await connectedFeed();
    await feed.subscribe(['EURUSD', 'USDJPY']);
    expect(quotes).toEqual([market.lastTick('EURUSD', clock.now()), market.lastTick('USDJPY', clock.now())]);
    market.stop();
  });

  it('delivers the last quote before the close when it subscribes on a weekend', async () => {
    const { market, feed, quotes } = await connectedFeed({ at: SATURDAY_NOON });
    await feed.subscribe(['EURUSD']);
    expect(quotes).toEqual([market.lastTick('EURUSD', SATURDAY_NOON)]);
    expect(quotes[0]!.time).toBeLessThan(FRIDAY_CLOSE);
    market.stop();
  });

  it('delivers the current quote of each subscription when the link comes back', async () => {
    const { market, clock, feed, quotes } = await connectedFeed();
    await feed.subscribe(['EURUSD']);
    feed.simulateDisconnect();
    clock.advance(60_000);
    quotes.length = 0;
    feed.simulateReconnect();
    expect(quotes).toEqual([market.lastTick('EURUSD', clock.now())]);
    market.stop();
  });

  it('never delivers the same quote twice, even when the link comes back before the market ticks again', async () => {
    const { market, feed, quotes } = await connectedFeed();
    await feed.subscribe(['EURUSD']);
    await feed.subscribe(['EURUSD']);
    feed.simulateDisconnect();
    feed.simulateReconnect();
    expect(quotes).toHaveLength(1);
    market.stop();
  });

  it('refuses calls while not connected', async () => {
    const { market } = makeMarket();
    const feed = new SimulatedFeed({ market });
    await expect(feed.symbols()).rejects.toMatchObject({ kind: 'disconnected' });
    await expect(feed.subscribe(['EURUSD'])).rejects.toMatchObject({ kind: 'disconnected' });
  });

  it('numbers its catalog like cTrader: EURUSD is symbol 1 with pip position 4', async () => {
    const { market } = makeMarket();
    const feed = new SimulatedFeed({ market });
    await feed.connect();
    const catalog = await feed.symbols();
    expect(catalog.find((s) => s.name === 'EURUSD')).toMatchObject({ symbolId: 1, digits: 5, pipPosition: 4, enabled: true });
    expect(catalog.find((s) => s.name === 'USDJPY')).toMatchObject({ digits: 3, pipPosition: 2 });
    await feed.close();
    market.stop();
  });

  it('answers the same trendbars of a past range whatever the time it is asked, cut where the forming bar starts', async () => {
    const from = Date.UTC(2026, 0, 5);
    const to = Date.UTC(2026, 0, 6, 12, 7);
    const early = await connectedFeed({ at: Date.UTC(2026, 0, 6, 12, 3, 30) });
    const late = await connectedFeed({ at: Date.UTC(2027, 6, 1) });
    const cut = await early.feed.trendbarsBetween('EURUSD', 'M5', from, to, 10_000);
    expect(cut.at(-1)!.time * 1000).toBe(Date.UTC(2026, 0, 6, 11, 55));
    const whole = await late.feed.trendbarsBetween('EURUSD', 'M5', from, to, 10_000);
    expect(whole.at(-1)!.time * 1000).toBe(Date.UTC(2026, 0, 6, 12, 5));
    expect(whole.slice(0, cut.length)).toEqual(cut);
    expect(whole).toEqual(late.market.barsBetween('EURUSD', 'M5', from, to));
  });

  it('answers more trendbars by range than the market builds in one call, without a gap', async () => {
    const { feed, market } = await connectedFeed();
    const [from, to] = [Date.UTC(2025, 8, 1), Date.UTC(2026, 0, 3)];
    const bars = await feed.trendbarsBetween('EURUSD', 'M1', from, to, 100_001);
    expect(bars).toHaveLength(100_001);
    const rest = market.barsBetween('EURUSD', 'M1', bars.at(-2)!.time * 1000, to, 2);
    expect(bars.slice(-2)).toEqual(rest);
  });

  it('refuses trendbars by range of an unknown symbol, with a bad limit, or while disconnected', async () => {
    const { feed } = await connectedFeed();
    await expect(feed.trendbarsBetween('NOSUCH', 'M5', 0, 1, 1)).rejects.toMatchObject({ kind: 'not_found' });
    await expect(feed.trendbarsBetween('EURUSD', 'M5', 0, 1, -1)).rejects.toMatchObject({ kind: 'rejected' });
    feed.simulateDisconnect();
    await expect(feed.trendbarsBetween('EURUSD', 'M5', 0, 1, 1)).rejects.toMatchObject({ kind: 'disconnected' });
  });
});
