import { loadConfig, ManualClock } from '@fxdesk/core';
import { errorPathSuite } from '@fxdesk/core/testing';
import { buildApp } from '../src/app.js';
import { ExecutionConfigSchema } from '../src/config.js';

const config = loadConfig(ExecutionConfigSchema, { API_KEY: 'test-execution-key', LOG_LEVEL: 'silent', BODY_LIMIT_BYTES: '4096' });

errorPathSuite('execution', {
  build: () => buildApp({ config, deps: { clock: new ManualClock() } }),
  bodyLimitBytes: 4096,
});
