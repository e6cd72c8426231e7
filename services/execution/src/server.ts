import { runService, stackService, systemClock } from '@fxdesk/core';
import { buildApp } from './app.js';
import { ExecutionConfigSchema } from './config.js';

await runService({
  name: 'execution',
  configSchema: ExecutionConfigSchema,
  devSecrets: stackService('execution').devSecrets,
  start: (config, logger) => buildApp({ config, deps: { clock: systemClock, logger } }),
});
