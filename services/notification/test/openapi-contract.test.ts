import { openApiContractSuite } from '@fxdesk/core/testing';
import { API_KEY, startService } from './harness.js';

openApiContractSuite('notification', {
  build: async () => (await startService({ BODY_LIMIT_BYTES: '4096' })).app,
  credentials: { apiKey: API_KEY, bearer: API_KEY },
  bodyLimitBytes: 4096,
  looseQuery: {
    'GET /webhooks/messenger_app': 'the platform may add parameters of its own to the hub.* ones',
    'POST /webhooks/sms': 'the StatusCallback URL is ours, but Twilio signs the URL it calls, whatever it carries',
  },
});
