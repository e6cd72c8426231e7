import { loadConfig } from '@fxdesk/core';
import { errorPathSuite } from '@fxdesk/core/testing';
import { ManualClock } from '@fxdesk/primitives';
import { buildApp } from '../src/app.js';
import { NotificationConfigSchema } from '../src/config.js';

const config = loadConfig(NotificationConfigSchema, { LOG_LEVEL: 'silent', BODY_LIMIT_BYTES: '4096', DATA_DIR: ':memory:' });

errorPathSuite('notification', {
  build: () => buildApp({ config, deps: { clock: new ManualClock() } }),
  bodyLimitBytes: 4096,
});
