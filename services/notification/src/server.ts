import { runService } from '@fxdesk/core';
import { buildApp } from './app.js';
import { NotificationConfigSchema } from './config.js';
import { createDeps } from './deps.js';

await runService({
  name: 'notification',
  configSchema: NotificationConfigSchema,
  start: async (config, logger) => {
    const deps = await createDeps(config, logger);
    const { app } = await buildApp({ config, deps });
    app.addHook('onClose', deps.close);
    return app;
  },
});
