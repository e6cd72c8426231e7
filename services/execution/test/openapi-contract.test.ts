import { openApiContractSuite } from '@fxdesk/core/testing';
import { API_KEY, signal, simulatedApp } from './helpers.js';

const market = signal();

openApiContractSuite('execution', {
  build: async () => (await simulatedApp({ env: { BODY_LIMIT_BYTES: '4096' } })).app,
  credentials: { apiKey: API_KEY },
  bodyLimitBytes: 4096,
  examples: {
    // Valid by the rules across fields as well: placed once, then replayed.
    'POST /v1/signals': [{ body: market }, { body: signal({ execution_type: 'limit', entry_price: '1.0000', direction: 'buy' }) }],
    'GET /v1/signals/{signal_id}': [{ path: { signal_id: market.signal_id as string } }],
  },
});
