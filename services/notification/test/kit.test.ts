import { errorPathSuite } from '@fxdesk/core/testing';
import { buildTestService } from './harness.js';

errorPathSuite('notification', {
  build: async () => (await buildTestService({ BODY_LIMIT_BYTES: '4096', NOTIFICATION_API_KEY: undefined })).app,
  bodyLimitBytes: 4096,
});
