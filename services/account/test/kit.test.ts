import { errorPathSuite } from '@fxdesk/core/testing';
import { buildTestApp, KEY_HEADER, testConfig } from './helpers.js';

const config = testConfig({ BODY_LIMIT_BYTES: '4096' });

errorPathSuite('account', {
  build: () => buildTestApp(config),
  bodyLimitBytes: 4096,
  kitRouteHeaders: KEY_HEADER,
});
