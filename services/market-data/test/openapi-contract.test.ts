import { openApiContractSuite } from '@fxdesk/core/testing';
import { API_KEY, buildTestService, quoteEverySymbol } from './helpers.js';

openApiContractSuite('market-data', {
  build: async () => {
    const service = await buildTestService({ config: { BODY_LIMIT_BYTES: '4096' } });
    // Quotes of every served symbol, so the tick and the stream's replay answer too.
    quoteEverySymbol(service.feed);
    return service.app;
  },
  credentials: { apiKey: API_KEY },
  bodyLimitBytes: 4096,
});
