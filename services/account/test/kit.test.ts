import { loadConfig, ManualClock } from '@fxdesk/core';
import { errorPathSuite } from '@fxdesk/core/testing';
import { buildApp } from '../src/app.js';
import { AccountConfigSchema } from '../src/config.js';

const config = loadConfig(AccountConfigSchema, { INTERNAL_API_KEY: 'test-account-key', LOG_LEVEL: 'silent', BODY_LIMIT_BYTES: '4096' });

errorPathSuite('account', {
  build: () => buildApp({ config, deps: { clock: new ManualClock() } }),
  bodyLimitBytes: 4096,
});
