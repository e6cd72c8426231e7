import { ManualClock } from '@fxdesk/primitives';
import { CTraderFeed } from '../../src/ctrader/feed.js';
import { quoteFeedContract } from '../contract/quote-feed.js';
import { SATURDAY_NOON, WEDNESDAY_NOON } from '../fixtures.js';
import { drive, driveUntil, reach } from './drive.js';
import { FAKE_CREDENTIALS, FakeCTraderServer } from './fake-ctrader-server.js';

quoteFeedContract('ctrader (fake Open API server)', async () => {
  const clock = new ManualClock(WEDNESDAY_NOON);
  const fake = await FakeCTraderServer.start({ clock });
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
    teardown: async () => {
      await feed.close();
      await fake.close();
    },
  };
});
