import { openApiContractSuite } from '@fxdesk/core/testing';
import { harness } from './helpers.js';
import { instantRunner } from './lab-jobs.fixture.js';
import { EXAMPLES, LIMITS } from './openapi-contract.fixture.js';

// With a login required, the console's routes answer their documented 401s and 403s (spec 000's are unchanged).
openApiContractSuite('strategy with CONSOLE_PASSWORD', {
  build: async () => (await harness({ env: { ...LIMITS, CONSOLE_PASSWORD: 'correct horse battery staple' }, labRunner: instantRunner })).app,
  bodyLimitBytes: 4096,
  examples: EXAMPLES,
});
