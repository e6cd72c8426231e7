import { PAGE_LIMIT } from '../../src/metaapi/reads.js';
import { quoteFeedContract } from '../contract/quote-feed.js';
import { SATURDAY_NOON, WEDNESDAY_NOON } from '../fixtures.js';
import { feedSetup } from './feed-setup.js';

quoteFeedContract('metaapi (fake MetaApi server)', async () => {
  // Pacing is feed.test.ts's subject: here every call's credits are there at once.
  const { market, feed, fake, advance, advanceUntil, teardown } = await feedSetup({
    pacing: { applicationCreditsPerSecond: 100_000, accountCreditsPerSecond: 100_000 },
  });
  return {
    feed,
    symbol: 'EURUSD',
    otherSymbol: 'USDJPY',
    advance: (ms) => advance(ms),
    // MetaApi's terminal loses its broker: every read answers 504 TimeoutError until it is back.
    dropConnection: async () => {
      fake.setBrokerConnected(false);
      await advanceUntil(() => feed.state() === 'disconnected');
    },
    restoreConnection: async () => {
      fake.setBrokerConnected(true);
      await advanceUntil(() => feed.state() === 'connected');
    },
    closedAt: SATURDAY_NOON,
    openAt: WEDNESDAY_NOON,
    venueBarTimes: (symbol, timeframe, fromMs, toMs) => market.barsBetween(symbol, timeframe, fromMs, toMs).map((b) => b.time),
    // "limit … max: 1000": a larger one is refused.
    history: { maxBarsPerAnswer: PAGE_LIMIT, requests: () => fake.count('candles') },
    teardown,
  };
});
