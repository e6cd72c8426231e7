import type { AccountReader } from '@fxdesk/broker';
import { databasePath } from '@fxdesk/core';
import { systemClock, type Clock } from '@fxdesk/primitives';
import type { Logger } from 'pino';
import { createAccountReader, describeBroker } from './broker.js';
import type { AccountConfig } from './config.js';
import { PostgresSnapshotStore } from './postgres-store.js';
import { SqliteSnapshotStore, type SnapshotStore } from './store.js';

/** What the account service runs on. */
export interface AccountDeps {
  clock: Clock;
  /** The broker account the service reads. */
  broker: AccountReader;
  /** Where summary and details reads are persisted. */
  store: SnapshotStore;
  logger?: Logger;
  /** Closes the broker and the store. */
  close: () => Promise<void>;
}

/** The snapshot store: PostgreSQL when DATABASE_URL names one, else `<DATA_DIR>/account.db`. */
export async function openSnapshotStore(config: AccountConfig): Promise<SnapshotStore> {
  if (config.DATABASE_URL !== undefined) return PostgresSnapshotStore.open(config.DATABASE_URL, config.SNAPSHOT_RETENTION);
  return new SqliteSnapshotStore(databasePath(config.DATA_DIR, 'account'), config.SNAPSHOT_RETENTION);
}

/** The real dependencies: the account BROKER names and the snapshot store, on the system clock. */
export async function createDeps(config: AccountConfig, logger: Logger): Promise<AccountDeps> {
  logger.info(`reading the ${describeBroker(config)} account; snapshots in ${config.DATABASE_URL === undefined ? 'SQLite' : 'PostgreSQL'}`);
  return openDeps(config, { clock: systemClock, logger, store: await openSnapshotStore(config) });
}

/** The same dependencies on a given clock and snapshot store (tests: a manual clock and a private database). */
export function openDeps(config: AccountConfig, { clock, logger, store }: { clock: Clock; logger?: Logger; store: SnapshotStore }): AccountDeps {
  const broker = createAccountReader(config, clock);
  return {
    clock,
    broker,
    store,
    logger,
    close: async () => {
      await broker.close();
      await store.close();
    },
  };
}
