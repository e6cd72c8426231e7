import { FAKE_CTRADER_SYMBOLS, FakeCTraderServer } from '@fxdesk/broker/testing';
import { createLogger, type App } from '@fxdesk/core';
import { startRedis, until, type RunningEngine } from '@fxdesk/core/testing';
import { ManualClock } from '@fxdesk/primitives';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createQuoteFeed } from '../src/broker.js';
import { createReplication } from '../src/deps.js';
import { buildOn, fakeCTraderSettings, ready, testConfig } from './helpers.js';

/** Wednesday 2026-01-07 12:00 UTC: the fake venue's FX week is open. */
const START = Date.UTC(2026, 0, 7, 12);
/** Thursday 2026-01-08, a holiday of the served symbols on the fake venue (their weekly schedule has them open). */
const HOLIDAY = Date.UTC(2026, 0, 8, 12);

let redisServer: RunningEngine;
let redis: Redis;
let clock: ManualClock;
let fake: FakeCTraderServer;
const opened: App[] = [];

beforeAll(async () => {
  redisServer = await startRedis();
  redis = new Redis(redisServer.url);
}, 300_000);

afterAll(async () => {
  redis?.disconnect();
  await redisServer?.stop();
});

afterEach(async () => {
  for (const app of opened.splice(0)) await app.close();
  await fake?.close();
  await redis.flushall();
});

/** A replica as server.ts builds it with BROKER=ctrader and REDIS_URL, pointed at the local fake venue; all on one clock. */
async function replica(owner: string): Promise<{ app: App }> {
  const config = testConfig({
    ...fakeCTraderSettings(fake.port),
    DATA_DIR: ':memory:',
    SYMBOLS: 'EURUSD,USDJPY',
    REDIS_URL: redisServer.url,
  });
  const broker = createQuoteFeed(config, clock);
  const logger = createLogger({ name: 'test', level: 'silent' });
  const replication = await createReplication({ url: redisServer.url, owner, retention: 1000, leaseMs: 1000, logger });
  const close = async () => {
    await broker.close();
    await replication.close();
  };
  const { app } = await buildOn(config, { clock, logger, feed: broker.feed, checks: broker.checks, close, replication: replication.replication });
  opened.push(app);
  await app.ready();
  return { app };
}

/** The leader, then a follower, both ready on the venue's first quotes. */
async function leaderAndFollower() {
  clock = new ManualClock(START);
  const holiday = { holidayId: 1, name: 'Venue holiday', scheduleTimeZone: 'UTC', holidayDate: Math.floor(HOLIDAY / 86_400_000), isRecurring: false };
  fake = await FakeCTraderServer.start({ clock, symbols: FAKE_CTRADER_SYMBOLS.map((s) => ({ ...s, holiday: [holiday] })) });
  const leader = await replica('replica-a');
  await until(async () => (await ready(leader)).status === 200, 10_000);
  const follower = await replica('replica-b');
  await until(async () => (await ready(follower)).status === 200, 10_000);
  expect((await ready(follower)).body.checks.replica?.detail).toMatch(/^follower: replica replica-a holds the venue connection/);
  return { leader, follower };
}

/** What /health/ready says of the quotes, on each replica. */
async function ticksChecks(...replicas: { app: App }[]) {
  return Promise.all(replicas.map(async (r) => ({ status: (await ready(r)).status, ticks: (await ready(r)).body.checks.ticks })));
}

describe('cTrader replicas: a follower counts staleness by the schedules the leader loaded', () => {
  it('is ready at once on a follower that joins with no new quote coming, as the leader is: the last tick of each symbol is its quote', async () => {
    const { leader, follower } = await leaderAndFollower();
    const [onLeader, onFollower] = await ticksChecks(leader, follower);
    expect(onLeader).toEqual({ status: 200, ticks: { ok: true, detail: 'last quote 0 s ago (limit 30 s)' } });
    expect(onFollower).toEqual(onLeader);
  }, 60_000);

  it('turns stale as the leader does when the venue is silent for TICK_STALENESS_SECONDS of open market', async () => {
    const { leader, follower } = await leaderAndFollower();
    // Time moves on and no spot event comes (the fake venue's spots run on timers that set() does not run).
    clock.set(START + 31_000);
    const [onLeader, onFollower] = await ticksChecks(leader, follower);
    expect(onLeader).toEqual({
      status: 503,
      ticks: { ok: false, detail: 'last quote 31 s ago while the market is open, over TICK_STALENESS_SECONDS=30' },
    });
    expect(onFollower).toEqual(onLeader);
  }, 60_000);

  it('takes the market as closed where the schedules say so, at the weekend and on a holiday, as the leader does', async () => {
    const { leader, follower } = await leaderAndFollower();
    for (const at of [Date.UTC(2026, 0, 10, 12), HOLIDAY]) {
      clock.set(at);
      const [onLeader, onFollower] = await ticksChecks(leader, follower);
      expect(onLeader).toEqual({ status: 200, ticks: { ok: true, detail: 'market closed; quotes resume at the open' } });
      expect(onFollower).toEqual(onLeader);
    }
  }, 60_000);
});
