import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { simulatedTerminalStoreContract } from '@fxdesk/broker/testing';
import type { SqliteStoreDatabase } from '@fxdesk/core';
import { openExecutionFile } from '../src/schema.js';
import { SqliteTerminalStore } from '../src/terminal-store.js';

simulatedTerminalStoreContract('the execution SQLite file', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fxdesk-exec-terminal-'));
  let file: SqliteStoreDatabase | undefined;
  return {
    open: () => {
      file = openExecutionFile(path.join(dir, 'execution.db'));
      return new SqliteTerminalStore(file);
    },
    close: () => {
      void file?.close();
      file = undefined;
    },
    teardown: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
});
