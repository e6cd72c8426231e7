import { openApiContractSuite } from '@fxdesk/core/testing';
import { ManualClock } from '@fxdesk/primitives';
import { buildApp } from '../src/app.js';
import { createAccountReader } from '../src/broker.js';
import { SqliteSnapshotStore } from '../src/store.js';
import { KEY_HEADER, TEST_KEY, testConfig } from './helpers.js';

const config = testConfig({ BODY_LIMIT_BYTES: '4096' });

openApiContractSuite('account', {
  build: () => {
    const clock = new ManualClock();
    return buildApp({ config, deps: { clock, broker: createAccountReader(config, clock), store: new SqliteSnapshotStore(':memory:') } });
  },
  credentials: { internalApiKey: TEST_KEY },
  kitRouteHeaders: KEY_HEADER,
  bodyLimitBytes: 4096,
});
