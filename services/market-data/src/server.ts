import { runService } from '@fxdesk/core';
import { buildApp } from './app.js';
import { MARKET_DATA_DEV_SECRETS, MarketDataConfigSchema } from './config.js';
import { createDeps } from './deps.js';

await runService({
  name: 'market-data',
  configSchema: MarketDataConfigSchema,
  devSecrets: MARKET_DATA_DEV_SECRETS,
  // Quotes live in memory. The one file, the cTrader token pair, needs no lock: a process
  // takes the pair another one of the same account saved instead of spending its own.
  ownsDataDir: false,
  start: async (config, logger) => {
    const deps = await createDeps(config, logger);
    const { app } = await buildApp({ config, deps });
    app.addHook('onClose', deps.close);
    return app;
  },
});
