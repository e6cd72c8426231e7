import { ManualClock } from '@fxdesk/primitives';
import { MetaApiFeed, type MetaApiFeedOptions } from '../../src/metaapi/index.js';
import { SimulatedMarket } from '../../src/simulated/market.js';
import { WEDNESDAY_NOON } from '../fixtures.js';
import { FakeMetaApiServer, type FakeMetaApiOptions } from './fake-metaapi-server.js';
import { READ_TIMEOUT_MS } from './harness.js';

export interface FeedSetup {
  clock: ManualClock;
  market: SimulatedMarket;
  fake: FakeMetaApiServer;
  feed: MetaApiFeed;
  /** Moves the clock `ms` forward in `stepMs` steps, letting every request the feed sent on a step come back before the next. */
  advance: (ms: number, stepMs?: number) => Promise<void>;
  /** Moves the clock step by step until `done()` holds; fails after `maxMs` of clock time. */
  advanceUntil: (done: () => boolean, maxMs?: number) => Promise<void>;
  teardown: () => Promise<void>;
}

/** Turns of the event loop until no request of the feed is on the wire, then one more for the answer's callbacks. */
async function settle(feed: MetaApiFeed): Promise<void> {
  do await new Promise((resolve) => setImmediate(resolve));
  while (feed.requestsInFlight > 0);
  await new Promise((resolve) => setImmediate(resolve));
}

/** A fake MetaApi over a simulated market on a manual clock, and a feed pointed at it (not yet connected). */
export async function feedSetup(options: Partial<MetaApiFeedOptions> & { fake?: Omit<FakeMetaApiOptions, 'market' | 'now'> } = {}): Promise<FeedSetup> {
  const clock = new ManualClock(WEDNESDAY_NOON);
  const market = new SimulatedMarket({ seed: 'metaapi-feed-tests', tickIntervalMs: 1000, marketHours: true, clock });
  const fake = await FakeMetaApiServer.start({ ...options.fake, market, now: () => clock.now() });
  const feed = new MetaApiFeed({
    token: fake.token,
    accountId: fake.accountId,
    baseUrl: fake.baseUrl,
    marketDataBaseUrl: fake.baseUrl,
    timeoutMs: READ_TIMEOUT_MS,
    reconnectMaxMs: 4_000,
    clock,
    ...options,
  });
  const advance = async (ms: number, stepMs = 1000) => {
    await settle(feed);
    for (let left = ms; left > 0; left -= stepMs) {
      clock.advance(Math.min(stepMs, left));
      await settle(feed);
    }
  };
  const advanceUntil = async (done: () => boolean, maxMs = 60_000) => {
    await settle(feed);
    for (let waited = 0; !done(); waited += 500) {
      if (waited >= maxMs) throw new Error(`not so within ${maxMs} ms of clock time (feed ${feed.state()})`);
      await advance(500);
    }
  };
  return {
    clock,
    market,
    fake,
    feed,
    advance,
    advanceUntil,
    teardown: async () => {
      await feed.close();
      await fake.close();
    },
  };
}
