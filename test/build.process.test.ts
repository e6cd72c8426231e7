import fs from 'node:fs';
import { isBuiltin } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildServices, serviceEntries, type BuiltService } from '../scripts/build-services.js';
import { answers, freePort, root, runNode, until } from '@fxdesk/core/testing';
import { columnsOf } from '../services/strategy/src/lab/columns.js';
import type { RunRequest, WorkerReply } from '../services/strategy/src/lab/pool.js';

// What production runs: `npm run build`, then plain `node services/<name>/dist/server.js` from
// the repository root, no tsx and no esbuild loaded.
const services = serviceEntries(root);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fxdesk-built-'));
const built = new Map<string, BuiltService>();
const running = new Map<string, { port: number; process: ReturnType<typeof runNode> }>();

beforeAll(async () => {
  for (const service of await buildServices(root)) built.set(service.name, service);
  for (const service of services) {
    const port = await freePort();
    running.set(service.name, { port, process: runNode([service.outfile], { DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'warn' }) });
  }
}, 60_000);

afterAll(async () => {
  for (const { process } of running.values()) if (process.child.exitCode === null) process.child.kill('SIGKILL');
  await Promise.all([...running.values()].map((r) => r.process.done));
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const base = (name: string) => `http://127.0.0.1:${running.get(name)?.port}`;

describe('the compiled services', () => {
  for (const service of services) {
    it(`${service.name} imports only node builtins and npm packages, no workspace source`, () => {
      const imports = built.get(service.name)?.imports ?? [];
      expect(imports.length).toBeGreaterThan(0);
      for (const specifier of imports) {
        if (isBuiltin(specifier)) continue;
        expect(specifier).toMatch(/^[@a-z]/);
        expect(specifier).not.toMatch(/^(@fxdesk\/|tsx$|esbuild$)/);
      }
    });

    it(`${service.name} answers /health/live run by plain node`, async () => {
      await until(() => answers(`${base(service.name)}/health/live`), 30_000);
      expect(running.get(service.name)?.process.out.stderr).toBe('');
    }, 40_000);
  }

  it('the strategy serves the Redoc bundle, found in node_modules from dist/', async () => {
    const res = await fetch(`${base('strategy')}/redoc/redoc.standalone.js`);
    expect(res.status).toBe(200);
    expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(100_000);
  });

  it("the strategy's lab worker, dist/lab-worker.js beside dist/server.js, runs a backtest under plain node", async () => {
    const strategy = services.find((s) => s.name === 'strategy');
    expect(strategy?.workers.map((w) => path.relative(root, w.outfile))).toEqual(['services/strategy/dist/lab-worker.js']);
    const candles = Array.from({ length: 400 }, (_, i) => {
      const close = 1.1 + 0.002 * Math.sin(i / 15);
      return { time: 1_767_571_200 + i * 300, open: close - 0.0001, high: close + 0.0003, low: close - 0.0004, close, volume: 100, spread: null };
    });
    const request: RunRequest = {
      job: {
        timeframe: 'M5',
        pairs: [{ instrument: 'EUR_USD', symbol: 'EURUSD', digits: 5, candles: columnsOf(candles) }],
        conversion: [],
        rules: { supertrendAtrPeriod: 10, supertrendMultiplier: 3, volumeProfileWindow: 100, minConfluence: 3, riskReward: 2, minStopAtr: 0.5, fvgMaxAge: 100 },
        fills: { spread_points: null, slippage_points: 0, commission_per_lot: 0, volume: { lots: 0.1 } },
        initialBalance: 100_000,
        accountCurrency: 'USD',
        fromSec: candles[300]!.time,
        toSec: candles[399]!.time + 300,
      },
      cancelFlag: new SharedArrayBuffer(4),
    };
    const worker = new Worker(path.join(root, 'services/strategy/dist/lab-worker.js'), { workerData: {} });
    try {
      const reply = await new Promise<WorkerReply>((resolve, reject) => {
        worker.on('message', (m: WorkerReply) => m.type !== 'progress' && resolve(m));
        worker.once('error', reject);
        worker.postMessage(request);
      });
      expect(reply).toMatchObject({ type: 'done', result: { candles: 100 } });
    } finally {
      await worker.terminate();
    }
  });

  it('the compiled strategy runs a backtest on its lab worker, found beside dist/server.js', async () => {
    const body = { instruments: ['EUR_USD'], timeframe: 'M15', from: '2026-03-02', to: '2026-03-09' };
    const created = await fetch(`${base('strategy')}/backtests`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(created.status).toBe(202);
    const { id } = (await created.json()) as { id: string };
    let record: { status: string; error: unknown; candles: number | null } | undefined;
    await until(async () => {
      record = (await (await fetch(`${base('strategy')}/backtests/${id}`)).json()) as typeof record;
      return record?.status !== 'queued' && record?.status !== 'running';
    }, 30_000);
    expect(record).toMatchObject({ status: 'done', error: null });
    expect(record?.candles).toBeGreaterThan(0);
  }, 40_000);

  it('the strategy serves the Swagger UI assets from its npm package', async () => {
    expect((await fetch(`${base('strategy')}/docs/static/index.html`)).status).toBe(200);
  });

  for (const service of services) {
    it(`${service.name} exits 0 on SIGTERM`, async () => {
      const run = running.get(service.name)?.process;
      run?.child.kill('SIGTERM');
      expect((await run?.done)?.code).toBe(0);
    });
  }
});
