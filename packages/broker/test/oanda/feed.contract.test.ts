import { OANDA_MAX_CANDLES } from '../../src/oanda/candles.js';
import { quoteFeedContract } from '../contract/quote-feed.js';
import { SATURDAY_NOON, WEDNESDAY_NOON } from '../fixtures.js';
import { feedSetup } from './feed-harness.js';

quoteFeedContract('oanda (fake v20 server)', async () => {
  const { market, feed, fake, settle, advance, advanceUntil, teardown } = await feedSetup();
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
    venueBarTimes: (symbol, timeframe, fromMs, toMs) => market.barsBetween(symbol, timeframe, fromMs, toMs).map((b) => b.time),
    // "count … [default=500, maximum=5000]"; a range of more periods is refused.
    history: { maxBarsPerAnswer: OANDA_MAX_CANDLES, requests: () => fake.requests.filter((r) => r.url.includes('/candles')).length },
    teardown,
  };
});
