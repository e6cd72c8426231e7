import { openApiContractSuite } from '@fxdesk/core/testing';
import { harness } from './helpers.js';

// Limits high enough that the generated requests reach the routes, not only the 429.
const LIMITS = { BODY_LIMIT_BYTES: '4096', RATE_LIMIT_GET_PER_MINUTE: '100000', RATE_LIMIT_POST_PER_MINUTE: '100000', CONSOLE_LOGIN_PER_MINUTE: '1000' };

openApiContractSuite('strategy', {
  build: async () => (await harness({ env: LIMITS })).app,
  bodyLimitBytes: 4096,
});

// With a login required, the console's routes answer their documented 401s and 403s (spec 000's are unchanged).
openApiContractSuite('strategy with CONSOLE_PASSWORD', {
  build: async () => (await harness({ env: { ...LIMITS, CONSOLE_PASSWORD: 'correct horse battery staple' } })).app,
  bodyLimitBytes: 4096,
});
