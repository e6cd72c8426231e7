import { runService } from '@fxdesk/core';
import { buildApp } from './app.js';
import { NotificationConfigSchema } from './config.js';
import { createDeps } from './deps.js';

await runService({
  name: 'notification',
  configSchema: NotificationConfigSchema,
  // On PostgreSQL the service keeps no file, and replicas on one machine may share DATA_DIR.
  ownsDataDir: (config) => config.DATABASE_URL === undefined,
  start: async (config, logger) => {
    const deps = await createDeps(config, logger);
    const { app } = await buildApp({ config, deps });
    app.addHook('onClose', deps.close);
    return app;
  },
});
