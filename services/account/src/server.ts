import { runService, stackService, systemClock } from '@fxdesk/core';
import { buildApp } from './app.js';
import { AccountConfigSchema } from './config.js';

await runService({
  name: 'account',
  configSchema: AccountConfigSchema,
  devSecrets: stackService('account').devSecrets,
  start: (config, logger) => buildApp({ config, deps: { clock: systemClock, logger } }),
});
