import { ManualClock } from '@fxdesk/primitives';
import { OandaTerminal, type OandaTerminalOptions } from '../../src/oanda/index.js';
import { SimulatedMarket } from '../../src/simulated/market.js';
import { WEDNESDAY_NOON } from '../fixtures.js';
import { FakeV20Server } from './fake-v20-server.js';

/** The adapter's timeout: a held request is answered by moving the clock past it. */
export const TIMEOUT_MS = 10_000;

export interface TerminalSetup {
  clock: ManualClock;
  market: SimulatedMarket;
  fake: FakeV20Server;
  terminal: OandaTerminal;
  teardown: () => Promise<void>;
}

/** A fake v20 server trading on a simulated market on a manual clock, and a terminal pointed at it (not yet connected). */
export async function terminalSetup(options: Partial<OandaTerminalOptions> & { at?: number } = {}): Promise<TerminalSetup> {
  const clock = new ManualClock(options.at ?? WEDNESDAY_NOON);
  const market = new SimulatedMarket({ seed: 'oanda-tests', tickIntervalMs: 1000, marketHours: true, clock });
  const fake = await FakeV20Server.start({ market, clock, now: () => new Date(clock.now()) });
  const terminal = new OandaTerminal({
    token: fake.token,
    accountId: fake.account.id,
    baseUrl: fake.baseUrl,
    timeoutMs: TIMEOUT_MS,
    healthIntervalMs: 0,
    // The contract is not about pacing (pacing.test.ts is): a connection a timeout closed is opened again at once,
    // not after its turn at 2 new connections a second of real time.
    connections: 1,
    newConnectionsPerSecond: 1000,
    clock,
    ...options,
  });
  return {
    clock,
    market,
    fake,
    terminal,
    teardown: async () => {
      await terminal.close();
      await fake.close();
    },
  };
}
