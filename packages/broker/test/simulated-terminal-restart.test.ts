import { describe, expect, it } from 'vitest';
import { BrokerError } from '../src/errors.js';
import { SimulatedTerminal } from '../src/simulated/terminal.js';
import type { TradeRequest } from '../src/terminal.js';
import { simulatedTerminalStoreContract } from './contract/simulated-terminal-store.js';
import { makeMarket } from './fixtures.js';
import { MemoryTerminalStore } from './memory-terminal-store.js';

const MAGIC = 5;

function request(comment: string): TradeRequest {
  return { action: 'deal', symbol: 'EURUSD', type: 'buy', volume: '0.1', magic: MAGIC, comment };
}

simulatedTerminalStoreContract('in memory', () => {
  const store = new MemoryTerminalStore();
  return { open: () => store, close: () => undefined, teardown: () => undefined };
});

describe('SimulatedTerminal on a store', () => {
  it('fails an order_send it could not save as ambiguous, and saves its changes with the next one', async () => {
    const { market } = makeMarket();
    const store = new MemoryTerminalStore();
    const terminal = new SimulatedTerminal({ market, store });
    await terminal.connect();
    store.failures = 1;
    const failed = await terminal.orderSend(request('unsaved')).catch((err: unknown) => err);
    expect(failed).toBeInstanceOf(BrokerError);
    expect((failed as BrokerError).isAmbiguous).toBe(true);
    await terminal.orderSend(request('saved'));

    const restarted = new SimulatedTerminal({ market, store });
    await restarted.connect();
    expect((await restarted.findByComment('', MAGIC)).map((r) => `${r.comment} ${r.kind}`)).toEqual([
      'saved deal',
      'saved order',
      'unsaved deal',
      'unsaved order',
    ]);
  });
});
