import { tradingTerminalContract } from '../contract/trading-terminal.js';
import { SATURDAY_NOON } from '../fixtures.js';
import { fakeSetup, READ_TIMEOUT_MS, TRADE_TIMEOUT_MS } from './harness.js';

tradingTerminalContract('metaapi (fake MetaApi server)', async () => {
  // Pacing is limits.test.ts's subject: here the manual clock stands still, so credits for a test's every call are there at once.
  const { clock, fake, terminal, teardown } = await fakeSetup({ pacing: { applicationCreditsPerSecond: 100_000, accountCreditsPerSecond: 100_000 } });
  // Moves the adapter's clock past its timeout once the held request has reached the server.
  const expire = (ms: number) => () => clock.advance(ms);
  return {
    terminal,
    symbol: 'EURUSD',
    // The simulated MT5 behind the fake fills at most 20 EURUSD lots per deal; 99 lots need ~107 000 USD of margin at 1:100.
    partialVolume: '30',
    unaffordableVolume: '99',
    closeMarket: async () => clock.advance(SATURDAY_NOON - clock.now()),
    injectFault: async ({ method, kind, times = 1 }) => {
      for (let i = 0; i < times; i++) {
        if (method === 'orderCheck') fake.inject({ route: 'any', kind: 'hang', onArrive: expire(READ_TIMEOUT_MS) });
        else if (kind === 'timeout') fake.inject({ route: 'trade', kind: 'hang', onArrive: expire(TRADE_TIMEOUT_MS) });
        else if (kind === 'ambiguous') fake.inject({ route: 'trade', kind: 'execute-then-hang', onArrive: expire(TRADE_TIMEOUT_MS) });
        // MetaApi's documented answer when its terminal loses the trade server during a trade.
        else fake.inject({ route: 'trade', kind: 'trade-code', numericCode: -11, stringCode: 'TRADE_RETCODE_DISCONNECTED_DURING_TRADE', thenDisconnect: true });
      }
    },
    reconnect: async () => {
      fake.setBrokerConnected(true);
      await terminal.connect();
    },
    advance: (ms) => clock.advanceAsync(ms),
    teardown,
  };
});
