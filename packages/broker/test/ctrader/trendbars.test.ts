import { ManualClock } from '@fxdesk/primitives';
import { describe, expect, it } from 'vitest';
import { CTraderFeed } from '../../src/ctrader/feed.js';
import { decodeTrendbar } from '../../src/ctrader/prices.js';
import { isWeeklyOpen } from '../../src/simulated/market-hours.js';
import { SimulatedMarket } from '../../src/simulated/market.js';
import type { Bar, Quote } from '../../src/types.js';
import { TrendbarSchema } from '../../src/ctrader/wire.js';
import { WEDNESDAY_NOON } from '../fixtures.js';
import { drive, settle } from './drive.js';
import { FAKE_CREDENTIALS, FakeCTraderServer, trendbar } from './fake-ctrader-server.js';
import { FAKE_SYMBOLS } from './fake-symbols.js';
import { anotherFeed, startRig, type FeedRig } from './setup.js';

const EURUSD = FAKE_SYMBOLS[0]!;

describe('cTrader trendbars', () => {
  it('decodes the server bars, oldest first, the forming one last', async () => {
    const { feed, clock } = await startRig({ at: WEDNESDAY_NOON + 30_000 });
    await feed.connect();
    const bars = await feed.trendbars('EURUSD', 'M1', 5);
    const minutes = [56, 57, 58, 59, 60].map((m) => WEDNESDAY_NOON / 60_000 - 60 + m);
    expect(bars.map((b) => b.time)).toEqual(minutes.map((m) => m * 60));
    expect(bars.map((b) => b.closed)).toEqual([true, true, true, true, false]);
    const expected = minutes.map((m) => decodeTrendbar(TrendbarSchema.parse(trendbar(EURUSD, m, 'M1')), 5, 60, clock.now()));
    expect(bars).toEqual(expected);
    expect(bars[0]).toMatchObject({ low: 1.08137, open: 1.08153, high: 1.08177, close: 1.08143, tickVolume: 26, spread: null });
  });

  it('asks for the newest bars in one request when the first span holds them', async () => {
    const { feed, fake, clock } = await startRig();
    await feed.connect();
    await feed.trendbars('EURUSD', 'H1', 24);
    expect(fake.messages(2137).map((m) => m.payload)).toEqual([
      {
        ctidTraderAccountId: fake.accountId,
        fromTimestamp: clock.now() - (24 * 3 * 3_600_000 + 7 * 86_400_000),
        toTimestamp: clock.now(),
        period: 9,
        symbolId: 1,
        count: 24,
      },
    ]);
  });

  it('reads a long history span by span back from now, at most five requests a second', async () => {
    const { feed, fake, clock } = await startRig();
    await feed.connect();
    const start = clock.now();
    let bars: Awaited<ReturnType<typeof feed.trendbars>> | undefined;
    const call = feed.trendbars('XAUUSD', 'M5', 2000).then((b) => (bars = b));
    // Time moves only while the call waits for the pacer: no new request since the last look.
    let seen = -1;
    while (!bars) {
      await settle(feed);
      const sent = fake.messages(2137).length;
      if (sent === seen && !bars) clock.advance(100);
      seen = sent;
    }
    await call;
    const requests = fake.messages(2137);
    expect(requests.map((r) => r.at - start)).toEqual([0, 0, 0, 0, 0, 1000, 1000, 1000]);
    for (const [i, r] of requests.entries()) {
      const { fromTimestamp, toTimestamp } = r.payload as { fromTimestamp: number; toTimestamp: number };
      expect(toTimestamp - fromTimestamp).toBeLessThanOrEqual(302_400_000);
      expect(toTimestamp).toBe(i === 0 ? start : (requests[i - 1]?.payload.fromTimestamp as number));
    }
    expect(fake.errorsSent).toEqual([]);
    // XAUUSD's history starts a day before: 288 closed M5 bars and the forming one.
    expect(bars).toHaveLength(289);
    expect(bars?.at(-1)?.closed).toBe(false);
  });

  it('refuses an unknown symbol and a negative count', async () => {
    const { feed } = await startRig();
    await feed.connect();
    await expect(feed.trendbars('NOSUCH', 'M1', 5)).rejects.toMatchObject({ kind: 'not_found' });
    await expect(feed.trendbars('EURUSD', 'M1', -1)).rejects.toMatchObject({ kind: 'rejected' });
  });
});

