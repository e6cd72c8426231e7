import { ManualClock } from '@fxdesk/primitives';
import { afterEach, describe, expect, it } from 'vitest';
import { OandaTerminal } from '../../src/oanda/index.js';
import { SimulatedMarket } from '../../src/simulated/market.js';
import { driveClock } from '../drive-clock.js';
import { WEDNESDAY_NOON } from '../fixtures.js';
import { FakeV20Server } from './fake-v20-server.js';

describe('OandaTerminal pacing under the Best Practices limits', () => {
  let fake: FakeV20Server;
  let terminal: OandaTerminal;

  afterEach(async () => {
    await terminal.close();
    await fake.close();
  });

  it('never draws a 429 from a venue that refuses past 100 requests a second, under a burst of 150 quotes and positions', async () => {
    const clock = new ManualClock(WEDNESDAY_NOON);
    const market = new SimulatedMarket({ seed: 'oanda-pacing', tickIntervalMs: 1000, marketHours: true, clock });
    fake = await FakeV20Server.start({ market, clock, now: () => new Date(clock.now()), requestsPerSecond: 100 });
    terminal = new OandaTerminal({ token: fake.token, accountId: fake.account.id, baseUrl: fake.baseUrl, timeoutMs: 30_000, healthIntervalMs: 0, clock });
    await driveClock(clock, terminal.connect(), () => terminal.requestsInFlight > 0, 10);
    const burst = Array.from({ length: 150 }, (_, i) => (i % 2 === 0 ? terminal.tick('EURUSD') : terminal.positions()));
    const started = clock.now();
    await driveClock(clock, Promise.all(burst), () => terminal.requestsInFlight > 0, 10);
    expect(fake.throttled).toBe(0);
    // 2 of the first 50 went to connect; 150 more need 2 more seconds at 50 a second.
    expect(clock.now() - started).toBeGreaterThanOrEqual(1_900);
  });
});
