import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FeedStateChange } from '../../src/feed.js';
import { feedSetup, type FeedSetup } from './feed-harness.js';

describe('OandaFeed over the fake v20 pricing stream', () => {
  let s: FeedSetup;
  let states: FeedStateChange[];
  const streamRequests = () => s.fake.requests.filter((r) => r.url.includes('/pricing/stream'));

  beforeEach(async () => {
    s = await feedSetup();
    states = [];
    s.feed.onState((change) => states.push(change));
    await s.feed.connect();
  });

  afterEach(async () => {
    await s.teardown();
  });

  it('opens one stream of the subscribed instruments with a snapshot, and opens it again when they change', async () => {
    await s.feed.subscribe(['EURUSD']);
    await s.feed.subscribe(['USDJPY']);
    const queries = streamRequests().map((r) => new URL(r.url, 'http://fake').searchParams);
    expect(queries.map((q) => q.get('instruments'))).toEqual(['EUR_USD', 'EUR_USD,USD_JPY']);
    expect(queries.every((q) => q.get('snapshot') === 'true')).toBe(true);
    expect(streamRequests().every((r) => r.headers.authorization === `Bearer ${s.fake.token}`)).toBe(true);
    await s.settle();
    expect(s.fake.openStreams).toBe(1);
  });

  it('keeps a stream whose heartbeats come every 5 s, however quiet its prices', async () => {
    await s.feed.subscribe(['EURUSD']);
    await s.advance(60_000);
    expect(s.feed.stats.heartbeats).toBeGreaterThanOrEqual(11);
    expect(streamRequests()).toHaveLength(1);
    expect(s.feed.state()).toBe('connected');
  });

  it('cuts a stream silent for 10 s (two heartbeats missed), says why, and opens it again', async () => {
    await s.feed.subscribe(['EURUSD']);
    s.fake.silenceStreams();
    await s.advance(10_000);
    expect(states.at(-1)).toMatchObject({ state: 'disconnected', reason: 'no price or heartbeat for 10000 ms' });
    s.fake.restoreStreams();
    await s.advanceUntil(() => s.feed.state() === 'connected');
    expect(states.slice(-2).map((c) => [c.state, c.reason])).toEqual([
      ['connecting', 'reconnecting'],
      ['connected', 'reconnected'],
    ]);
    expect(s.feed.stats.reconnects).toBe(1);
  });

  it('tries again after 1, 2, 4 and 8 s while the stream host refuses', async () => {
    await s.feed.subscribe(['EURUSD']);
    const start = s.clock.now();
    const attempts: number[] = [];
    s.feed.onState((change) => {
      if (change.state === 'connecting') attempts.push(change.at - start);
    });
    s.fake.dropStreams();
    for (let turn = 0; turn < 500 && s.feed.state() !== 'disconnected'; turn++) await new Promise((resolve) => setTimeout(resolve, 1));
    await s.advanceUntil(() => attempts.length >= 4, 30_000);
    expect(attempts).toEqual([1_000, 3_000, 7_000, 15_000]);
  });

  it('reads a long range in spans of at most 5 000 candles, contiguous and without repeats', async () => {
    const to = s.clock.now();
    const from = to - 5 * 86_400_000;
    const bars = await s.feed.trendbarsBetween('EURUSD', 'M1', from, to, 100_000);
    const spans = s.fake.requests
      .filter((r) => r.url.includes('/candles'))
      .map((r) => new URL(r.url, 'http://fake').searchParams)
      .map((q) => (Date.parse(q.get('to')!) - Date.parse(q.get('from')!)) / 60_000);
    expect(spans.length).toBeGreaterThan(1);
    expect(spans.every((minutes) => minutes <= 5_000)).toBe(true);
    expect(new Set(bars.map((b) => b.time)).size).toBe(bars.length);
    expect(bars.every((bar, i) => i === 0 || bar.time > bars[i - 1]!.time)).toBe(true);
    expect(bars.at(-1)!.time * 1000).toBeLessThan(to);
  });
});
