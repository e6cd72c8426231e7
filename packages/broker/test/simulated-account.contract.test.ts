import { SimulatedAccount } from '../src/simulated/account.js';
import { accountReaderContract } from './contract/account-reader.js';
import { makeMarket } from './fixtures.js';

accountReaderContract('simulated', async () => {
  const { market, clock } = makeMarket();
  const reader = new SimulatedAccount({ market, balance: 100_000 });
  return {
    reader,
    instrument: 'EUR_USD',
    // A trading day of the simulated trader: it opens and closes several trades.
    produceActivity: () => clock.advanceAsync(24 * 3_600_000),
    teardown: () => reader.close(),
  };
});
