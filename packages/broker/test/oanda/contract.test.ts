import { ManualClock } from '@fxdesk/primitives';
import { OandaAccountReader } from '../../src/oanda/index.js';
import { accountReaderContract } from '../contract/account-reader.js';
import { FakeV20Server } from './fake-v20-server.js';

accountReaderContract('oanda (fake v20 server)', async () => {
  const clock = new ManualClock('2026-01-07T12:00:00Z');
  const fake = await FakeV20Server.start({ now: () => new Date(clock.now()) });
  const reader = new OandaAccountReader({ token: fake.token, accountId: fake.account.id, baseUrl: fake.baseUrl, timeoutMs: 30_000, clock });
  return {
    reader,
    instrument: 'EUR_USD',
    // What a trader does on the real account: open two trades, close one, leave an order resting.
    produceActivity: async () => {
      const first = fake.account.openTrade({ instrument: 'EUR_USD', units: 1000, price: '1.08500', stopLoss: '1.08000' });
      fake.account.openTrade({ instrument: 'USD_JPY', units: -2000, price: '158.100' });
      fake.account.placeLimitOrder({ instrument: 'GBP_USD', units: 1500, price: '1.26000' });
      clock.advance(60_000);
      fake.account.closeTrade(first, '1.08650');
    },
    teardown: async () => {
      await reader.close();
      await fake.close();
    },
  };
});
