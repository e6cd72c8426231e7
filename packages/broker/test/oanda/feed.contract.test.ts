import { quoteFeedContract } from '../contract/quote-feed.js';
import { SATURDAY_NOON, WEDNESDAY_NOON } from '../fixtures.js';
import { feedSetup } from './feed-harness.js';

quoteFeedContract('oanda (fake v20 server)', async () => {
  const { feed, fake, settle, advance, advanceUntil, teardown } = await feedSetup();
  /** Real time for the feed to see what the fake did to its sockets. */
  const until = async (done: () => boolean) => {
    for (let turn = 0; turn < 500 && !done(); turn++) await new Promise((resolve) => setTimeout(resolve, 1));
  };
  return {
    feed,
    symbol: 'EURUSD',
    otherSymbol: 'USDJPY',
    advance,
    dropConnection: async () => {
      fake.dropStreams();
      await until(() => feed.state() === 'disconnected');
    },
    restoreConnection: async () => {
      fake.restoreStreams();
      await advanceUntil(() => feed.state() === 'connected');
      await settle();
    },
    closedAt: SATURDAY_NOON,
    openAt: WEDNESDAY_NOON,
    teardown,
  };
});
