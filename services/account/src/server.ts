import { databasePath, runService } from '@fxdesk/core';
import { systemClock } from '@fxdesk/primitives';
import { buildApp } from './app.js';
import { createAccountReader, describeBroker } from './broker.js';
import { ACCOUNT_DEV_SECRETS, AccountConfigSchema } from './config.js';
import { SqliteSnapshotStore } from './store.js';

await runService({
  name: 'account',
  configSchema: AccountConfigSchema,
  devSecrets: ACCOUNT_DEV_SECRETS,
  start: (config, logger) => {
    logger.info(`reading the ${describeBroker(config)} account`);
    return buildApp({
      config,
      deps: {
        clock: systemClock,
        logger,
        broker: createAccountReader(config, systemClock),
        store: new SqliteSnapshotStore(databasePath(config.DATA_DIR, 'account'), config.SNAPSHOT_RETENTION),
      },
    });
  },
});
