import { runService } from '@fxdesk/core';
import { buildApp } from './app.js';
import { EXECUTION_DEV_SECRETS, ExecutionConfigSchema } from './config.js';
import { createDeps } from './deps.js';
import { claimLeaseMs } from './pipeline.js';

await runService({
  name: 'execution',
  configSchema: ExecutionConfigSchema,
  devSecrets: EXECUTION_DEV_SECRETS,
  // Long enough for a signal in flight to finish or time out and store its outcome before exit.
  shutdownTimeoutMs: claimLeaseMs,
  start: async (config, logger) => {
    const deps = await createDeps(config, logger);
    const { app } = await buildApp({ config, deps });
    app.addHook('onClose', deps.close);
    return app;
  },
});
