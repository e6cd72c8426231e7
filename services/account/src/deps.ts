import type { AccountReader } from '@fxdesk/broker';
import { databasePath } from '@fxdesk/core';
import { systemClock, type Clock } from '@fxdesk/primitives';
import type { Logger } from 'pino';
import { createAccountReader, describeBroker } from './broker.js';
import type { AccountConfig } from './config.js';
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

/** The real dependencies: the account BROKER names and `<DATA_DIR>/account.db`, on the system clock. */
export async function createDeps(config: AccountConfig, logger: Logger): Promise<AccountDeps> {
  logger.info(`reading the ${describeBroker(config)} account`);
  return openDeps(config, { clock: systemClock, logger, databaseFile: databasePath(config.DATA_DIR, 'account') });
}

/** The same dependencies on a given clock and database file (tests: a manual clock and `:memory:`). */
export function openDeps(config: AccountConfig, { clock, logger, databaseFile }: { clock: Clock; logger?: Logger; databaseFile: string }): AccountDeps {
  const broker = createAccountReader(config, clock);
  const store = new SqliteSnapshotStore(databaseFile, config.SNAPSHOT_RETENTION);
  return {
    clock,
    broker,
    store,
    logger,
    close: async () => {
      await broker.close();
      store.close();
    },
  };
}
