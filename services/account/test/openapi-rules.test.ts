import { openApiRulesSuite } from '@fxdesk/core/testing';
import { buildTestApp, KEY_HEADER, testConfig } from './helpers.js';

openApiRulesSuite('account', {
  build: () => buildTestApp(testConfig()),
  kitRouteHeaders: KEY_HEADER,
  headers: KEY_HEADER,
  reject: [{ what: 'with a sinceTransactionId that is not a number', operation: 'GET /api/v1/account/changes', query: { sinceTransactionId: '12a' } }],
  accept: [{ what: 'with a numeric sinceTransactionId', operation: 'GET /api/v1/account/changes', query: { sinceTransactionId: '6358' } }],
});
