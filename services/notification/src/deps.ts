import { databasePath } from '@fxdesk/core';
import { systemClock, type Clock } from '@fxdesk/primitives';
import type { Logger } from 'pino';
import { logChannelSetup, transportsFromConfig, type Transports } from './channels/index.js';
import type { NotificationConfig } from './config.js';
import { openNotificationStore } from './database-store.js';
import type { NotificationStore } from './store.js';

/** What the notification service runs on. */
export interface NotificationDeps {
  clock: Clock;
  logger?: Logger;
  /** The requests and their delivery records, the outbox's queue included. */
  store: NotificationStore;
  /** Each channel's way out: its provider when its credentials are set, else its sandbox. */
  transports: Transports;
  /** The jitter source of the backoff (Math.random; tests fix it). */
  random: () => number;
  /** Closes the providers' connections and the store (after the app has closed). */
  close: () => Promise<void>;
}

/** The real dependencies: the store and the transports the config asks for, on the system clock. */
export async function createDeps(config: NotificationConfig, logger: Logger): Promise<NotificationDeps> {
  const deps = await openDeps(config, { clock: systemClock, logger });
  logger.info(`notifications in ${config.DATABASE_URL === undefined ? 'SQLite' : 'PostgreSQL'} as replica ${config.REPLICA_ID}`);
  logChannelSetup(config, deps.transports, logger);
  return deps;
}

/** The same dependencies on a given clock (tests: a manual one, and DATA_DIR `:memory:` or a temporary folder). */
export async function openDeps(config: NotificationConfig, { clock, logger }: { clock: Clock; logger?: Logger }): Promise<NotificationDeps> {
  // In PostgreSQL when DATABASE_URL names one (migrated first), else in `<DATA_DIR>/notification.db`.
  const store: NotificationStore = await openNotificationStore({
    databaseUrl: config.DATABASE_URL,
    file: databasePath(config.DATA_DIR, 'notification'),
    replicaId: config.REPLICA_ID,
  });
  const providers = transportsFromConfig(config, () => clock.now(), { memory: store, logger });
  return {
    clock,
    logger,
    store,
    transports: providers.transports,
    random: Math.random,
    close: async () => {
      await providers.close();
      await store.close();
    },
  };
}