const MINUTE = 60_000;
const DAY = 86_400_000;
const PERIOD_MINUTES = { M1: 1, M5: 5, H1: 60 } as const;

/** Awaits a feed call, moving the shared clock on only while the call waits for the pacer. */
async function paced<T>(rig: FeedRig, call: Promise<T>): Promise<T> {
  let isSettled = false;
  void call.finally(() => (isSettled = true)).catch(() => undefined);
  let seen = -1;
  while (!isSettled) {
    await settle(rig.feed);
    const sent = rig.fake.messages(2137).length;
    if (sent === seen && !isSettled) rig.clock.advance(100);
    seen = sent;
  }
  return call;
}

/** The closed bars the fake keeps for EURUSD opening in [from, to), decoded as the feed decodes them. */
function fakeBars(period: keyof typeof PERIOD_MINUTES, from: number, to: number, now: number): Bar[] {
  const step = PERIOD_MINUTES[period] * MINUTE;
  const bars: Bar[] = [];
  for (let open = Math.ceil(from / step) * step; open < to && open + step <= now; open += step) {
    if (isWeeklyOpen(open)) bars.push(decodeTrendbar(TrendbarSchema.parse(trendbar(EURUSD, open / MINUTE, period)), 5, step / 1000, now));
  }
  return bars;
}

function between(feed: CTraderFeed, period: keyof typeof PERIOD_MINUTES, from: number, to: number, limit = 100_000) {
  return feed.trendbarsBetween('EURUSD', period, from, to, limit);
}

describe('cTrader trendbars by range', () => {
  it('reads the range forward span by span within the widest span and five requests a second, oldest first', async () => {
    const rig = await startRig();
    await rig.feed.connect();
    const start = rig.clock.now();
    const from = start - 20 * DAY + 7 * MINUTE;
    const bars = await paced(rig, between(rig.feed, 'M5', from, start - DAY));
    expect(bars).toEqual(fakeBars('M5', from, start - DAY, start));
    const requests = rig.fake.messages(2137).map((m) => m.payload as { fromTimestamp: number; toTimestamp: number; count?: number });
    // 19 days of M5 in spans of 3.5 days: six requests, each starting where the last one ended.
    expect(requests).toHaveLength(6);
    expect(requests[0]!.fromTimestamp).toBe(from);
    for (const [i, r] of requests.entries()) {
      expect(r.toTimestamp - r.fromTimestamp).toBeLessThanOrEqual(302_400_000);
      if (i > 0) expect(r.fromTimestamp).toBe(requests[i - 1]!.toTimestamp);
      expect(r.count).toBeUndefined();
    }
    expect(requests.at(-1)!.toTimestamp).toBe(start - DAY);
    expect(rig.fake.messages(2137).map((m) => m.at - start)).toEqual([0, 0, 0, 0, 0, 1000]);
    expect(rig.fake.errorsSent).toEqual([]);
  });

  it('continues a span the server cut short back from its oldest bar, and gets what one uncut read gets', async () => {
    const whole = await startRig();
    const cut = await startRig({ fake: { trendbarChunkSize: 100 } });
    await whole.feed.connect();
    await cut.feed.connect();
    const now = whole.clock.now();
    const range = [now - 2 * DAY, now - 1] as const;
    const expected = await paced(whole, between(whole.feed, 'M1', ...range));
    expect(await paced(cut, between(cut.feed, 'M1', ...range))).toEqual(expected);
    expect(expected).toEqual(fakeBars('M1', ...range, now));
    expect(expected).toHaveLength(2 * 1440);
    expect(cut.fake.trendbarResponses.filter((r) => r.hasMore).length).toBeGreaterThan(20);
    expect(cut.fake.errorsSent).toEqual([]);
  });

  it('leaves out the bar still forming and asks nothing of a range that starts after now', async () => {
    const rig = await startRig({ at: WEDNESDAY_NOON + 30 * MINUTE + 5_000 });
    await rig.feed.connect();
    const now = rig.clock.now();
    const bars = await paced(rig, between(rig.feed, 'H1', now - 5 * 3_600_000, now + DAY));
    expect(bars.map((b) => b.time * 1000)).toEqual([-4, -3, -2, -1].map((h) => WEDNESDAY_NOON + h * 3_600_000));
    expect(bars.every((b) => b.closed)).toBe(true);
    const sent = rig.fake.messages(2137).length;
    expect(await between(rig.feed, 'H1', now + 1, now + DAY)).toEqual([]);
    expect(rig.fake.messages(2137)).toHaveLength(sent);
  });

  it('keeps the oldest `limit` bars and asks for no span after them', async () => {
    const rig = await startRig();
    await rig.feed.connect();
    const now = rig.clock.now();
    const from = now - 10 * DAY;
    const bars = await paced(rig, between(rig.feed, 'M5', from, now, 50));
    expect(bars).toEqual(fakeBars('M5', from, now, now).slice(0, 50));
    expect(rig.fake.messages(2137)).toHaveLength(1);
  });

  it('has no bar over the weekend', async () => {
    const rig = await startRig();
    await rig.feed.connect();
    const now = rig.clock.now();
    const bars = await paced(rig, between(rig.feed, 'H1', now - 7 * DAY, now));
    expect(bars.some((b) => !isWeeklyOpen(b.time * 1000))).toBe(false);
    // Wednesday noon back to Friday 22:00 (58 hours), then Sunday 22:00 to Wednesday noon (62).
    expect(bars).toHaveLength(120);
  });

  it('refuses an unknown symbol and a negative limit', async () => {
    const { feed } = await startRig();
    await feed.connect();
    await expect(feed.trendbarsBetween('NOSUCH', 'M1', 0, 1, 5)).rejects.toMatchObject({ kind: 'not_found' });
    await expect(feed.trendbarsBetween('EURUSD', 'M1', 0, 1, -1)).rejects.toMatchObject({ kind: 'rejected' });
  });
});

