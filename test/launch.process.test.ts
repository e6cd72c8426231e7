import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envPrefix } from '../scripts/stack-env.js';
import { STACK, stackService, type StackService } from '../scripts/stack.js';
import { DEV_SECRETS } from './services.js';
import { answers, freePort, run as runEntry, until } from '@fxdesk/core/testing';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fxdesk-proc-'));
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

const run = (entry: string, env: Record<string, string>) => runEntry(entry, { DATA_DIR: dataDir, ...env });

// Each starts a real process through tsx: seconds on a busy machine, past vitest's 5 s default.
// Each fails at its configuration, before it takes a port or the DATA_DIR lock: they start side by side.
describe('a service started with a bad setting', { timeout: 30_000, concurrent: true }, () => {
  for (const service of STACK) {
    it(`${service.name} exits 1 with one line naming PORT`, async () => {
      const result = await run(`services/${service.name}/src/server.ts`, { PORT: 'abc' }).done;
      expect(result.code).toBe(1);
      const lines = result.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(new RegExp(`^${service.name}: invalid configuration: PORT: `));
    });
  }

  for (const service of STACK.filter((s) => DEV_SECRETS[s.name] !== undefined)) {
    it(`${service.name} refuses to start in production without its key`, async () => {
      const result = await run(`services/${service.name}/src/server.ts`, { NODE_ENV: 'production', PORT: '0' }).done;
      expect(result.code).toBe(1);
      for (const key of Object.keys(DEV_SECRETS[service.name] ?? {})) expect(result.stderr).toContain(`${key}: is required when NODE_ENV=production`);
    });
  }
});

