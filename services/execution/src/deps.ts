import type { SimulatedTerminalStore, TradingTerminal } from '@fxdesk/broker';
import { databasePath } from '@fxdesk/core';
import { systemClock, type Clock } from '@fxdesk/primitives';
import type { Logger } from 'pino';
import type { ExecutionConfig } from './config.js';
import { PostgresSignalStore } from './postgres-store.js';
import { SqliteSignalStore } from './sqlite-store.js';
import type { SignalStore } from './store.js';
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

interface Stores {
  signals: SignalStore;
  simulatedTerminal: SimulatedTerminalStore;
  close: () => Promise<void>;
}

/**
 * The signals in PostgreSQL when DATABASE_URL names one, else in DATA_DIR/execution.db. The
 * simulated terminal's account stays in DATA_DIR/execution.db either way: it is this process's
 * stand-in for a broker, not state the replicas share.
 */
async function openStores(config: ExecutionConfig): Promise<Stores> {
  const file = SqliteSignalStore.open(databasePath(config.DATA_DIR, 'execution'), config.REPLICA_ID);
  if (config.DATABASE_URL === undefined) return { signals: file, simulatedTerminal: file.simulatedTerminalStore(), close: () => file.close() };
  try {
    const signals = await PostgresSignalStore.open(config.DATABASE_URL, config.REPLICA_ID);
    return {
      signals,
      simulatedTerminal: file.simulatedTerminalStore(),
      close: async () => {
        await signals.close();
        await file.close();
      },
    };
  } catch (err) {
    await file.close();
    throw err;
  }
}

/** The real dependencies: the stores, and the terminal BROKER names, connected. */
export async function createDeps(config: ExecutionConfig, logger: Logger): Promise<ExecutionDeps> {
  const clock = systemClock;
  const stores = await openStores(config);
  const { terminal, calls } = createTerminal(config, clock, stores.simulatedTerminal);
  const close = async () => {
    await terminal.close();
    await stores.close();
  };
  logger.info(
    `trading on the ${describeTerminal(config)} terminal; signals in ${config.DATABASE_URL === undefined ? 'SQLite' : 'PostgreSQL'} as replica ${config.REPLICA_ID}`,
  );
  try {
    await connectTerminal(terminal, logger);
  } catch (err) {
    await close();
    throw err;
  }
  return { clock, terminal, store: stores.signals, logger, terminalCalls: calls, close };
}
