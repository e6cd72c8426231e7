import type { SimulatedTerminalStore, TradingTerminal } from '@fxdesk/broker';
import { databasePath, openStoreDatabase, SqliteStoreDatabase, type Dialect } from '@fxdesk/core';
import { systemClock, type Clock } from '@fxdesk/primitives';
import type { Logger } from 'pino';
import type { ExecutionConfig } from './config.js';
import { EXECUTION_SCHEMA, EXECUTION_SQLITE, openExecutionFile } from './schema.js';
import { DatabaseSignalStore } from './signal-store.js';
import type { SignalStore } from './store.js';
import { SqliteTerminalStore } from './terminal-store.js';
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
  /** The engine that holds the signals, for the start-up line. */
  engine: Dialect['engine'];
  simulatedTerminal: SimulatedTerminalStore;
  close: () => Promise<void>;
}

/**
 * The signals in PostgreSQL when DATABASE_URL names one, else in DATA_DIR/execution.db. The
 * simulated terminal's account stays in DATA_DIR/execution.db either way: it is this process's
 * stand-in for a broker, not state the replicas share.
 */
async function openStores(config: ExecutionConfig): Promise<Stores> {
  const file = databasePath(config.DATA_DIR, 'execution');
  const db = await openStoreDatabase({ databaseUrl: config.DATABASE_URL, file, schema: EXECUTION_SCHEMA, sqlite: EXECUTION_SQLITE });
  const signals = new DatabaseSignalStore(db, config.REPLICA_ID);
  const engine = db.dialect.engine;
  if (db instanceof SqliteStoreDatabase) return { signals, engine, simulatedTerminal: new SqliteTerminalStore(db), close: () => signals.close() };
  try {
    const terminalFile = openExecutionFile(file);
    return {
      signals,
      engine,
      simulatedTerminal: new SqliteTerminalStore(terminalFile),
      close: async () => {
        await signals.close();
        await terminalFile.close();
      },
    };
  } catch (err) {
    await signals.close();
    throw err;
  }
}

/** The real dependencies: the stores, and the terminal BROKER names, connected. */
export async function createDeps(config: ExecutionConfig, logger: Logger): Promise<ExecutionDeps> {
  const clock = systemClock;
  const stores = await openStores(config);
  const { terminal, calls, close: closeTerminal } = createTerminal(config, clock, stores.simulatedTerminal);
  const close = async () => {
    await closeTerminal();
    await stores.close();
  };
  logger.info(`trading on the ${describeTerminal(config)} terminal; signals in ${stores.engine} as replica ${config.REPLICA_ID}`);
  try {
    await connectTerminal(terminal, logger);
  } catch (err) {
    await close();
    throw err;
  }
  return { clock, terminal, store: stores.signals, logger, terminalCalls: calls, close };
}
