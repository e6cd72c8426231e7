import { errorPathSuite } from '@fxdesk/core/testing';
import { ManualClock } from '@fxdesk/primitives';
import { buildApp } from '../src/app.js';
import { createDeps } from '../src/deps.js';
import { testConfig } from './helpers.js';

const config = testConfig({ BODY_LIMIT_BYTES: '4096', DATA_DIR: ':memory:' });

errorPathSuite('strategy', {
  build: () => buildApp({ config, deps: createDeps(config, new ManualClock()) }),
  bodyLimitBytes: 4096,
  codeCase: 'upper',
});
