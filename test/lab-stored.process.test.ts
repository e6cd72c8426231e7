import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ManualClock } from '@fxdesk/primitives';
import { SimulatedMarket } from '@fxdesk/broker';
import { BacktestSchema, type Backtest } from '@fxdesk/schemas';
import { answers, freePort, run, until } from '@fxdesk/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MARKET_DATA_DEV_SECRETS } from '../services/market-data/src/config.js';

// A backtest on stored candles as a user makes one: a file imported with `npm run data`, the
// market-data service serving it, the strategy service's API and `npm run backtest` reading it.

/** Three weeks of M1 from a market of another seed than the desk's: candles no simulated source gives. */
const FILE_FROM = Date.UTC(2026, 2, 2);
const FILE_TO = Date.UTC(2026, 2, 23);
const REQUEST = { instruments: ['EUR_USD'], timeframe: 'M5', from: '2026-03-09', to: '2026-03-21', rules: { min_confluence: 2 } };

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fxdesk-lab-stored-'));
const file = path.join(dataDir, 'eurusd-m1.csv');
const processes: Array<ReturnType<typeof run>> = [];
let strategy = '';
let marketDataUrl = '';

/** The file: time (UTC), the bid OHLC, ticks and the bar's spread in points, as an MT5 export carries them. */
function writeFile(): void {
  const market = new SimulatedMarket({
    seed: 'a-file-of-real-history',
    tickIntervalMs: 1000,
    marketHours: true,
    clock: new ManualClock('2026-12-01T00:00:00Z'),
  });
  const lines = ['time,open,high,low,close,volume,spread'];
  for (let fromMs = FILE_FROM; fromMs < FILE_TO; fromMs += 86_400_000) {
    for (const bar of market.barsBetween('EURUSD', 'M1', fromMs, fromMs + 86_400_000)) {
      lines.push(`${new Date(bar.time * 1000).toISOString()},${bar.open},${bar.high},${bar.low},${bar.close},${bar.tickVolume},${bar.spread}`);
    }
  }
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
}

async function backtestOnApi(body: object): Promise<Backtest> {
  const created = await fetch(`${strategy}/backtests`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(created.status, await created.clone().text()).toBe(202);
  const { id } = (await created.json()) as { id: string };
  let backtest: Backtest | undefined;
  await until(async () => {
    backtest = BacktestSchema.parse(await (await fetch(`${strategy}/backtests/${id}`)).json());
    return backtest.status === 'done' || backtest.status === 'failed';
  }, 60_000);
  return backtest as Backtest;
}

const cli = (args: string[]) =>
  run('scripts/backtest.ts', { MARKET_DATA_URL: marketDataUrl, MARKET_DATA_API_KEY: MARKET_DATA_DEV_SECRETS.API_KEY, DATA_DIR: dataDir }, args).done;

describe('a backtest on stored candles', { timeout: 120_000 }, () => {
  beforeAll(async () => {
    writeFile();
    const imported = await run('scripts/data.ts', { DATA_DIR: dataDir }, ['import', file, '--symbol', 'EUR_USD']).done;
    expect(imported.code, imported.stderr).toBe(0);
    const [marketDataPort, strategyPort] = [await freePort(), await freePort()];
    marketDataUrl = `http://127.0.0.1:${marketDataPort}`;
    strategy = `http://127.0.0.1:${strategyPort}`;
    processes.push(run('services/market-data/src/server.ts', { PORT: String(marketDataPort), DATA_DIR: dataDir, LOG_LEVEL: 'warn' }));
    processes.push(
      run('services/strategy/src/server.ts', {
        PORT: String(strategyPort),
        DATA_DIR: path.join(dataDir, 'strategy'),
        MARKET_DATA_URL: marketDataUrl,
        MARKET_DATA_API_KEY: MARKET_DATA_DEV_SECRETS.API_KEY,
        LOG_LEVEL: 'warn',
        RATE_LIMIT_GET_PER_MINUTE: '10000',
      }),
    );
    await until(async () => (await answers(`${marketDataUrl}/health/live`)) && (await answers(`${strategy}/health/live`)), 60_000);
  }, 120_000);

  afterAll(async () => {
    for (const p of processes) p.child.kill('SIGTERM');
    await Promise.all(processes.map((p) => p.done));
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('runs on the store by default when it holds the pairs, and the API and the CLI give the same result, naming the same data', async () => {
    const api = await backtestOnApi(REQUEST);
    expect(api.status, api.error?.message).toBe('done');
    expect(api.settings.source).toBe('stored');
    expect(api.data).toMatchObject({ source: 'stored', sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(api.metrics?.overall.trade_count).toBeGreaterThan(0);

    const out = await cli([
      '--instruments',
      'EUR_USD',
      '--timeframe',
      'M5',
      '--from',
      REQUEST.from,
      '--to',
      REQUEST.to,
      '--rules',
      'min_confluence=2',
      '--json',
    ]);
    expect(out.code, out.stderr).toBe(0);
    const fromCli = BacktestSchema.parse(JSON.parse(out.stdout));
    expect(fromCli.settings).toEqual(api.settings);
    expect(fromCli.metrics).toEqual(api.metrics);
    expect([fromCli.candles, fromCli.signals, fromCli.skipped_signals]).toEqual([api.candles, api.signals, api.skipped_signals]);
    expect(fromCli.data).toEqual(api.data);

    // Named, the same; the simulated market of SIM_SEED is other candles, another digest.
    const named = await backtestOnApi({ ...REQUEST, source: 'stored' });
    expect([named.data, named.metrics]).toEqual([api.data, api.metrics]);
    const simulated = await backtestOnApi({ ...REQUEST, source: 'simulated' });
    expect(simulated.data?.source).toBe('simulated');
    expect(simulated.data?.sha256).not.toBe(api.data?.sha256);
  });

  it('answers 422 CANDLES_NOT_COVERED naming each range the store lacks, on the API and the CLI', async () => {
    const res = await fetch(`${strategy}/backtests`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...REQUEST, instruments: ['EUR_USD', 'GBP_USD'], from: '2026-02-23', to: '2026-03-21' }),
    });
    expect(res.status).toBe(422);
    const body = (await res.json()) as { code: string; details: Array<{ path: string; message: string }> };
    expect(body.code).toBe('CANDLES_NOT_COVERED');
    expect(body.details.map((d) => d.message)).toEqual([
      // The file starts on Monday 2 March: the week before it is missing (Sunday 22:00 UTC opens the week it holds).
      expect.stringMatching(/^EUR_USD: no candles from 2026-02-23T00:00:00.000Z to 2026-03-0[12]T\d\d:\d\d:00.000Z \(\d+ market minutes\)$/),
      expect.stringMatching(/^GBP_USD: no candles from 2026-02-23T00:00:00.000Z to 2026-03-21T00:00:00.000Z \(\d+ market minutes\)$/),
    ]);
    const out = await cli(['--instruments', 'EUR_USD', '--timeframe', 'M5', '--from', '2026-02-23', '--to', '2026-03-21', '--source', 'stored']);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/EUR_USD: no candles from 2026-02-23T00:00:00.000Z/);
  });
});