describe('the fake cTrader server’s historical-data limit', () => {
  it('gives each connection its own five historical requests a second, as the Open API limits each connection', async () => {
    const rig = await startRig();
    const other = anotherFeed(rig);
    await Promise.all([rig.feed.connect(), other.connect()]);
    const reads = [rig.feed, other].flatMap((feed) => ['EURUSD', 'GBPUSD', 'USDJPY', 'XAUUSD', 'USDTRY'].map((symbol) => feed.trendbars(symbol, 'M1', 3)));
    expect((await Promise.all(reads)).every((bars) => bars.length === 3)).toBe(true);
    expect(rig.fake.messages(2137)).toHaveLength(10);
    expect(rig.fake.errorsSent).not.toContain('REQUEST_FREQUENCY_EXCEEDED');
  });
});

describe('the fake cTrader server over a simulated market', () => {
  it('serves the market’s bid bars as trendbars and its ticks as spots', async () => {
    const clock = new ManualClock(WEDNESDAY_NOON + 30_000);
    const market = new SimulatedMarket({ seed: 'ctrader-fake-market', tickIntervalMs: 1000, marketHours: true, clock });
    const fake = await FakeCTraderServer.start({ clock, market });
    const feed = new CTraderFeed({ ...FAKE_CREDENTIALS, url: fake.url, clock });
    const quotes: Quote[] = [];
    feed.onQuote((quote) => quotes.push(quote));
    try {
      await feed.connect();
      const bars = await feed.trendbars('EURUSD', 'M1', 5);
      expect(bars).toEqual(market.bars('EURUSD', 'M1', 5).map((bar) => ({ ...bar, spread: null })));
      await feed.subscribe(['EURUSD']);
      await drive(clock, feed, 3_000);
      const tick = market.lastTick('EURUSD')!;
      expect(quotes.at(-1)).toMatchObject({ symbol: 'EURUSD', bid: tick.bid, ask: tick.ask });
    } finally {
      await feed.close();
      await fake.close();
    }
  });
});
