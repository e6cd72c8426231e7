import { tradingTerminalContract } from '../contract/trading-terminal.js';
import { SATURDAY_NOON } from '../fixtures.js';
import { terminalSetup, TIMEOUT_MS } from './terminal-harness.js';

const ROUTES = { orderSend: 'POST orders', closePosition: 'PUT trades/close', modifyPosition: 'PUT trades/orders', cancelOrder: 'PUT orders/cancel' } as const;

tradingTerminalContract('oanda (fake v20 server)', async () => {
  const { clock, fake, terminal, teardown } = await terminalSetup();
  // Moves the adapter's clock past its timeout once the held request has reached the server.
  const expire = () => clock.advance(TIMEOUT_MS);
  return {
    terminal,
    symbol: 'EURUSD',
    // The fake fills at most 1 000 000 units (10 lots) at the best price; at 3.33 % 20 lots need ~72 000 USD of
    // margin (of 100 000), 99 lots ~358 000.
    partialVolume: '20',
    unaffordableVolume: '99',
    closeMarket: async () => clock.advance(SATURDAY_NOON - clock.now()),
    injectFault: async ({ method, kind, times = 1 }) => {
      for (let i = 0; i < times; i++) {
        if (method === 'orderCheck') fake.inject({ route: 'GET', kind: 'hang', onArrive: expire });
        else if (kind === 'timeout') fake.inject({ route: ROUTES[method], kind: 'hang', onArrive: expire });
        else if (kind === 'ambiguous') fake.inject({ route: ROUTES[method], kind: 'execute-then-hang', onArrive: expire });
        // The connection breaks once the request has left: OANDA never saw it, the adapter cannot know.
        else fake.inject({ route: ROUTES[method], kind: 'reset' });
      }
    },
    reconnect: () => terminal.connect(),
    advance: (ms) => clock.advanceAsync(ms),
    teardown,
  };
});
