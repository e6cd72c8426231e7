import { openApiContractSuite } from '@fxdesk/core/testing';
import { harness } from './helpers.js';

openApiContractSuite('strategy', {
  // Limits high enough that the generated requests reach the routes, not only the 429.
  build: async () => (await harness({ env: { BODY_LIMIT_BYTES: '4096', RATE_LIMIT_GET_PER_MINUTE: '100000', RATE_LIMIT_POST_PER_MINUTE: '100000' } })).app,
  bodyLimitBytes: 4096,
});
