import { databasePath, runService, stackService, systemClock } from '@fxdesk/core';
import { buildApp } from './app.js';
import { ExecutionConfigSchema } from './config.js';
import { failInterruptedSignals, reconcileInterrupted } from './recovery.js';
import { SignalStore } from './store.js';
import { connectTerminal, createTerminal, describeTerminal } from './terminal.js';

await runService({
  name: 'execution',
  configSchema: ExecutionConfigSchema,
  devSecrets: stackService('execution').devSecrets,
  // Long enough for an order_send in flight to time out and store `unknown` before exit.
  shutdownTimeoutMs: (Number(process.env.ORDER_SEND_TIMEOUT_MS) || 15_000) + 5_000,
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
