import type { AccountReader } from '@fxdesk/broker';
import { databasePath, openStoreDatabase, type Database } from '@fxdesk/core';
import { systemClock, type Clock } from '@fxdesk/primitives';
import type { Logger } from 'pino';
import { createAccountReader, describeBroker } from './broker.js';
import type { AccountConfig } from './config.js';
import { SNAPSHOT_SCHEMA, SnapshotStore } from './store.js';

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

/** The snapshots' database, migrated: PostgreSQL when DATABASE_URL names one, else `<DATA_DIR>/account.db`. */
export function openSnapshotDatabase(config: AccountConfig): Promise<Database> {
  return openStoreDatabase({ databaseUrl: config.DATABASE_URL, file: databasePath(config.DATA_DIR, 'account'), schema: SNAPSHOT_SCHEMA });
}

/** The real dependencies: the account BROKER names and the snapshot store, on the system clock. */
export async function createDeps(config: AccountConfig, logger: Logger): Promise<AccountDeps> {
  const db = await openSnapshotDatabase(config);
  logger.info(`reading the ${describeBroker(config)} account; snapshots in ${db.dialect.engine}`);
  return openDeps(config, { clock: systemClock, logger, store: new SnapshotStore(db, config.SNAPSHOT_RETENTION) });
}

/** The same dependencies on a given clock and snapshot store (tests: a manual clock and a private database). */
export function openDeps(config: AccountConfig, { clock, logger, store }: { clock: Clock; logger?: Logger; store: SnapshotStore }): AccountDeps {
  const broker = createAccountReader(config, clock);
  return {
    clock,
    broker: broker.reader,
    store,
    logger,
    close: async () => {
      await broker.close();
      await store.close();
    },
  };
}
