import { SimulatedFeed } from '../src/simulated/feed.js';
import { quoteFeedContract } from './contract/quote-feed.js';
import { SATURDAY_NOON, WEDNESDAY_NOON, makeMarket } from './fixtures.js';

quoteFeedContract('simulated', async () => {
  const { market, clock } = makeMarket();
  const feed = new SimulatedFeed({ market });
  return {
    feed,
    symbol: 'EURUSD',
    otherSymbol: 'USDJPY',
    advance: (ms) => clock.advanceAsync(ms),
    dropConnection: async () => feed.simulateDisconnect(),
    restoreConnection: async () => feed.simulateReconnect(),
    closedAt: SATURDAY_NOON,
    openAt: WEDNESDAY_NOON,
    venueBarTimes: (symbol, timeframe, fromMs, toMs) => market.barsBetween(symbol, timeframe, fromMs, toMs).map((b) => b.time),
    teardown: async () => {
      await feed.close();
      market.stop();
    },
  };
});
