import { runService, stackService } from '@fxdesk/core';
import { systemClock } from '@fxdesk/primitives';
import { buildApp } from './app.js';
import { NotificationConfigSchema } from './config.js';

await runService({
  name: 'notification',
  configSchema: NotificationConfigSchema,
  devSecrets: stackService('notification').devSecrets,
  start: (config, logger) => buildApp({ config, deps: { clock: systemClock, logger } }),
});
