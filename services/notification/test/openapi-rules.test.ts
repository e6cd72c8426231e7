import { openApiRulesSuite } from '@fxdesk/core/testing';
import { API_KEY, startService } from './harness.js';

openApiRulesSuite('notification', {
  build: async () => (await startService()).app,
  headers: { 'x-api-key': API_KEY },
});
