/**
 * The contract every QuoteFeed implementation passes: the simulated feed, and each venue's
 * adapter against its local fake server.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BrokerError } from '../../src/errors.js';
import type { FeedStateChange, QuoteFeed } from '../../src/feed.js';
import type { Quote, Timeframe } from '../../src/types.js';

export interface QuoteFeedHarness {
  /** A feed not yet connected; the suite connects it. */
  feed: QuoteFeed;
  /** Two symbols the feed lists. */
  symbol: string;
  otherSymbol: string;
  /** Lets time pass so that quotes of subscribed symbols arrive. */
  advance(ms: number): Promise<void>;
  /** Cuts the link to the venue, then lets it come back (the feed reconnects by itself). */
  dropConnection(): Promise<void>;
  restoreConnection(): Promise<void>;
  /** An instant the symbol's market is closed (a Saturday), and one it is open: the clock's start. */
  closedAt: number;
  openAt: number;
  /** The open times (epoch seconds) of the bars the venue holds in [fromMs, toMs), oldest first: a complete read of that range. */
  venueBarTimes(symbol: string, timeframe: Timeframe, fromMs: number, toMs: number): number[];
  /**
   * The venue's paging of history: the most bars one of its answers holds, and the history
   * requests it has received so far. Absent for a feed with no venue behind it.
   */
  history?: { maxBarsPerAnswer: number; requests(): number };
  teardown(): Promise<void>;
}

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

