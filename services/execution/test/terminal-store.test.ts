import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { simulatedTerminalStoreContract } from '@fxdesk/broker/testing';
import { SqliteSignalStore } from '../src/sqlite-store.js';
import { REPLICA_ID } from './helpers.js';

simulatedTerminalStoreContract('the execution SQLite file', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fxdesk-exec-terminal-'));
  let signals: SqliteSignalStore | undefined;
  return {
    open: () => {
      signals = SqliteSignalStore.open(path.join(dir, 'execution.db'), REPLICA_ID);
      return signals.simulatedTerminalStore();
    },
    close: () => {
      void signals?.close();
      signals = undefined;
    },
    teardown: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
});
