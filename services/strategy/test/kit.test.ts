import { createLogger } from '@fxdesk/core';
import { errorPathSuite } from '@fxdesk/core/testing';
import { buildApp } from '../src/app.js';
import { createDeps } from '../src/deps.js';
import { testConfig } from './helpers.js';

const config = testConfig({ BODY_LIMIT_BYTES: '4096', DATA_DIR: ':memory:' });

errorPathSuite('strategy', {
  // Built as server.ts builds it, from the real deps of the config.
  build: async () => {
    const deps = await createDeps(config, createLogger({ name: 'strategy', level: 'silent' }));
    const { app } = await buildApp({ config, deps });
    app.addHook('onClose', deps.close);
    return app;
  },
  bodyLimitBytes: 4096,
  codeCase: 'upper',
});
