import { runService } from '@fxdesk/core';
import { buildApp } from './app.js';
import { StrategyConfigSchema } from './config.js';
import { createDeps } from './deps.js';

await runService({
  name: 'strategy',
  configSchema: StrategyConfigSchema,
  // `--reset` forgets the markers of both files: the signals' and the lab's.
  databases: ['strategy', 'lab'],
  start: async (config, logger) => {
    const deps = await createDeps(config, logger);
    const { app } = await buildApp({ config, deps });
    app.addHook('onClose', deps.close);
    return app;
  },
});
