import { afterEach, describe, expect, it } from 'vitest';
import type { FeedStateChange } from '../../src/feed.js';
import { stableSymbolIds } from '../../src/symbol-ids.js';
import type { Quote } from '../../src/types.js';
import { feedSetup, type FeedSetup } from './feed-setup.js';
import { failure } from './harness.js';

/** The fake's CPU credits: 1000 a second, 50 a request (the defaults the adapter paces to). */
const LIMIT = { creditsPerSecond: 1000, creditsPerRequest: 50 };
const UNPACED = { applicationCreditsPerSecond: 100_000, accountCreditsPerSecond: 100_000 };
const MONDAY_MIDNIGHT = Date.UTC(2026, 0, 5);

describe('MetaApi feed', () => {
  let s: FeedSetup;
  let quotes: Quote[];
  let states: FeedStateChange[];
  afterEach(async () => s.teardown());

  async function connected(options: Parameters<typeof feedSetup>[0] = { pacing: UNPACED }): Promise<void> {
    s = await feedSetup(options);
    quotes = [];
    states = [];
    s.feed.onQuote((q) => quotes.push(q));
    s.feed.onState((c) => states.push(c));
    // Paced, the catalog's specifications take the clock's time.
    const connecting = s.feed.connect();
    await s.advanceUntil(() => s.feed.state() !== 'connecting');
    await connecting;
  }

  describe('polling within the rate limits', () => {
    it('never draws a 429 polling twelve symbols: each round waits for its credits, so every symbol is read less often', async () => {
      await connected({ fake: { creditLimit: LIMIT }, timeoutMs: 60_000 });
      const symbols = (await s.feed.symbols()).slice(0, 12).map((x) => x.name);
      const subscribing = s.feed.subscribe(symbols);
      await s.advance(30_000);
      await subscribing;
      expect(s.fake.throttled).toBe(0);
      expect(new Set(quotes.map((q) => q.symbol))).toEqual(new Set(symbols));
      // 10 reads a second at most: 12 symbols for 30 s get about 300 reads, not 360.
      expect(s.fake.count('current-price')).toBeLessThanOrEqual(10 * 30 + 10);
      expect(s.feed.state()).toBe('connected');
    });

    it('keeps the link up when MetaApi throttles a read (429), and the next round delivers', async () => {
      await connected();
      await s.feed.subscribe(['EURUSD']);
      s.fake.inject({
        route: 'current-price',
        kind: 'status',
        status: 429,
        headers: { 'retry-after': '1' },
        body: { id: 1, error: 'TooManyRequestsError', message: 'slow down' },
      });
      quotes.length = 0;
      await s.advance(5_000);
      expect(s.feed.state()).toBe('connected');
      expect(quotes.length).toBeGreaterThan(0);
    });

    it('waits out the 202 Accepted of a deploying account while connecting', async () => {
      s = await feedSetup({ pacing: UNPACED });
      s.fake.deployFor(2_000);
      const connecting = s.feed.connect();
      await s.advanceUntil(() => s.feed.state() !== 'connecting');
      await connecting;
      expect(s.feed.state()).toBe('connected');
    });

    it('fails to connect, disconnected with the reason, when the token is refused', async () => {
      s = await feedSetup({ pacing: UNPACED, token: 'not-the-token' });
      const err = await failure(s.feed.connect());
      expect(err.kind).toBe('unauthorized');
      expect(s.feed.state()).toBe('disconnected');
    });
  });

  describe('drops and reconnection', () => {
    it("reports a drop with MetaApi's answer, then tries again after 1, 2, 4 and 4 s (the cap)", async () => {
      await connected();
      await s.feed.subscribe(['EURUSD']);
      s.fake.setBrokerConnected(false);
      await s.advanceUntil(() => s.feed.state() === 'disconnected');
      expect(states.at(-1)!.reason).toContain('504 TimeoutError');
      const dropAt = states.at(-1)!.at;
      await s.advance(12_000);
      const attempts = states.filter((c) => c.state === 'connecting' && c.reason === 'reconnecting').map((c) => c.at);
      expect(attempts.map((at, i) => at - (i === 0 ? dropAt : (attempts[i - 1] as number)))).toEqual([1_000, 2_000, 4_000, 4_000]);
    });

    it('reads every subscription again as soon as the link is back', async () => {
      await connected();
      await s.feed.subscribe(['EURUSD', 'USDJPY']);
      s.fake.setBrokerConnected(false);
      await s.advanceUntil(() => s.feed.state() === 'disconnected');
      await s.advance(10_000);
      quotes.length = 0;
      s.fake.setBrokerConnected(true);
      await s.advanceUntil(() => s.feed.state() === 'connected');
      expect(states.at(-1)).toMatchObject({ state: 'connected', reason: 'reconnected' });
      expect(new Set(quotes.map((q) => q.symbol))).toEqual(new Set(['EURUSD', 'USDJPY']));
    });

    it('connects at once when asked while waiting to reconnect', async () => {
      await connected();
      await s.feed.subscribe(['EURUSD']);
      s.fake.setBrokerConnected(false);
      await s.advanceUntil(() => s.feed.state() === 'disconnected');
      s.fake.setBrokerConnected(true);
      await s.feed.connect();
      expect(s.feed.state()).toBe('connected');
      await s.advance(10_000);
      expect(states.filter((c) => c.reason === 'reconnecting')).toEqual([]);
    });

    it('keeps reconnecting by itself after a connect() that fails during a drop', async () => {
      await connected();
      await s.feed.subscribe(['EURUSD']);
      s.fake.setBrokerConnected(false);
      await s.advanceUntil(() => s.feed.state() === 'disconnected');
      expect((await failure(s.feed.connect())).kind).toBe('disconnected');
      s.fake.setBrokerConnected(true);
      await s.advanceUntil(() => s.feed.state() === 'connected', 5_000);
      quotes.length = 0;
      await s.advance(3_000);
      expect(quotes.length).toBeGreaterThan(0);
    });

    it('finds a lost link by its health probe while nothing is subscribed', async () => {
      await connected({ pacing: UNPACED, healthIntervalMs: 15_000 });
      s.fake.setBrokerConnected(false);
      await s.advance(14_000);
      expect(s.feed.state()).toBe('connected');
      await s.advance(2_000);
      expect(s.feed.state()).toBe('disconnected');
    });

    it('never reports a connection after close, even with a reconnection pending', async () => {
      await connected();
      await s.feed.subscribe(['EURUSD']);
      s.fake.setBrokerConnected(false);
      await s.advanceUntil(() => s.feed.state() === 'disconnected');
      await s.feed.close();
      const closedAt = states.length;
      s.fake.setBrokerConnected(true);
      await s.advance(10_000);
      expect(states.slice(closedAt)).toEqual([]);
      expect(s.feed.state()).toBe('disconnected');
    });
  });

  describe('candles', () => {
    it('reads a long range back from its end in pages of 1000, one request at a time, and answers it oldest first', async () => {
      await connected();
      const bars = await s.feed.trendbarsBetween('EURUSD', 'M1', MONDAY_MIDNIGHT, MONDAY_MIDNIGHT + 2.5 * 86_400_000, 10_000);
      expect(bars).toHaveLength(3_600);
      expect(bars[0]!.time * 1000).toBe(MONDAY_MIDNIGHT);
      expect(bars.every((b, i) => i === 0 || b.time - bars[i - 1]!.time === 60)).toBe(true);
      expect(s.fake.count('candles')).toBe(4);
      expect(s.fake.peakInFlight.get('candles')).toBe(1);
    });

    it('answers the oldest candles of a range when limited', async () => {
      await connected();
      const bars = await s.feed.trendbarsBetween('EURUSD', 'H1', MONDAY_MIDNIGHT, MONDAY_MIDNIGHT + 86_400_000, 5);
      expect(bars.map((b) => b.time * 1000)).toEqual([0, 1, 2, 3, 4].map((h) => MONDAY_MIDNIGHT + h * 3_600_000));
    });

    it('refuses a symbol the catalog does not list without asking MetaApi', async () => {
      await connected();
      expect((await failure(s.feed.trendbars('NOSUCH', 'M5', 10))).kind).toBe('not_found');
      expect(s.fake.count('candles')).toBe(0);
    });
  });

  describe('catalog', () => {
    it('gives every symbol the same id in every feed', async () => {
      await connected();
      const first = await s.feed.symbols();
      const second = await feedSetup({ pacing: UNPACED });
      try {
        await second.feed.connect();
        expect(await second.feed.symbols()).toEqual(first);
      } finally {
        await second.teardown();
      }
    });

    it('numbers two names whose hashes collide apart, whatever order they come in', () => {
      // Found by trying SYM0, SYM1, …: both hash to 810216021.
      const [a, b] = ['SYM630118', 'SYM818396'];
      expect(stableSymbolIds([a])).toEqual(stableSymbolIds([b]));
      const ids = stableSymbolIds([a, b, 'EURUSD']);
      expect(new Set(ids).size).toBe(3);
      expect(stableSymbolIds(['EURUSD', b, a])).toEqual([ids[2], ids[1], ids[0]]);
    });

    it('reads the market hours from the trade sessions in broker time', async () => {
      await connected();
      // Friday 21:59 UTC is 23:59 at the broker's UTC+2, the session's end; 22:00 UTC is Saturday there.
      const fridayClose = Date.UTC(2026, 0, 9, 22);
      expect(s.feed.isMarketOpen('EURUSD', fridayClose - 60_000)).toBe(true);
      expect(s.feed.isMarketOpen('EURUSD', fridayClose)).toBe(false);
      expect(s.feed.isMarketOpen('NOSUCH', fridayClose - 60_000)).toBe(false);
    });
  });
});
