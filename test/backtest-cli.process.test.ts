import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BacktestSchema, type Backtest } from '@fxdesk/schemas';
import { answers, freePort, root, run, until } from '@fxdesk/core/testing';

// `npm run backtest` as a user runs it: a real process on the simulated market of SIM_SEED,
// stdout and stderr read as they come out.
const ENV = { SIM_SEED: 'backtest-cli' };
const TWO_WEEKS = ['--from', '2026-03-02', '--to', '2026-03-16'];

const backtest = async (args: string[], env: Record<string, string> = {}) => run('scripts/backtest.ts', { ...ENV, ...env }, args).done;

describe('npm run backtest', { timeout: 60_000 }, () => {
  it('prints a few progress lines on stderr when it is not a terminal, then the metrics overall and per pair', async () => {
    const out = await backtest(['--instruments', 'EUR_USD,GBP_USD', '--timeframe', 'M5', ...TWO_WEEKS]);
    expect(out.code).toBe(0);
    expect(out.stderr.split('\n')).toEqual(expect.arrayContaining(['loading EURUSD: 100%', 'loading GBPUSD: 100%', 'backtest: 100%']));
    expect(out.stderr.split('\n').length).toBeLessThan(30);
    expect(out.stdout).toContain('EUR_USD, GBP_USD  M5  2026-03-02T00:00:00.000Z → 2026-03-16T00:00:00.000Z');
    expect(out.stdout).toMatch(/^\s+overall\s+EUR_USD\s+GBP_USD$/m);
    for (const row of [
      'net profit',
      'trades',
      'win rate',
      'profit factor',
      'max drawdown %',
      'Sharpe',
      'Sortino',
      'CAGR',
      'exposure',
      'longest losing streak',
    ]) {
      expect(out.stdout).toMatch(new RegExp(`^${row} +\\S+ +\\S+ +\\S+$`, 'm'));
    }
  });

  it('prints the backtest as GET /backtests/{id} gives it with --json, with the rules, balance and fills given', async () => {
    const out = await backtest([
      '--instruments',
      'USD_JPY',
      ...TWO_WEEKS,
      '--rules',
      'supertrend_multiplier=2.5,min_confluence=2,risk_percent=0.5',
      '--balance',
      '50000',
      '--fills',
      'slippage_points=1,commission_per_lot=7',
      '--json',
    ]);
    expect(out.code).toBe(0);
    const record = BacktestSchema.parse(JSON.parse(out.stdout));
    expect(record.status).toBe('done');
    expect(record.settings).toMatchObject({ instruments: ['USD_JPY'], timeframe: 'M5', initial_balance: 50_000, account_currency: 'USD' });
    expect(record.settings.rules).toMatchObject({ supertrend_multiplier: 2.5, min_confluence: 2, supertrend_atr_period: 10, risk_percent: 0.5 });
    expect(record.settings.fill_model).toEqual({ spread_points: null, slippage_points: 1, commission_per_lot: 7, volume: { lots: 0.1 } });
    expect(Object.keys(record.metrics?.per_pair ?? {})).toEqual(['USD_JPY']);
    expect(record.metrics?.overall.final_equity).toBeCloseTo(50_000 + (record.metrics?.overall.net_profit ?? NaN), 6);
  });

  it('gives the same result for the same seed and range, and another for another seed', async () => {
    const args = ['--instruments', 'EUR_USD', ...TWO_WEEKS, '--json'];
    const [first, again, other] = await Promise.all([backtest(args), backtest(args), backtest(args, { SIM_SEED: 'another' })]);
    const metrics = (stdout: string) => BacktestSchema.parse(JSON.parse(stdout)).metrics;
    expect(metrics(again.stdout)).toEqual(metrics(first.stdout));
    expect(metrics(other.stdout)).not.toEqual(metrics(first.stdout));
  });

  it('gives the metrics the strategy service’s API gives for the same request', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fxdesk-backtest-cli-'));
    const port = await freePort();
    const service = run('services/strategy/src/server.ts', {
      ...ENV,
      PORT: String(port),
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      RATE_LIMIT_GET_PER_MINUTE: '1000',
    });
    try {
      const cli = backtest(['--instruments', 'EUR_USD,USD_JPY', ...TWO_WEEKS, '--rules', 'min_confluence=2', '--json']);
      const base = `http://127.0.0.1:${port}`;
      await until(() => answers(`${base}/health/live`), 30_000);
      const request = { instruments: ['EUR_USD', 'USD_JPY'], from: '2026-03-02', to: '2026-03-16', rules: { min_confluence: 2 } };
      const created = await fetch(`${base}/backtests`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(request) });
      expect(created.status).toBe(202);
      const { id } = (await created.json()) as { id: string };
      let api: Backtest | undefined;
      await until(async () => {
        api = BacktestSchema.parse(await (await fetch(`${base}/backtests/${id}`)).json());
        return api.status === 'done';
      }, 30_000);
      const fromCli = BacktestSchema.parse(JSON.parse((await cli).stdout));
      expect(api?.metrics?.overall.trade_count).toBeGreaterThan(0);
      expect(fromCli.metrics).toEqual(api?.metrics);
      expect(fromCli.settings).toEqual(api?.settings);
      expect([fromCli.candles, fromCli.signals, fromCli.skipped_signals]).toEqual([api?.candles, api?.signals, api?.skipped_signals]);
      // Both name the same data: the simulated market's candles of SIM_SEED, to the bit.
      expect(fromCli.data).toEqual(api?.data);
      expect(api?.data).toMatchObject({ source: 'simulated', sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    } finally {
      service.child.kill('SIGTERM');
      await service.done;
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('draws one progress bar in place on a terminal', () => {
    // `script` gives the process a terminal and copies what it writes.
    const command = [process.execPath, '--import', 'tsx', path.join(root, 'scripts/backtest.ts'), '--instruments', 'EUR_USD', ...TWO_WEEKS].join(' ');
    const screen = execFileSync('script', ['-qec', command, '/dev/null'], {
      cwd: root,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...ENV },
      encoding: 'utf8',
    });
    const redraw = '\r\x1b[2K';
    expect(screen.split(redraw).some((frame) => /^█*░* +\d+% {2}loading EURUSD$/.test(frame))).toBe(true);
    expect(screen).toContain(`${redraw}${'█'.repeat(30)} 100%  backtest${redraw}`);
    expect(screen).not.toContain('loading EURUSD: ');
  });

  it('prints its usage with --help', async () => {
    const out = await backtest(['--help']);
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('usage: npm run backtest -- --from DATE --to DATE [options]');
  });

  // Each a process of its own that exits at once: side by side.
  it.concurrent.each([
    [['--instruments', 'EUR_USD', '--from', '2026-03-02'], '--to is required'],
    [['--frm', '2026-03-02', '--to', '2026-03-16'], "Unknown option '--frm'"],
    [['--from', '2026-13-01', '--to', '2026-03-16'], '--from: expected a date like 2026-01-01'],
    [['--from', '2026-03-16', '--to', '2026-03-02'], '--to: must be after from'],
    [['--from', '2026-03-02', '--to', '2099-01-01'], '--to: must not be in the future'],
    [['--instruments', 'EUR_USD,XAU_JPY', ...TWO_WEEKS], '--instruments: XAU_JPY (symbol XAUJPY) is not listed by the market'],
    [[...TWO_WEEKS, '--rules', 'supertrend_period=7'], '--rules: unknown rule "supertrend_period"'],
    [[...TWO_WEEKS, '--rules', 'min_confluence=7'], '--rules min_confluence: Too big: expected number to be <=4'],
    [[...TWO_WEEKS, '--balance', 'lots'], '--balance: expected a number, got "lots"'],
    [[...TWO_WEEKS, '--fills', 'lots=0.001'], '--fills lots: Too small'],
    [[...TWO_WEEKS, '--fills', 'risk_percent=2'], '--fills: size by risk with --rules risk_percent=…'],
    [[...TWO_WEEKS, '--timeframe', 'M3'], '--timeframe: Invalid option'],
  ])('refuses %j with exit 2 and says why', async (args, message) => {
    const out = await backtest(args);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain(message);
    expect(out.stderr).toContain('usage: npm run backtest');
    expect(out.stdout).toBe('');
  });
});
