import { runService } from '@fxdesk/core';
import { systemClock } from '@fxdesk/primitives';
import { buildApp } from './app.js';
import { StrategyConfigSchema } from './config.js';
import { createDeps } from './deps.js';

await runService({
  name: 'strategy',
  configSchema: StrategyConfigSchema,
  start: async (config, logger) => {
    const deps = createDeps(config, systemClock);
    const app = await buildApp({ config, deps: { ...deps, logger } });
    app.addHook('onClose', deps.close);
    return app;
  },
});
