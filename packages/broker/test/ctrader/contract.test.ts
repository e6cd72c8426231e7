import { ManualClock } from '@fxdesk/primitives';
import { CTraderFeed } from '../../src/ctrader/feed.js';
import { SimulatedMarket } from '../../src/simulated/market.js';
import { quoteFeedContract } from '../contract/quote-feed.js';
import { SATURDAY_NOON, WEDNESDAY_NOON } from '../fixtures.js';
import { drive, driveUntil, reach } from './drive.js';
import { FAKE_CREDENTIALS, FakeCTraderServer } from './fake-ctrader-server.js';

const TRENDBAR_CHUNK = 2000;

quoteFeedContract('ctrader (fake Open API server)', async () => {
  const clock = new ManualClock(WEDNESDAY_NOON);
  const market = new SimulatedMarket({ seed: 'ctrader-feed-contract', tickIntervalMs: 1000, marketHours: true, clock });
  // The venue does not publish how many trendbars one answer holds: 2 000 here, so that a span is answered in several (hasMore).
  const fake = await FakeCTraderServer.start({ clock, market, trendbarChunkSize: TRENDBAR_CHUNK });
  const feed = new CTraderFeed({ ...FAKE_CREDENTIALS, url: fake.url, clock, reconnectMaxMs: 4000 });
  return {
    feed,
    symbol: 'EURUSD',
    otherSymbol: 'USDJPY',
    advance: (ms) => drive(clock, feed, ms),
    dropConnection: async () => {
      fake.goDown();
      await reach(feed, 'disconnected');
    },
    restoreConnection: async () => {
      fake.comeBack();
      await driveUntil(clock, feed, () => feed.state() === 'connected');
    },
    closedAt: SATURDAY_NOON,
    openAt: WEDNESDAY_NOON,
    venueBarTimes: (symbol, timeframe, fromMs, toMs) => market.barsBetween(symbol, timeframe, fromMs, toMs).map((b) => b.time),
    history: { maxBarsPerAnswer: TRENDBAR_CHUNK, requests: () => fake.trendbarResponses.length },
    teardown: async () => {
      await feed.close();
      await fake.close();
    },
  };
});
