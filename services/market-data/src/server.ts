import { runService } from '@fxdesk/core';
import { systemClock } from '@fxdesk/primitives';
import { buildApp } from './app.js';
import { createQuoteFeed, describeBroker } from './broker.js';
import { MARKET_DATA_DEV_SECRETS, MarketDataConfigSchema } from './config.js';

await runService({
  name: 'market-data',
  configSchema: MarketDataConfigSchema,
  // Keeps nothing on disk: quotes live in memory.
  ownsDataDir: false,
  devSecrets: MARKET_DATA_DEV_SECRETS,
  start: async (config, logger) => {
    logger.info(`quotes from ${describeBroker(config)}`);
    const { feed, stop } = createQuoteFeed(config, systemClock);
    const app = await buildApp({ config, deps: { clock: systemClock, feed, logger } });
    app.addHook('onClose', async () => stop());
    return app;
  },
});
