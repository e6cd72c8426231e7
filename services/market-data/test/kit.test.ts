import { errorPathSuite } from '@fxdesk/core/testing';
import { ManualClock } from '@fxdesk/primitives';
import { buildOn, fakeDeps, testConfig } from './helpers.js';

errorPathSuite('market-data', {
  build: async () => (await buildOn(testConfig({ BODY_LIMIT_BYTES: '4096' }), fakeDeps(new ManualClock()))).app,
  bodyLimitBytes: 4096,
});
