import { ManualClock } from '@fxdesk/primitives';
import { OandaFeed, type OandaFeedOptions } from '../../src/oanda/index.js';
import { SimulatedMarket } from '../../src/simulated/market.js';
import { WEDNESDAY_NOON } from '../fixtures.js';
import { FakeV20Server } from './fake-v20-server.js';

export interface FeedSetup {
  clock: ManualClock;
  market: SimulatedMarket;
  fake: FakeV20Server;
  feed: OandaFeed;
  /** Waits (in real time, briefly) until the feed has read every line the fake wrote on the stream open now, and no attempt to open one is under way. */
  settle: () => Promise<void>;
  /** Moves the clock in steps of a second, settling after each: what the fake writes in one step is read before the next. */
  advance: (ms: number) => Promise<void>;
  /** Steps the clock until `done()` (at most `maxMs` of clock). */
  advanceUntil: (done: () => boolean, maxMs?: number) => Promise<void>;
  teardown: () => Promise<void>;
}

const STEP_MS = 1_000;

/** A fake v20 server with its pricing stream over a simulated market on a manual clock, and a feed pointed at it (not yet connected). */
export async function feedSetup(options: Partial<OandaFeedOptions> & { at?: number } = {}): Promise<FeedSetup> {
  const clock = new ManualClock(options.at ?? WEDNESDAY_NOON);
  const market = new SimulatedMarket({ seed: 'oanda-feed-tests', tickIntervalMs: 1000, marketHours: true, clock });
  const fake = await FakeV20Server.start({ market, clock, now: () => new Date(clock.now()) });
  const feed = new OandaFeed({
    token: fake.token,
    accountId: fake.account.id,
    baseUrl: fake.baseUrl,
    streamBaseUrl: fake.baseUrl,
    clock,
    // Not a pacing test: a stream opened again opens at once rather than at its turn of 2 a second in real time.
    newConnectionsPerSecond: 1000,
    ...options,
  });
  const settle = async () => {
    for (let turn = 0; turn < 2_000; turn++) {
      await new Promise((resolve) => setImmediate(resolve));
      const open = fake.linesPerOpenStream();
      const isRead = open.length === 0 || (open.length === 1 && feed.stats.linesOnStream >= open[0]!);
      // An attempt to open the stream again is answered before the clock moves on.
      if (isRead && feed.state() !== 'connecting') return;
      if (turn > 20) await new Promise((resolve) => setTimeout(resolve, 1));
    }
  };
  const advance = async (ms: number) => {
    for (let done = 0; done < ms; done += STEP_MS) {
      clock.advance(Math.min(STEP_MS, ms - done));
      await settle();
    }
  };
  return {
    clock,
    market,
    fake,
    feed,
    settle,
    advance,
    advanceUntil: async (done, maxMs = 120_000) => {
      for (let spent = 0; !done() && spent < maxMs; spent += STEP_MS) await advance(STEP_MS);
    },
    teardown: async () => {
      await feed.close();
      await fake.close();
    },
  };
}
