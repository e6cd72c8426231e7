import { ManualClock } from '@fxdesk/primitives';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BrokerError } from '../../src/errors.js';
import { OandaAccountReader, type OandaAccountOptions } from '../../src/oanda/index.js';
import { driveClock } from '../drive-clock.js';
import { FakeV20Server } from './fake-v20-server.js';

/** OANDA Best Practices: "we recommend limiting this to one hundred per second (100/s)". */
const LIMIT = 100;

describe('OandaAccountReader pacing under the Best Practices limits', () => {
  let clock: ManualClock;
  let fake: FakeV20Server;
  let reader: OandaAccountReader;

  beforeEach(async () => {
    clock = new ManualClock('2026-01-05T12:00:00Z');
    fake = await FakeV20Server.start({ now: () => new Date(clock.now()), requestsPerSecond: LIMIT });
  });

  afterEach(async () => {
    await reader.close();
    await fake.close();
  });

  const open = (options: Partial<OandaAccountOptions> = {}) =>
    new OandaAccountReader({ token: fake.token, accountId: fake.account.id, baseUrl: fake.baseUrl, timeoutMs: 30_000, clock, ...options });
  /** Runs `work` with the clock moving in 10 ms steps whenever no request is on the wire. */
  const driven = <T>(work: Promise<T>) => driveClock(clock, work, () => reader.requestsInFlight > 0, 10);

  it('the fake answers 429 past 100 requests in a second, as OANDA rate limits', async () => {
    reader = open();
    const url = `${fake.baseUrl}/v3/accounts/${fake.account.id}/summary`;
    const answers = await Promise.all(Array.from({ length: 130 }, () => fetch(url, { headers: { authorization: `Bearer ${fake.token}` } })));
    expect(answers.filter((r) => r.status === 429)).toHaveLength(30);
    expect(fake.throttled).toBe(30);
  });

  it('never draws a 429 under a burst of 300 reads: 50 at once, then 50 a second', async () => {
    reader = open();
    const started = clock.now();
    const summaries = await driven(Promise.all(Array.from({ length: 300 }, () => reader.summary())));
    expect(summaries.every((s) => s.id === fake.account.id)).toBe(true);
    expect(fake.throttled).toBe(0);
    expect(clock.now() - started).toBeGreaterThanOrEqual(4_990);
    expect(clock.now() - started).toBeLessThan(5_100);
  });

  it('opens at most 2 new connections in any second, over a pool of 2 kept alive', async () => {
    reader = open();
    await driven(Promise.all(Array.from({ length: 200 }, () => reader.summary())));
    expect(fake.connections).toBeLessThanOrEqual(2);
    expect(fake.mostConnectionsInOneSecond()).toBeLessThanOrEqual(2);
  });

  it('refuses at once, unsent and rate_limited, a read that could not start within its timeout', async () => {
    reader = open({ timeoutMs: 1_000 });
    // 50 at once, then one each 20 ms: within 1 s another 50; the last 20 of 120 are refused.
    const outcomes = await driven(Promise.allSettled(Array.from({ length: 120 }, () => reader.summary())));
    const refused = outcomes.filter((o) => o.status === 'rejected').map((o) => o.reason as BrokerError);
    expect(refused).toHaveLength(20);
    expect(refused.every((e) => e.kind === 'rate_limited')).toBe(true);
    expect(fake.requests).toHaveLength(100);
    expect(fake.throttled).toBe(0);
  });
});
