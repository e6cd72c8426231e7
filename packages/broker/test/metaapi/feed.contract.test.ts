import { quoteFeedContract } from '../contract/quote-feed.js';
import { SATURDAY_NOON, WEDNESDAY_NOON } from '../fixtures.js';
import { feedSetup } from './feed-setup.js';

quoteFeedContract('metaapi (fake MetaApi server)', async () => {
  // Pacing is feed.test.ts's subject: here every call's credits are there at once.
  const { feed, fake, advance, advanceUntil, teardown } = await feedSetup({
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
    teardown,
  };
});
