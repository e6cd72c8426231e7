import { CTraderAccount } from '../../src/ctrader/account-reader.js';
import { RETCODE } from '../../src/mt5-retcodes.js';
import { accountReaderContract } from '../contract/account-reader.js';
import { driveUntil, reach } from './drive.js';
import { REQUEST_TIMEOUT_MS, startTerminal } from './terminal-harness.js';

accountReaderContract('ctrader (fake Open API server)', async () => {
  const { clock, fake, feed, terminal, advance, teardown } = await startTerminal();
  const reader = new CTraderAccount({ feed, clock });
  return {
    reader,
    instrument: 'EUR_USD',
    // Activity through the terminal on the reader's own session: one position opened, a second opened and closed.
    produceActivity: async () => {
      await terminal.connect();
      const buy = { action: 'deal', symbol: 'EURUSD', type: 'buy', volume: '0.1', magic: 7, comment: 'activity', filling: 'IOC' } as const;
      await terminal.orderSend(buy);
      const opened = await terminal.orderSend(buy);
      await advance(1_000);
      const closed = await terminal.closePosition({ position: opened.position as string, volume: '0.1', magic: 7, comment: 'activity-close' });
      if (closed.retcode !== RETCODE.DONE) throw new Error(`the close answered ${closed.retcode}`);
    },
    venue: {
      // The server drops the session and refuses handshakes (HTTP 503): a read opens the session first, and a refused handshake is "unavailable" (the README's error table).
      cut: async () => {
        fake.goDown();
        await reach(feed, 'disconnected');
      },
      restore: async () => {
        fake.comeBack();
        await driveUntil(clock, feed, () => feed.state() === 'connected');
      },
      unreachableError: 'unavailable',
      timeoutMs: REQUEST_TIMEOUT_MS,
      advance,
    },
    teardown: async () => {
      await reader.close();
      await teardown();
    },
  };
});
