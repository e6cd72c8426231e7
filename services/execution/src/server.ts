import { databasePath, runService } from '@fxdesk/core';
import { systemClock } from '@fxdesk/primitives';
import { buildApp } from './app.js';
import { EXECUTION_DEV_SECRETS, ExecutionConfigSchema } from './config.js';
import { failInterruptedSignals, reconcileInterrupted } from './recovery.js';
import { SignalStore } from './store.js';
import { connectTerminal, createTerminal, describeTerminal } from './terminal.js';

await runService({
  name: 'execution',
  configSchema: ExecutionConfigSchema,
  devSecrets: EXECUTION_DEV_SECRETS,
  // Long enough for a signal in flight to finish or time out and store its outcome before exit:
  // three bounded calls before order_send (symbol_info, tick, order_check), then order_send.
  shutdownTimeoutMs: (config) => 3 * config.PRE_SEND_TIMEOUT_MS + config.ORDER_SEND_TIMEOUT_MS + 5_000,
  start: async (config, logger) => {
    const clock = systemClock;
    // One file holds the signals and the simulated terminal's account.
    const store = SignalStore.open(databasePath(config.DATA_DIR, 'execution'));
    const { terminal, calls } = createTerminal(config, clock, store.simulatedTerminalStore());
    logger.info(`trading on the ${describeTerminal(config)} terminal`);
    await connectTerminal(terminal, logger);
    const interrupted = failInterruptedSignals(store, clock, logger);
    const app = await buildApp({ config, deps: { clock, terminal, store, logger, terminalCalls: calls } });
    app.addHook('onClose', async () => {
      await terminal.close();
      store.close();
    });
    void reconcileInterrupted(interrupted, { terminal, store, clock, logger, magic: config.MAGIC_NUMBER });
    return app;
  },
});
