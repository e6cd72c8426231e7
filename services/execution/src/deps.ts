import type { TradingTerminal } from '@fxdesk/broker';
import { databasePath } from '@fxdesk/core';
import { systemClock, type Clock } from '@fxdesk/primitives';
import type { Logger } from 'pino';
import type { ExecutionConfig } from './config.js';
import { SignalStore } from './store.js';
import { connectTerminal, createTerminal, describeTerminal } from './terminal.js';

/** What the execution service runs on; whoever made them closes them (server.ts, or a test). */
export interface ExecutionDeps {
  clock: Clock;
  terminal: TradingTerminal;
  store: SignalStore;
  logger?: Logger;
  /** Call counts of the terminal by method, exposed in /metrics. */
  terminalCalls?: () => Record<string, number>;
  /** Closes the terminal, then the store. */
  close: () => Promise<void>;
}

/** The real dependencies: the store in DATA_DIR, and the terminal BROKER names, connected. */
export async function createDeps(config: ExecutionConfig, logger: Logger): Promise<ExecutionDeps> {
  const clock = systemClock;
  // One file holds the signals and the simulated terminal's account.
  const store = SignalStore.open(databasePath(config.DATA_DIR, 'execution'));
  const { terminal, calls } = createTerminal(config, clock, store.simulatedTerminalStore());
  const close = async () => {
    await terminal.close();
    store.close();
  };
  logger.info(`trading on the ${describeTerminal(config)} terminal`);
  try {
    await connectTerminal(terminal, logger);
  } catch (err) {
    await close();
    throw err;
  }
  return { clock, terminal, store, logger, terminalCalls: calls, close };
}
