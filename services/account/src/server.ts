import { runService } from '@fxdesk/core';
import { buildApp } from './app.js';
import { ACCOUNT_DEV_SECRETS, AccountConfigSchema } from './config.js';
import { createDeps } from './deps.js';

await runService({
  name: 'account',
  configSchema: AccountConfigSchema,
  devSecrets: ACCOUNT_DEV_SECRETS,
  // On PostgreSQL the service keeps no file, so replicas may share one DATA_DIR.
  ownsDataDir: (config) => config.DATABASE_URL === undefined,
  start: async (config, logger) => {
    const deps = await createDeps(config, logger);
    const { app } = await buildApp({ config, deps });
    app.addHook('onClose', deps.close);
    return app;
  },
});
