import { errorPathSuite } from '@fxdesk/core/testing';
import { ManualClock } from '@fxdesk/primitives';
import { buildApp } from '../src/app.js';
import { SignalStore } from '../src/store.js';
import { createTerminal } from '../src/terminal.js';
import { testConfig } from './helpers.js';

const config = testConfig({ BODY_LIMIT_BYTES: '4096' });

errorPathSuite('execution', {
  build: async () => {
    const clock = new ManualClock();
    const { terminal, calls } = createTerminal(config, clock);
    await terminal.connect();
    const store = SignalStore.open(':memory:');
    const app = await buildApp({ config, deps: { clock, terminal, store, terminalCalls: calls } });
    app.addHook('onClose', async () => store.close());
    return app;
  },
  bodyLimitBytes: 4096,
});
