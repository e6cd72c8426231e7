import { openApiContractSuite } from '@fxdesk/core/testing';
import { buildTestApp, KEY_HEADER, TEST_KEY, testConfig } from './helpers.js';

const config = testConfig({ BODY_LIMIT_BYTES: '4096' });

openApiContractSuite('account', {
  build: () => buildTestApp(config),
  credentials: { internalApiKey: TEST_KEY },
  kitRouteHeaders: KEY_HEADER,
  bodyLimitBytes: 4096,
});
