import { runService } from '@fxdesk/core';
import { buildApp } from './app.js';
import { MARKET_DATA_DEV_SECRETS, MarketDataConfigSchema } from './config.js';
import { createDeps } from './deps.js';

await runService({
  name: 'market-data',
  configSchema: MarketDataConfigSchema,
  devSecrets: MARKET_DATA_DEV_SECRETS,
  // Keeps nothing on disk: quotes live in memory.
  ownsDataDir: false,
  start: async (config, logger) => {
    const deps = await createDeps(config, logger);
    const { app } = await buildApp({ config, deps });
    app.addHook('onClose', deps.close);
    return app;
  },
});
