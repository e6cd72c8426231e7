import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { envPrefix } from '../scripts/stack-env.js';
import { STACK } from '../scripts/stack.js';
import { freePort, run, until } from '@fxdesk/core/testing';

const root = path.resolve(import.meta.dirname, '..');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fxdesk-readme-'));
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

/** Every curl command of the README's `sh` blocks, in the order a reader meets them (continuation lines joined). */
function readmeCurls(): string[] {
  const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
  const commands: string[] = [];
  for (const [, block] of readme.matchAll(/^```sh\n([\s\S]*?)^```/gm)) {
    const lines = (block ?? '').replace(/\\\n\s*/g, ' ').split('\n');
    commands.push(...lines.filter((line) => line.startsWith('curl ')));
  }
  return commands;
}

describe("the README's examples", () => {
  it('each answer without an error on a fresh npm start, in the order the README gives them', async () => {
    const ports: Record<string, string> = {};
    const byDefault: Record<string, string> = {};
    for (const s of STACK) {
      ports[`${envPrefix(s)}_PORT`] = String(await freePort());
      byDefault[String(s.stackPort)] = ports[`${envPrefix(s)}_PORT`] as string;
    }
    // The market open all week: the README's market order is no weekend example.
    const stack = run('scripts/start.ts', { ...ports, LOG_LEVEL: 'warn', SIM_MARKET_HOURS: 'false', DATA_DIR: path.join(dataDir, 'desk') });
    try {
      await until(() => stack.out.stdout.includes('Ctrl-C stops everything'), 180_000);
      const commands = readmeCurls();
      expect(commands.length).toBeGreaterThanOrEqual(10);
      for (const command of commands) {
        const local = command.replace(/localhost:(\d+)/g, (_match, port: string) => `127.0.0.1:${byDefault[port] ?? port}`);
        // A stream never ends: three seconds of it (curl's timeout, exit 28) must have carried events.
        const isStream = /^curl -N /.test(command);
        const script = local.replace(/^curl /, `curl -sS --fail-with-body --max-time ${isStream ? 3 : 30} `);
        const result = spawnSync('bash', ['-c', script], { encoding: 'utf8', timeout: 60_000 });
        expect({ command, code: result.status, out: result.stdout.slice(0, 300) }).toMatchObject({ command, code: isStream ? 28 : 0 });
        if (isStream) expect(result.stdout).toContain('event:');
      }
    } finally {
      stack.child.kill('SIGINT');
      expect((await stack.done).code).toBe(0);
    }
  }, 360_000);
});
