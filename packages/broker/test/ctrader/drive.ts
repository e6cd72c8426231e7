import type { ManualClock } from '@fxdesk/primitives';
import type { CTraderFeed } from '../../src/ctrader/feed.js';
import type { FeedState } from '../../src/feed.js';

/**
 * Time in these tests moves on a manual clock shared by the feed and the fake server, while
 * bytes move over a real loopback socket. Time therefore advances in steps, and after each
 * step the socket is allowed to catch up: a session attempt under way is waited for, and a
 * live session does a version round trip, which arrives after everything the server sent
 * before it (one ordered stream).
 */
export async function drive(clock: ManualClock, feed: CTraderFeed, ms: number, stepMs = 1000): Promise<void> {
  for (let left = ms; left > 0; left -= stepMs) {
    clock.advance(Math.min(stepMs, left));
    await settle(feed);
  }
}

/** Moves time step by step until `done()` holds; fails after `maxMs` of clock time. */
export async function driveUntil(clock: ManualClock, feed: CTraderFeed, done: () => boolean, maxMs = 120_000, stepMs = 1000): Promise<void> {
  await settle(feed);
  for (let waited = 0; !done(); waited += stepMs) {
    if (waited >= maxMs) throw new Error(`condition not met within ${maxMs} ms of clock time (feed ${feed.state()})`);
    await drive(clock, feed, stepMs, stepMs);
  }
}

/** Lets in-flight socket traffic land (see `drive`). */
export async function settle(feed: CTraderFeed): Promise<void> {
  if (feed.state() === 'connecting') await nextState(feed);
  if (feed.state() === 'connected') {
    await feed.serverVersion().catch(() => undefined);
    return;
  }
  await new Promise((resolve) => setImmediate(resolve));
}

/** Resolves with the feed's next state change. */
export function nextState(feed: CTraderFeed): Promise<FeedState> {
  return new Promise((resolve) => {
    const off = feed.onState((change) => {
      off();
      resolve(change.state);
    });
  });
}

/** Resolves once the feed reaches `state` (at once if it is there). */
export async function reach(feed: CTraderFeed, state: FeedState): Promise<void> {
  while (feed.state() !== state) await nextState(feed);
}
