import { ManualClock } from '@fxdesk/primitives';
import { MetaApiAccountReader, type MetaApiAccountOptions } from '../../src/metaapi/index.js';
import { SimulatedMarket } from '../../src/simulated/market.js';
import type { TradeRequest } from '../../src/terminal.js';
import { WEDNESDAY_NOON } from '../fixtures.js';
import { FakeMetaApiServer, type FakeMetaApiOptions } from './fake-metaapi-server.js';
import { READ_TIMEOUT_MS } from './harness.js';

export interface AccountSetup {
  clock: ManualClock;
  fake: FakeMetaApiServer;
  reader: MetaApiAccountReader;
  teardown: () => Promise<void>;
}

/** A fake MetaApi over a simulated MT5 on a manual clock, and an account reader pointed at it. */
export async function accountSetup(
  options: Partial<MetaApiAccountOptions> & { fake?: Omit<FakeMetaApiOptions, 'market' | 'now'> } = {},
): Promise<AccountSetup> {
  const clock = new ManualClock(WEDNESDAY_NOON);
  const market = new SimulatedMarket({ seed: 'metaapi-account-tests', tickIntervalMs: 1000, marketHours: true, clock });
  const fake = await FakeMetaApiServer.start({ ...options.fake, market, now: () => clock.now() });
  const reader = new MetaApiAccountReader({
    token: fake.token,
    accountId: fake.accountId,
    baseUrl: fake.baseUrl,
    timeoutMs: READ_TIMEOUT_MS,
    clock,
    ...options,
  });
  return {
    clock,
    fake,
    reader,
    teardown: async () => {
      await reader.close();
      await fake.close();
    },
  };
}

/** A market order as a trader sends it at the MT5 terminal itself (not through the adapter). */
export function handTrade(symbol: string, type: 'buy' | 'sell', volume: string, extra: Partial<TradeRequest> = {}): TradeRequest {
  return { action: 'deal', symbol, type, volume, magic: 0, comment: 'by hand', filling: 'IOC', ...extra };
}
