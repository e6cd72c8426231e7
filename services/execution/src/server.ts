import { runService } from '@fxdesk/core';
import { buildApp } from './app.js';
import { EXECUTION_DEV_SECRETS, ExecutionConfigSchema } from './config.js';
import { createDeps } from './deps.js';

await runService({
  name: 'execution',
  configSchema: ExecutionConfigSchema,
  devSecrets: EXECUTION_DEV_SECRETS,
  // Long enough for a signal in flight to finish or time out and store its outcome before exit:
  // three bounded calls before order_send (symbol_info, tick, order_check), then order_send.
  shutdownTimeoutMs: (config) => 3 * config.PRE_SEND_TIMEOUT_MS + config.ORDER_SEND_TIMEOUT_MS + 5_000,
  start: async (config, logger) => {
    const deps = await createDeps(config, logger);
    const { app } = await buildApp({ config, deps });
    app.addHook('onClose', deps.close);
    return app;
  },
});
