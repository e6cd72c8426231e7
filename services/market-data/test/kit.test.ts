import { loadConfig, ManualClock } from '@fxdesk/core';
import { errorPathSuite } from '@fxdesk/core/testing';
import { buildApp } from '../src/app.js';
import { MarketDataConfigSchema } from '../src/config.js';

const config = loadConfig(MarketDataConfigSchema, { API_KEY: 'test-market-data-key', LOG_LEVEL: 'silent', BODY_LIMIT_BYTES: '4096' });

errorPathSuite('market-data', {
  build: () => buildApp({ config, deps: { clock: new ManualClock() } }),
  bodyLimitBytes: 4096,
});
