import { runService } from '@fxdesk/core';
import { systemClock } from '@fxdesk/primitives';
import { buildApp } from './app.js';
import { NotificationConfigSchema } from './config.js';

await runService({
  name: 'notification',
  configSchema: NotificationConfigSchema,
  start: (config, logger) => buildApp({ config, deps: { clock: systemClock, logger } }),
});
