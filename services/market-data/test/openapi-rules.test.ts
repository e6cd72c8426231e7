import { openApiRulesSuite } from '@fxdesk/core/testing';
import { auth, buildTestService, quoteEverySymbol } from './helpers.js';

const CANDLES = 'GET /v1/market-data/candles';

openApiRulesSuite('market-data', {
  build: async () => {
    const service = await buildTestService();
    quoteEverySymbol(service.feed);
    return service.app;
  },
  headers: auth,
  described: [
    {
      request: { what: 'with to and no from', operation: CANDLES, query: { symbol: 'EURUSD', to: '2026-01-05T00:00:00Z' } },
      parameter: 'to',
      says: /only with `from`.*invalid_range/i,
    },
  ],
  accept: [
    { what: 'with from and to', operation: CANDLES, query: { symbol: 'EURUSD', from: '2026-01-02T00:00:00Z', to: '2026-01-05T00:00:00Z' } },
    { what: 'with from alone', operation: CANDLES, query: { symbol: 'EURUSD', from: '2026-01-05T00:00:00Z' } },
    { what: 'with neither', operation: CANDLES, query: { symbol: 'EURUSD', count: '10' } },
  ],
});
