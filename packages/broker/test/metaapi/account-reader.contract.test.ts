import { accountReaderContract } from '../contract/account-reader.js';
import { accountSetup, handTrade } from './account-setup.js';
import { READ_TIMEOUT_MS } from './harness.js';

accountReaderContract('metaapi (fake MetaApi server)', async () => {
  // Pacing is account-reader.test.ts's subject: the manual clock stands still here, so credits for every call are there at once.
  const { clock, fake, reader, teardown } = await accountSetup({ pacing: { applicationCreditsPerSecond: 100_000, accountCreditsPerSecond: 100_000 } });
  return {
    reader,
    instrument: 'EUR_USD',
    // What a trader does at the MT5 terminal: open two positions, leave a limit order resting, close the first a minute later.
    produceActivity: async () => {
      const first = await fake.terminal.orderSend(handTrade('EURUSD', 'buy', '0.10'));
      await fake.terminal.orderSend(handTrade('USDJPY', 'sell', '0.20'));
      const bid = (await fake.terminal.tick('GBPUSD'))!.bid;
      await fake.terminal.orderSend({ ...handTrade('GBPUSD', 'buy', '0.15'), action: 'pending', type: 'buy_limit', price: (bid - 0.01).toFixed(5) });
      await clock.advanceAsync(60_000);
      await fake.terminal.closePosition({ position: first.position!, volume: '0.10', magic: 0, comment: 'by hand' });
    },
    venue: {
      // MetaApi answers nothing: each read ends as its timeout.
      cut: async () => fake.goDown(),
      restore: async () => fake.comeBack(),
      unreachableError: 'timeout',
      timeoutMs: READ_TIMEOUT_MS,
      advance: (ms) => clock.advanceAsync(ms),
    },
    teardown,
  };
});
