import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A token file's path in a folder not made yet (`data`, in a temporary one removed after each test). */
export function tokenFile(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fxdesk-ctrader-'));
  dirs.push(dir);
  return path.join(dir, 'data', 'ctrader-tokens.json');
}
