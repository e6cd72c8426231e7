import { errorPathSuite } from '@fxdesk/core/testing';
import { ManualClock } from '@fxdesk/primitives';
import { createTerminal } from '../src/terminal.js';
import { appOn, testConfig, sqliteStore } from './helpers.js';

const config = testConfig({ BODY_LIMIT_BYTES: '4096' });

errorPathSuite('execution', {
  build: async () => {
    const clock = new ManualClock();
    const { terminal, calls } = createTerminal(config, clock);
    await terminal.connect();
    return appOn(config, { clock, terminal, store: sqliteStore(), terminalCalls: calls });
  },
  bodyLimitBytes: 4096,
});
