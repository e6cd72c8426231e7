import { openApiContractSuite } from '@fxdesk/core/testing';
import { API_KEY, startService } from './harness.js';

openApiContractSuite('notification', {
  build: async () => (await startService({ BODY_LIMIT_BYTES: '4096' })).app,
  credentials: { apiKey: API_KEY, bearer: API_KEY },
  bodyLimitBytes: 4096,
});
