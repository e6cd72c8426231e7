import { createLogger } from '@fxdesk/core';
import type { FeedStateChange } from '@fxdesk/broker';
import { ManualClock } from '@fxdesk/primitives';
import { afterEach, describe, expect, it } from 'vitest';
import { FeedSession } from '../src/feed-session.js';
import { FAKE_SYMBOLS, FakeFeed } from './fake-feed.js';

const logger = createLogger({ name: 'test', level: 'silent' });
let session: FeedSession | undefined;

afterEach(() => {
  session?.stop();
  session = undefined;
});

function start(feed: FakeFeed, clock: ManualClock, reconnectMaxMs = 4000, symbols: string[] = []) {
  const states: FeedStateChange[] = [];
  session = new FeedSession({ feed, clock, logger, reconnectMaxMs, symbols, onQuote: () => {}, onState: (c) => states.push(c), onCatalog: () => {} });
  return { states, started: session.start() };
}

/** Advances the clock by `ms` and lets the connection attempt it triggered settle. */
async function advance(clock: ManualClock, ms: number): Promise<void> {
  await clock.advanceAsync(ms);
  await new Promise((resolve) => setImmediate(resolve));
}

describe('FeedSession', () => {
  it('retries a failing connection after 1 s, 2 s, 4 s, then every reconnectMaxMs', async () => {
    const clock = new ManualClock();
    const feed = new FakeFeed(clock);
    feed.failConnects = 6;
    await start(feed, clock, 4000).started;
    const attemptsAt: number[] = [];
    for (let second = 1; second <= 20; second++) {
      const before = feed.connectCalls;
      await advance(clock, 1000);
      if (feed.connectCalls > before) attemptsAt.push(second);
    }
    expect(attemptsAt).toEqual([1, 3, 7, 11, 15, 19]);
    expect(feed.state()).toBe('connected');
  });

  it('reconnects a feed left disconnected and subscribes again', async () => {
    const clock = new ManualClock();
    const feed = new FakeFeed(clock);
    await start(feed, clock).started;
    feed.subscribed.clear();
    feed.setState('disconnected', 'socket closed');
    await advance(clock, 999);
    expect(feed.connectCalls).toBe(1);
    await advance(clock, 1);
    expect(feed.connectCalls).toBe(2);
    expect([...feed.subscribed].sort()).toEqual(['EURUSD', 'GBPUSD', 'USDJPY']);
  });

  it('leaves alone a feed that reconnected by itself', async () => {
    const clock = new ManualClock();
    const feed = new FakeFeed(clock);
    const { states, started } = start(feed, clock);
    await started;
    feed.setState('disconnected', 'socket closed');
    feed.setState('connected', 'reconnected');
    await advance(clock, 5000);
    expect(feed.connectCalls).toBe(1);
    expect(states.map((s) => s.state)).toEqual(['connected', 'disconnected', 'connected']);
  });

  it('serves and subscribes only the SYMBOLS it is given, leaving out names the broker does not list', async () => {
    const clock = new ManualClock();
    const feed = new FakeFeed(clock);
    await start(feed, clock, 4000, ['USDJPY', 'EURUSD', 'NOSUCH']).started;
    expect([...feed.subscribed].sort()).toEqual(['EURUSD', 'USDJPY']);
    expect([...(session?.symbols()?.keys() ?? [])]).toEqual(['USDJPY', 'EURUSD']);
  });

  it('serves the whole catalog, disabled symbols listed but not subscribed, when SYMBOLS is empty', async () => {
    const clock = new ManualClock();
    const feed = new FakeFeed(clock);
    await start(feed, clock).started;
    expect([...(session?.symbols()?.keys() ?? [])].sort()).toEqual(FAKE_SYMBOLS.map((s) => s.name).sort());
    expect([...feed.subscribed].sort()).toEqual(
      FAKE_SYMBOLS.filter((s) => s.enabled)
        .map((s) => s.name)
        .sort(),
    );
  });
});
