import { accountCalls } from '@fxdesk/client';
import { expectClientMatchesDocument } from '@fxdesk/core/testing';
import { describe, it } from 'vitest';
import { buildTestApp, KEY_HEADER, testConfig } from './helpers.js';

describe('@fxdesk/client AccountClient', () => {
  it("checks each answer with the schema the service's OpenAPI document names for it", async () => {
    const app = await buildTestApp(testConfig());
    await expectClientMatchesDocument(app, accountCalls, KEY_HEADER);
    await app.close();
  });
});
