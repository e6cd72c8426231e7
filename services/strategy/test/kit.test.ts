import { loadConfig, ManualClock } from '@fxdesk/core';
import { errorPathSuite } from '@fxdesk/core/testing';
import { buildApp } from '../src/app.js';
import { StrategyConfigSchema } from '../src/config.js';

const config = loadConfig(StrategyConfigSchema, { LOG_LEVEL: 'silent', BODY_LIMIT_BYTES: '4096' });

errorPathSuite('strategy', {
  build: () => buildApp({ config, deps: { clock: new ManualClock() } }),
  bodyLimitBytes: 4096, codeCase: 'upper',
});
