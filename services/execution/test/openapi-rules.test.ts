import { openApiRulesSuite } from '@fxdesk/core/testing';
import { API_KEY, signal, simulatedApp } from './helpers.js';

const SIGNALS = 'POST /v1/signals';

openApiRulesSuite('execution', {
  build: async () => (await simulatedApp({})).app,
  headers: { 'x-api-key': API_KEY },
  sampled: [SIGNALS],
  reject: [
    { what: 'with stop_loss and stop_loss_distance', operation: SIGNALS, body: signal({ stop_loss: '1.0000', stop_loss_distance: '0.0020' }) },
    { what: 'with take_profit and take_profit_distance', operation: SIGNALS, body: signal({ take_profit: '1.2000', take_profit_distance: '0.0020' }) },
    { what: 'limit without entry_price', operation: SIGNALS, body: signal({ execution_type: 'limit' }) },
    { what: 'stop without entry_price', operation: SIGNALS, body: signal({ execution_type: 'stop' }) },
    { what: 'market with entry_price', operation: SIGNALS, body: signal({ entry_price: '1.0800' }) },
    { what: 'with volume 0', operation: SIGNALS, body: signal({ volume: '0' }) },
    { what: 'with volume 0.00', operation: SIGNALS, body: signal({ volume: '0.00' }) },
    { what: 'with a stop_loss_distance of 0.0', operation: SIGNALS, body: signal({ stop_loss_distance: '0.0' }) },
  ],
  accept: [
    { what: 'market without entry_price', operation: SIGNALS, body: signal() },
    { what: 'limit with entry_price', operation: SIGNALS, body: signal({ execution_type: 'limit', entry_price: '1.0000' }) },
    { what: 'stop with entry_price', operation: SIGNALS, body: signal({ execution_type: 'stop', entry_price: '1.5000' }) },
    { what: 'with stop_loss_distance and take_profit', operation: SIGNALS, body: signal({ stop_loss_distance: '0.0020', take_profit: '1.5000' }) },
    { what: 'with volume 0.01', operation: SIGNALS, body: signal({ volume: '0.01' }) },
  ],
});
