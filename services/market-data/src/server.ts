import { runService, stackService, systemClock } from '@fxdesk/core';
import { buildApp } from './app.js';
import { MarketDataConfigSchema } from './config.js';

await runService({
  name: 'market-data',
  configSchema: MarketDataConfigSchema,
  devSecrets: stackService('market-data').devSecrets,
  start: (config, logger) => buildApp({ config, deps: { clock: systemClock, logger } }),
});
