import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { simulatedTerminalStoreContract } from '@fxdesk/broker/testing';
import { SignalStore } from '../src/store.js';

simulatedTerminalStoreContract('the execution SQLite file', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fxdesk-exec-terminal-'));
  let signals: SignalStore | undefined;
  return {
    open: () => {
      signals = SignalStore.open(path.join(dir, 'execution.db'));
      return signals.simulatedTerminalStore();
    },
    close: () => {
      signals?.close();
      signals = undefined;
    },
    teardown: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
});
