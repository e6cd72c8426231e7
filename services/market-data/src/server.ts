import { SimulatedFeed, SimulatedMarket } from '@fxdesk/broker';
import { runService, stackService, systemClock } from '@fxdesk/core';
import { buildApp } from './app.js';
import { MarketDataConfigSchema } from './config.js';

await runService({
  name: 'market-data',
  configSchema: MarketDataConfigSchema,
  devSecrets: stackService('market-data').devSecrets,
  start: async (config, logger) => {
    const market = new SimulatedMarket({
      seed: config.SIM_SEED,
      tickIntervalMs: config.SIM_TICK_INTERVAL_MS,
      marketHours: config.SIM_MARKET_HOURS,
      clock: systemClock,
    });
    const app = await buildApp({ config, deps: { clock: systemClock, feed: new SimulatedFeed({ market }), logger } });
    app.addHook('onClose', async () => market.stop());
    return app;
  },
});
