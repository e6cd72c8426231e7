import { describe, expect, it } from 'vitest';
import { decodeTrendbar } from '../../src/ctrader/prices.js';
import { TrendbarSchema } from '../../src/ctrader/wire.js';
import { WEDNESDAY_NOON } from '../fixtures.js';
import { settle } from './drive.js';
import { trendbar } from './fake-ctrader-server.js';
import { FAKE_SYMBOLS } from './fake-symbols.js';
import { startRig } from './setup.js';

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
