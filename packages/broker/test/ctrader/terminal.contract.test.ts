import { tradingTerminalContract } from '../contract/trading-terminal.js';
import { REQUEST_TIMEOUT_MS, startTerminal, TRADE_PAYLOAD } from './terminal-harness.js';

tradingTerminalContract('ctrader (fake Open API server)', async () => {
  const { clock, fake, terminal, advance, teardown } = await startTerminal();
  // Moves the clock past the adapter's timeout once the held request has reached the fake.
  const expire = () => clock.advance(REQUEST_TIMEOUT_MS);
  return {
    terminal,
    symbol: 'EURUSD',
    // The fake fills at most 20 lots per deal; 99 EURUSD lots need ~107 000 USD of margin at 1:100 on 100 000 USD.
    partialVolume: '30',
    unaffordableVolume: '99',
    closeMarket: async () => fake.closeMarket('EURUSD'),
    injectFault: async ({ method, kind, times = 1 }) => {
      for (let i = 0; i < times; i++) {
        // order_check reads the venue: its first request hangs.
        if (method === 'orderCheck') fake.inject({ kind: 'hang', onArrive: expire });
        else if (kind === 'disconnect') fake.inject({ payloadTypes: [TRADE_PAYLOAD[method]], kind: 'drop' });
        else fake.inject({ payloadTypes: [TRADE_PAYLOAD[method]], kind: kind === 'timeout' ? 'hang' : 'execute-then-hang', onArrive: expire });
      }
    },
    reconnect: () => terminal.connect(),
    advance,
    teardown,
  };
});
