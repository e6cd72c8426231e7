import { ManualClock } from '@fxdesk/primitives';
import { afterEach } from 'vitest';
import { CTraderFeed, type CTraderFeedOptions } from '../../src/ctrader/feed.js';
import type { FeedStateChange } from '../../src/feed.js';
import type { Quote } from '../../src/types.js';
import { WEDNESDAY_NOON } from '../fixtures.js';
import { FAKE_CREDENTIALS, FakeCTraderServer, type FakeCTraderOptions } from './fake-ctrader-server.js';

export interface FeedRig {
  clock: ManualClock;
  fake: FakeCTraderServer;
  feed: CTraderFeed;
  states: FeedStateChange[];
  quotes: Quote[];
}

const rigs: FeedRig[] = [];
const extraFeeds: CTraderFeed[] = [];

afterEach(async () => {
  for (const feed of extraFeeds.splice(0)) await feed.close();
  for (const rig of rigs.splice(0)) {
    await rig.feed.close();
    await rig.fake.close();
  }
});

/** A feed (not connected) on a fake server, both on one manual clock; closed after each test. */
export async function startRig(options: { at?: number; fake?: Omit<FakeCTraderOptions, 'clock'>; feed?: Partial<CTraderFeedOptions> } = {}): Promise<FeedRig> {
  const clock = new ManualClock(options.at ?? WEDNESDAY_NOON);
  const fake = await FakeCTraderServer.start({ clock, ...options.fake });
  const feed = new CTraderFeed({ ...FAKE_CREDENTIALS, url: fake.url, clock, ...options.feed });
  const rig: FeedRig = { clock, fake, feed, states: [], quotes: [] };
  feed.onState((change) => rig.states.push(change));
  feed.onQuote((quote) => rig.quotes.push(quote));
  rigs.push(rig);
  return rig;
}

/** Another feed on the rig's fake server and clock (a restarted process, a second one); closed after each test. */
export function anotherFeed(rig: FeedRig, options: Partial<CTraderFeedOptions> = {}): CTraderFeed {
  const feed = new CTraderFeed({ ...FAKE_CREDENTIALS, url: rig.fake.url, clock: rig.clock, ...options });
  extraFeeds.push(feed);
  return feed;
}
