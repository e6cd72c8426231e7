import { marketDataCalls } from '@fxdesk/client';
import { expectClientMatchesDocument } from '@fxdesk/core/testing';
import { describe, it } from 'vitest';
import { auth, buildTestService } from './helpers.js';

describe('@fxdesk/client MarketDataClient', () => {
  it("checks each answer with the schema the service's OpenAPI document names for it", async () => {
    const { app } = await buildTestService();
    await expectClientMatchesDocument(app, marketDataCalls, auth);
    await app.close();
  });
});
