import { runService, stackService, systemClock } from '@fxdesk/core';
import { buildApp } from './app.js';
import { StrategyConfigSchema } from './config.js';

await runService({
  name: 'strategy',
  configSchema: StrategyConfigSchema,
  devSecrets: stackService('strategy').devSecrets,
  start: (config, logger) => buildApp({ config, deps: { clock: systemClock, logger } }),
});
