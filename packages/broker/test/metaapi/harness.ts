import { ManualClock } from '@fxdesk/primitives';
import { expect } from 'vitest';
import { BrokerError } from '../../src/errors.js';
import { MetaApiTerminal, type MetaApiTerminalOptions } from '../../src/metaapi/index.js';
import { SimulatedMarket } from '../../src/simulated/market.js';
import type { TradeRequest } from '../../src/terminal.js';
import { WEDNESDAY_NOON } from '../fixtures.js';
import { FakeMetaApiServer, type FakeMetaApiOptions } from './fake-metaapi-server.js';

/** Timeouts of the adapter under test; a hung request is answered by moving the clock past them. */
export const READ_TIMEOUT_MS = 5_000;
export const TRADE_TIMEOUT_MS = 20_000;

export interface FakeSetup {
  clock: ManualClock;
  market: SimulatedMarket;
  fake: FakeMetaApiServer;
  terminal: MetaApiTerminal;
  /** Stops the terminal and the fake server. */
  teardown: () => Promise<void>;
}

/** A fake MetaApi over a simulated market on a manual clock, and an adapter pointed at it (not yet connected). */
export async function fakeSetup(
  options: Partial<MetaApiTerminalOptions> & { at?: number; fake?: Omit<FakeMetaApiOptions, 'market' | 'now'> } = {},
): Promise<FakeSetup> {
  const clock = new ManualClock(options.at ?? WEDNESDAY_NOON);
  const market = new SimulatedMarket({ seed: 'metaapi-tests', tickIntervalMs: 1000, marketHours: true, clock });
  const fake = await FakeMetaApiServer.start({ ...options.fake, market, now: () => clock.now() });
  const terminal = new MetaApiTerminal({
    token: fake.token,
    accountId: fake.accountId,
    baseUrl: fake.baseUrl,
    marketDataBaseUrl: fake.baseUrl,
    timeoutMs: READ_TIMEOUT_MS,
    tradeTimeoutMs: TRADE_TIMEOUT_MS,
    healthIntervalMs: 0,
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

/** A 0.10-lot EURUSD market buy, IOC, 20 points of deviation. */
export function marketBuyOf(magic: number, comment: string, extra: Partial<TradeRequest> = {}): TradeRequest {
  return { action: 'deal', symbol: 'EURUSD', type: 'buy', volume: '0.10', deviation: 20, magic, comment, filling: 'IOC', ...extra };
}

/** The BrokerError a promise rejects with. */
export async function failure(promise: Promise<unknown>): Promise<BrokerError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(BrokerError);
  return err as BrokerError;
}
