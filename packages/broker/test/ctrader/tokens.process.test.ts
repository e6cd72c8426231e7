import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ManualClock } from '@fxdesk/primitives';
import { afterEach, describe, expect, it } from 'vitest';
import { WEDNESDAY_NOON } from '../fixtures.js';
import { FakeCTraderServer } from './fake-ctrader-server.js';
import { tokenFile } from './token-files.js';

const SCRIPT = fileURLToPath(new URL('./renew-tokens.ts', import.meta.url));
const PACKAGE_DIR = fileURLToPath(new URL('../..', import.meta.url));

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** renew-tokens.ts in its own node process (TypeScript through tsx's loader), once it said `ready`. */
async function startProcess(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', SCRIPT], { cwd: PACKAGE_DIR, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  cleanups.push(() => void child.kill());
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', () => stdout.startsWith('ready\n') && resolve());
    void exited.then((code) => reject(new Error(`renew-tokens.ts exited ${code} before it was ready: ${stderr}`)));
  });
  return {
    go: () => child.stdin.end('go\n'),
    /** The token status it printed, once it exited. */
    result: async () => {
      const code = await exited;
      expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
      return JSON.parse(stdout.split('\n')[1] ?? '') as { ok: boolean; detail: string };
    },
  };
}

describe('cTrader access tokens shared by processes', () => {
  it('two processes renewing one file at the same moment spend the refresh token once, and both hold the new pair', async () => {
    const fake = await FakeCTraderServer.start({ clock: new ManualClock(WEDNESDAY_NOON) });
    cleanups.push(() => fake.close());
    const file = tokenFile();
    fake.isTokenExpired = true;
    const env = { CTRADER_URL: fake.url, CTRADER_TOKEN_FILE: file };
    const processes = await Promise.all([startProcess(env), startProcess(env)]);
    for (const p of processes) p.go();
    const statuses = await Promise.all(processes.map((p) => p.result()));
    expect(statuses.map((s) => s.ok)).toEqual([true, true]);
    expect(fake.messages(2173)).toHaveLength(1);
    const held = new Map(fake.messages(2102).map((m) => [m.connection, m.payload.accessToken]));
    expect([...held.values()]).toEqual(['fake-access-token-r1', 'fake-access-token-r1']);
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toMatchObject({ accessToken: 'fake-access-token-r1', refreshToken: 'fake-refresh-token-r1' });
    expect(fs.readdirSync(path.dirname(file))).toEqual([path.basename(file)]);
  }, 30_000);
});
