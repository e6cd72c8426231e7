import { SimulatedTerminal } from '../src/simulated/terminal.js';
import type { SimulatedTerminalStore } from '../src/simulated/terminal-store.js';
import { tradingTerminalContract, type TradingTerminalHarness } from './contract/trading-terminal.js';
import { SATURDAY_NOON, makeMarket } from './fixtures.js';
import { MemoryTerminalStore } from './memory-terminal-store.js';

async function simulatedHarness(store?: SimulatedTerminalStore): Promise<TradingTerminalHarness> {
  const { market, clock } = makeMarket();
  const terminal = new SimulatedTerminal({ market, balance: '100000', leverage: 100, reconnectAfterMs: 0, store });
  return {
    terminal,
    symbol: 'EURUSD',
    // EURUSD fills at most 20 lots per deal; 99 lots need ~110 000 USD of margin at 1:100.
    partialVolume: '30',
    unaffordableVolume: '99',
    closeMarket: async () => clock.advance(SATURDAY_NOON - clock.now()),
    injectFault: async (fault) => terminal.injectFault({ times: 1, ...fault }),
    reconnect: () => terminal.connect(),
    advance: (ms) => clock.advanceAsync(ms),
    teardown: () => terminal.close(),
  };
}

tradingTerminalContract('simulated', () => simulatedHarness());
tradingTerminalContract('simulated, saving to a store', () => simulatedHarness(new MemoryTerminalStore()));
