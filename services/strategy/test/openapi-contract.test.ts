import { openApiContractSuite } from '@fxdesk/core/testing';
import { harness } from './helpers.js';
import { instantRunner } from './lab-jobs.fixture.js';
import { EXAMPLES, LIMITS } from './openapi-contract.fixture.js';

openApiContractSuite('strategy', {
  build: async () => (await harness({ env: LIMITS, labRunner: instantRunner })).app,
  bodyLimitBytes: 4096,
  examples: EXAMPLES,
});
