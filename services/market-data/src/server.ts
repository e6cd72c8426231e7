import { runService, stackService } from '@fxdesk/core';
import { systemClock } from '@fxdesk/primitives';
import { buildApp } from './app.js';
import { createQuoteFeed, describeBroker } from './broker.js';
import { MarketDataConfigSchema } from './config.js';

await runService({
  name: 'market-data',
  configSchema: MarketDataConfigSchema,
  // Keeps nothing on disk: quotes live in memory.
  ownsDataDir: false,
  devSecrets: stackService('market-data').devSecrets,
  start: async (config, logger) => {
    logger.info(`quotes from ${describeBroker(config)}`);
    const { feed, stop } = createQuoteFeed(config, systemClock);
    const app = await buildApp({ config, deps: { clock: systemClock, feed, logger } });
    app.addHook('onClose', async () => stop());
    return app;
  },
});