export function quoteFeedContract(name: string, setup: () => Promise<QuoteFeedHarness>): void {
  describe(`QuoteFeed contract: ${name}`, () => {
    let h: QuoteFeedHarness;
    let states: FeedStateChange[];
    let quotes: Quote[];

    beforeEach(async () => {
      h = await setup();
      states = [];
      quotes = [];
      h.feed.onState((change) => states.push(change));
      h.feed.onQuote((quote) => quotes.push(quote));
      await h.feed.connect();
    });

    afterEach(async () => {
      await h.teardown();
    });

    /** Waits for `work`, moving the clock while it is under way: a venue paces history requests on it. */
    async function meanwhileAdvancing<T>(work: Promise<T>): Promise<T> {
      let isDone = false;
      const settled = work.finally(() => {
        isDone = true;
      });
      const ended = settled.then(
        () => undefined,
        () => undefined,
      );
      for (let turn = 0; turn < 600 && !isDone; turn++) {
        await Promise.race([ended, new Promise((resolve) => setTimeout(resolve, 25))]);
        if (!isDone) await h.advance(200);
      }
      return settled;
    }

    it('reports connecting, then connected', () => {
      expect(h.feed.state()).toBe('connected');
      expect(states.map((s) => s.state)).toEqual(['connecting', 'connected']);
      expect(states.every((s) => Number.isFinite(s.at))).toBe(true);
    });

    it('lists a catalog with stable integer symbol ids', async () => {
      const catalog = await h.feed.symbols();
      const one = catalog.find((s) => s.name === h.symbol);
      expect(one).toBeDefined();
      expect(Number.isInteger(one!.symbolId)).toBe(true);
      expect(Number.isInteger(one!.digits)).toBe(true);
      expect(Number.isInteger(one!.pipPosition)).toBe(true);
      expect(new Set(catalog.map((s) => s.symbolId)).size).toBe(catalog.length);
      expect((await h.feed.symbols()).find((s) => s.name === h.symbol)!.symbolId).toBe(one!.symbolId);
    });

    it('delivers quotes of subscribed symbols only', async () => {
      await h.feed.subscribe([h.symbol]);
      await h.advance(30_000);
      expect(quotes.length).toBeGreaterThan(0);
      expect(quotes.every((q) => q.symbol === h.symbol && q.bid < q.ask)).toBe(true);
    });

    it('delivers the current quote of a symbol as soon as it is subscribed, before the market ticks again', async () => {
      await h.feed.subscribe([h.symbol]);
      // One millisecond: time for the venue's answer to arrive, too short for another tick.
      await h.advance(1);
      expect(quotes).toEqual([expect.objectContaining({ symbol: h.symbol })]);
    });

    it('stops delivering a symbol after unsubscribing', async () => {
      await h.feed.subscribe([h.symbol, h.otherSymbol]);
      await h.advance(10_000);
      await h.feed.unsubscribe([h.symbol]);
      quotes.length = 0;
      await h.advance(30_000);
      expect(quotes.length).toBeGreaterThan(0);
      expect(quotes.some((q) => q.symbol === h.symbol)).toBe(false);
    });

    it('refuses to subscribe to a symbol it does not list', async () => {
      const err = await h.feed.subscribe(['NOSUCH']).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BrokerError);
      expect((err as BrokerError).kind).toBe('not_found');
    });

    it('reports a dropped link with a reason, and resumes the subscriptions when it comes back', async () => {
      await h.feed.subscribe([h.symbol]);
      await h.dropConnection();
      const drop = states.at(-1)!;
      expect(drop.state).toBe('disconnected');
      expect(drop.reason).toBeTruthy();
      quotes.length = 0;
      await h.advance(30_000);
      expect(quotes).toEqual([]);
      await h.restoreConnection();
      expect(h.feed.state()).toBe('connected');
      await h.advance(30_000);
      expect(quotes.length).toBeGreaterThan(0);
    });

    it('returns trendbars oldest first, only the last forming', async () => {
      const bars = await h.feed.trendbars(h.symbol, 'M1', 30);
      expect(bars.length).toBeGreaterThan(0);
      expect(bars.length).toBeLessThanOrEqual(30);
      for (const [i, bar] of bars.entries()) {
        expect(bar.time % 60).toBe(0);
        if (i > 0) expect(bar.time).toBeGreaterThan(bars[i - 1]!.time);
        if (i < bars.length - 1) expect(bar.closed).toBe(true);
        expect(bar.low).toBeLessThanOrEqual(bar.high);
      }
    });

    it('returns the closed trendbars of a range, oldest first, never the one forming, the oldest when limited', async () => {
      const [from, to] = [h.openAt - 6 * 3_600_000 + 1, h.openAt + 3_600_000];
      const bars = await h.feed.trendbarsBetween(h.symbol, 'M5', from, to, 1000);
      expect(bars.length).toBeGreaterThan(0);
      for (const [i, bar] of bars.entries()) {
        expect(bar.time % 300).toBe(0);
        expect(bar.time * 1000).toBeGreaterThanOrEqual(from);
        expect(bar.time * 1000 + 300_000).toBeLessThanOrEqual(h.openAt);
        expect(bar.closed).toBe(true);
        if (i > 0) expect(bar.time).toBeGreaterThan(bars[i - 1]!.time);
      }
      expect(await h.feed.trendbarsBetween(h.symbol, 'M5', from, to, 3)).toEqual(bars.slice(0, 3));
    });

    it('returns every closed M1 bar of a range many venue answers long, oldest first, each once, and the oldest when limited', async () => {
      // Ten days back from a Wednesday noon: a weekend inside, over 10 000 bars.
      const [from, to] = [h.openAt - 10 * DAY_MS, h.openAt];
      const requestsBefore = h.history?.requests() ?? 0;
      const bars = await meanwhileAdvancing(h.feed.trendbarsBetween(h.symbol, 'M1', from, to, 100_000));
      const held = h.venueBarTimes(h.symbol, 'M1', from, to);
      const [times, isHeld] = [new Set(bars.map((b) => b.time)), new Set(held)];
      const gaps = { missing: held.filter((t) => !times.has(t)).slice(0, 5), extra: [...times].filter((t) => !isHeld.has(t)).slice(0, 5) };
      expect(gaps).toEqual({ missing: [], extra: [] });
      expect(bars.map((b) => b.time)).toEqual(held);
      // The venue holds a bar for (nearly) every minute its market was open: a minute without a tick has none.
      let openMinutes = 0;
      for (let t = from; t < to; t += MINUTE_MS) if (h.feed.isMarketOpen(h.symbol, t)) openMinutes++;
      expect(bars.length).toBeGreaterThan(openMinutes * 0.99);
      expect(bars.every((b) => h.feed.isMarketOpen(h.symbol, b.time * 1000))).toBe(true);
      expect(bars.every((b) => b.closed && b.low <= b.high)).toBe(true);
      if (h.history) {
        expect(bars.length).toBeGreaterThan(h.history.maxBarsPerAnswer);
        expect(h.history.requests() - requestsBefore).toBeGreaterThanOrEqual(Math.ceil(bars.length / h.history.maxBarsPerAnswer));
      }
      const limit = Math.floor(bars.length * 0.6);
      expect(await meanwhileAdvancing(h.feed.trendbarsBetween(h.symbol, 'M1', from, to, limit))).toEqual(bars.slice(0, limit));
    });

    it('knows the market is closed on the weekend and open midweek', () => {
      expect(h.feed.isMarketOpen(h.symbol, h.closedAt)).toBe(false);
      expect(h.feed.isMarketOpen(h.symbol, h.openAt)).toBe(true);
    });

    it('reports disconnected after close', async () => {
      await h.feed.close();
      expect(h.feed.state()).toBe('disconnected');
    });
  });
}