describe('npm start (scripts/start.ts)', () => {
  it('refuses a desk whose real orders would be decided on simulated prices, in one line, starting nothing', async () => {
    const result = await run('scripts/start.ts', { EXECUTION_BROKER: 'metaapi', METAAPI_TOKEN: 'token', METAAPI_ACCOUNT_ID: 'account' }).done;
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual([
      'fxdesk: refusing to start: EXECUTION_BROKER=metaapi sends real orders whose stops and targets come from simulated prices (MARKET_DATA_BROKER=simulated); set VENUE alone to trade one account, or ALLOW_MIXED_VENUES=true if you mean it',
    ]);
    expect(result.stdout).not.toMatch(/execution|market-data/);
  }, 30_000);

  // One desk serves the tests below in their order, from its start to its Ctrl-C and a restart on
  // its DATA_DIR: each start of the five services takes seconds of CI, so they share it.
  describe('one desk on a fresh DATA_DIR, from its start to its Ctrl-C and a restart', () => {
    let ports: Record<string, string> = {};
    let env: Record<string, string> = {};
    let desk: ReturnType<typeof run>;
    const base = (s: StackService) => `http://127.0.0.1:${ports[`${envPrefix(s)}_PORT`]}`;
    // The account service keys its API pages and metrics like every other non-health route (spec 001 B).
    const headersOf = (s: StackService): Record<string, string> => (s.name === 'account' ? { 'x-internal-api-key': 'dev-account-key' } : {});

    beforeAll(async () => {
      ports = await stackPorts();
      env = { ...ports, LOG_LEVEL: 'info', DATA_DIR: fs.mkdtempSync(path.join(dataDir, 'desk-')) };
      desk = run('scripts/start.ts', env);
      await until(() => desk.out.stdout.includes('fxdesk is up'), 40_000);
      await until(() => desk.out.stdout.includes('Ctrl-C stops everything'), 180_000);
    }, 240_000);

    afterAll(async () => {
      if (desk?.child.exitCode === null) desk.child.kill('SIGINT');
      await desk?.done;
    });

    it('brings all five services up, saying up only once every service is ready, each answering health, docs and metrics', async () => {
      const { stdout } = desk.out;
      // Up only once every service is ready (a "still starting" line may come before it on a busy machine).
      expect(stdout.slice(stdout.indexOf('fxdesk is up'))).not.toContain('not answering yet');
      for (const s of STACK) {
        expect((await fetch(`${base(s)}/health/ready`, { headers: headersOf(s) })).status, s.name).toBe(200);
        expect((await fetch(`${base(s)}/health/live`)).status).toBe(200);
        expect((await fetch(`${base(s)}/docs/json`, { headers: headersOf(s) })).status).toBe(200);
        expect(await (await fetch(`${base(s)}/metrics`, { headers: headersOf(s) })).text()).toContain('fxdesk_http_requests_total');
      }
      expect(stdout).toContain('EXECUTION_API_KEY=dev-execution-key');
    });

    it('then says what the strategy does', () => {
      expect(desk.out.stdout).toMatch(/^strategy: running on EUR_USD, .*, sending orders to the execution service/m);
    });

    // The desk's own processes are the first ones. market-data keeps nothing on disk, so it holds no lock.
    describe('a second process of a service on the same DATA_DIR', { concurrent: true }, () => {
      for (const service of STACK.filter((s) => s.name !== 'market-data')) {
        it(`${service.name} refuses to start with one line while the first one runs`, async () => {
          const second = await runEntry(`services/${service.name}/src/server.ts`, { DATA_DIR: env.DATA_DIR as string, PORT: String(await freePort()) }).done;
          expect(second.code).toBe(1);
          const lines = second.stderr.trim().split('\n');
          expect(lines).toHaveLength(1);
          expect(lines[0]).toBe(
            `${service.name}: another process holds ${path.join(env.DATA_DIR as string, `${service.name}.lock`)}: one process per service and DATA_DIR; stop it, or give this one its own DATA_DIR`,
          );
          expect(await answers(`${base(service)}/health/live`)).toBe(true);
        }, 60_000);
      }
    });

    it('trades out of the box: a pair shows live indicators within a minute', async () => {
      const strategy = base(stackService('strategy'));
      let pair: { supertrend: unknown; stochrsi: unknown; current_price: unknown } | undefined;
      await until(async () => {
        // Under the strategy's 60 GETs a minute.
        await new Promise((resolve) => setTimeout(resolve, 1500));
        const body = (await (await fetch(`${strategy}/pairs`)).json()) as { pairs: (typeof pair)[] };
        pair = body.pairs.find((p) => p?.supertrend !== null && p?.stochrsi !== null && p?.current_price !== null);
        return pair !== undefined;
      }, 60_000);
      expect(pair).toMatchObject({
        supertrend: { direction: expect.any(Number), value: expect.any(Number) },
        stochrsi: { k: expect.any(Number), d: expect.any(Number) },
      });
    }, 120_000);

    it('stops them all on Ctrl-C, the strategy stopped before (POST /stop), with no warning from start to Ctrl-C', async () => {
      const strategy = base(stackService('strategy'));
      expect((await fetch(`${strategy}/stop`, { method: 'POST' })).status).toBe(200);
      // The stop's status record reads the account service, and a read cut by the Ctrl-C is a
      // warning: /status shares that read, so once it answers the desk is idle.
      expect(((await (await fetch(`${strategy}/status`)).json()) as { running: boolean }).running).toBe(false);
      const before = { stdout: desk.out.stdout.length, stderr: desk.out.stderr.length };
      desk.child.kill('SIGINT');
      const result = await desk.done;
      expect(result.code).toBe(0);
      // Everything the desk logged, its start and its Ctrl-C: neighbours starting together and a
      // shutdown are no failures, and the development desk has nothing to warn about.
      expect(before.stdout).toBeGreaterThan(0);
      expect(result.stdout + result.stderr).not.toMatch(/ (WARN|ERROR|FATAL) /);
    }, 60_000);

    it('after the stop and a restart, says that the strategy is stopped and why', async () => {
      const second = run('scripts/start.ts', { ...env, LOG_LEVEL: 'warn' });
      try {
        await until(() => second.out.stdout.includes('Ctrl-C stops everything'), 180_000);
        expect(second.out.stdout).not.toContain('starts by itself');
        expect(second.out.stdout).toMatch(/^strategy: not running: stopped at \S+ \(POST \/stop, or Stop on the console\); .*POST \/start/m);
      } finally {
        second.child.kill('SIGINT');
        expect((await second.done).code).toBe(0);
      }
    }, 240_000);
  });

  it('stops the stack with a non-zero exit when a service dies', async () => {
    const ports = await stackPorts();
    // Only the strategy service reads TIMEFRAME, so only it fails to start.
    const result = await run('scripts/start.ts', { ...ports, TIMEFRAME: 'W9' }).done;
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/strategy.*TIMEFRAME/);
    expect(result.stderr).toMatch(/strategy\s+\| exited \(code 1\); stopping the stack/);
  }, 60_000);
});

/** A free port for each service, in the `<SERVICE>_PORT` settings npm start reads. */
async function stackPorts(): Promise<Record<string, string>> {
  const ports: Record<string, string> = {};
  for (const s of STACK) ports[`${envPrefix(s)}_PORT`] = String(await freePort());
  return ports;
}
