import { ManualClock } from '@fxdesk/primitives';
import { RETCODE } from '../../src/mt5-retcodes.js';
import { OandaAccountReader } from '../../src/oanda/index.js';
import { accountReaderContract, type AccountReaderHarness } from '../contract/account-reader.js';
import { FakeV20Server } from './fake-v20-server.js';
import { terminalSetup, TIMEOUT_MS } from './terminal-harness.js';

/** The fake as the reader's venue: down, it answers nothing, so each read ends at its timeout as "timeout" (the reader's JSDoc). */
function unreachableWhenDown(fake: FakeV20Server, clock: ManualClock): AccountReaderHarness['venue'] {
  return {
    cut: async () => fake.goDown(),
    restore: async () => fake.comeBack(),
    unreachableError: 'timeout',
    timeoutMs: TIMEOUT_MS,
    advance: async (ms) => clock.advance(ms),
  };
}

accountReaderContract('oanda (fake v20 server)', async () => {
  const clock = new ManualClock('2026-01-07T12:00:00Z');
  const fake = await FakeV20Server.start({ now: () => new Date(clock.now()) });
  const reader = new OandaAccountReader({ token: fake.token, accountId: fake.account.id, baseUrl: fake.baseUrl, timeoutMs: TIMEOUT_MS, clock });
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
    venue: unreachableWhenDown(fake, clock),
    teardown: async () => {
      await reader.close();
      await fake.close();
    },
  };
});

accountReaderContract('oanda (fake v20 server trading on a market)', async () => {
  const { clock, fake, terminal, teardown } = await terminalSetup();
  const reader = new OandaAccountReader({ token: fake.token, accountId: fake.account.id, baseUrl: fake.baseUrl, timeoutMs: TIMEOUT_MS, clock });
  await terminal.connect();
  return {
    reader,
    instrument: 'EUR_USD',
    // What the desk does on the account: two trades opened through the terminal, an order left resting, the first closed a minute later.
    produceActivity: async () => {
      const buy = { action: 'deal', symbol: 'EURUSD', type: 'buy', volume: '0.01', magic: 7, comment: 'activity' } as const;
      const first = await terminal.orderSend(buy);
      await terminal.orderSend({ ...buy, symbol: 'USDJPY', type: 'sell', volume: '0.02' });
      const { bid } = (await terminal.tick('GBPUSD'))!;
      await terminal.orderSend({ ...buy, action: 'pending', symbol: 'GBPUSD', type: 'buy_limit', price: (bid - 0.01).toFixed(5) });
      clock.advance(60_000);
      const closed = await terminal.closePosition({ position: first.position!, volume: '0.01', magic: 7, comment: 'activity-close' });
      if (closed.retcode !== RETCODE.DONE) throw new Error(`the close answered ${closed.retcode}`);
    },
    venue: unreachableWhenDown(fake, clock),
    teardown: async () => {
      await reader.close();
      await teardown();
    },
  };
});
