import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Backtest, BacktestMetrics, BacktestTrades, LabMetrics, Sweep } from '@fxdesk/schemas';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answers, freePort, launchBrowser, paintedPixels, run, runNode, until } from '@fxdesk/core/testing';

/**
 * The console's Lab page in Chromium against the strategy service alone, on its own simulated
 * market. A year of M5 on four pairs is started from the page and watched to the end; its
 * metrics table must equal GET /backtests/{id}'s metrics and the CLI's (`npm run backtest --
 * --json`, the same script) for the same request; its equity curve and its trades on the pair's
 * chart are drawn, an old trade's too, on the run's own candles. The page follows the run on the
 * `lab` events, not by polling: its reads of the backtest are counted. A small sweep's heat map
 * opens one of its backtests; a backtest with exit rules set in the form sends them and its trades
 * leave by them. The strategy decides on M15, the backtests on M5.
 */

const SEED = 'console-lab';
const INSTRUMENTS = ['EUR_USD', 'GBP_USD', 'USD_JPY', 'AUD_USD'];
/** The form lists the monitored pairs alphabetically, and the request names them in that order. */
const PICKED = [...INSTRUMENTS].sort();
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'fxdesk-console-lab-'));
const dist = path.join(work, 'dist');
/** Where the screenshot goes; kept after the run, for the docs. */
const shots = fs.mkdtempSync(path.join(os.tmpdir(), 'fxdesk-console-lab-screenshots-'));
/** The strategy's settings, which the CLI reads as the service does. */
const settings = {
  LOG_LEVEL: 'warn',
  SIM_SEED: SEED,
  TIMEFRAME: 'M15',
  INSTRUMENTS: INSTRUMENTS.join(','),
};

const DAY_MS = 86_400_000;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
/** The year up to today (midnight UTC), as the form starts with it. */
const to = day(Date.now());
const from = (() => {
  const d = new Date(`${to}T00:00:00Z`);
  d.setUTCFullYear(d.getUTCFullYear() - 1);
  return day(d.getTime());
})();
const RULES = { min_confluence: 2 };

type Process = ReturnType<typeof run>;
let strategy: Process;
let port = 0;
let browser: Browser;
const base = () => `http://127.0.0.1:${port}`;
const pageErrors: string[] = [];

async function json<T>(res: Response): Promise<T> {
  if (!res.ok) throw new Error(`${res.url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** The page's metrics table as the values its cells carry, by column (overall, then each pair) and metric. */
async function metricsOnPage(page: Page): Promise<Record<string, Record<string, number | null>>> {
  return page.locator('table[aria-label="Metrics"] td[data-value]').evaluateAll((cells) => {
    const table: Record<string, Record<string, number | null>> = {};
    for (const cell of cells) {
      const column = cell.getAttribute('data-column') as string;
      const metric = (cell.closest('tr') as HTMLElement).getAttribute('data-metric') as string;
      const value = cell.getAttribute('data-value') as string;
      (table[column] ??= {})[metric] = value === 'null' ? null : Number(value);
    }
    return table;
  });
}

function byColumn(metrics: BacktestMetrics): Record<string, LabMetrics> {
  return { overall: metrics.overall, ...metrics.per_pair };
}

/** The console's build, into `dist`. */
async function buildConsole(): Promise<void> {
  const build = runNode(['node_modules/vite/bin/vite.js', 'build', 'packages/console', '--outDir', dist, '--emptyOutDir', '--logLevel', 'warn'], {});
  const built = await build.done;
  if (built.code !== 0) throw new Error(`the console did not build:\n${built.stderr}`);
}

/** The strategy service on a free port, once it answers. */
async function startStrategy(): Promise<void> {
  port = await freePort();
  strategy = run('services/strategy/src/server.ts', {
    ...settings,
    HOST: '127.0.0.1',
    PORT: String(port),
    DATA_DIR: path.join(work, 'strategy'),
    CONSOLE_DIST_DIR: dist,
    AUTO_START: 'true',
    // A trade of the year can stay open for days (the newest, to the end): its chart reads all its candles, up to 5,000.
    CHART_CANDLES: '5000',
    // The test reads beside the page: spec 000's 60 GETs a minute are tested elsewhere (the page's own reads are counted below).
    RATE_LIMIT_GET_PER_MINUTE: '100000',
    RATE_LIMIT_POST_PER_MINUTE: '1000',
  });
  try {
    await until(() => answers(`${base()}/health/live`), 30_000);
  } catch (err) {
    process.stderr.write(strategy.out.stderr);
    throw err;
  }
}

beforeAll(async () => {
  // Side by side: the strategy serves a build made after it started.
  const [built, started, launched] = await Promise.allSettled([buildConsole(), startStrategy(), launchBrowser()]);
  if (launched.status === 'fulfilled') browser = launched.value;
  for (const outcome of [built, started, launched]) if (outcome.status === 'rejected') throw outcome.reason;
}, 120_000);

afterAll(async () => {
  await browser?.close();
  if (strategy?.child.exitCode === null) strategy.child.kill('SIGTERM');
  await strategy?.done;
  fs.rmSync(work, { recursive: true, force: true });
  process.stdout.write(`console lab screenshot: ${shots}\n`);
});

describe('the Lab page', () => {
  let page: Page;
  let backtestId = '';
  let sweepId = '';

  beforeAll(async () => {
    page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
    page.on('pageerror', (err) => pageErrors.push(err.message));
  });

  it('runs a year of M5 on four pairs from the page, and its metrics equal the API’s and the CLI’s for the same request', async () => {
    await page.goto(`${base()}/ui/lab`);
    const form = page.locator('form.lab-form');
    await form.getByRole('button', { name: 'Start backtest' }).waitFor();
    // The monitored pairs, all picked.
    await until(async () => (await form.locator('input[name="instruments"]:checked').count()) === INSTRUMENTS.length, 20_000);
    expect(await form.locator('input[name="instruments"]').evaluateAll((inputs) => inputs.map((i) => (i as HTMLInputElement).value))).toEqual(PICKED);
    await form.locator('select[name="timeframe"]').selectOption('M5');
    await form.locator('input[name="from"]').fill(from);
    await form.locator('input[name="to"]').fill(to);
    await form.locator('input[name="rules.min_confluence"]').fill(String(RULES.min_confluence));
    // Every GET of a backtest's record the page sends, by path.
    const reads: string[] = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (request.method() === 'GET' && /^\/backtests\/[^/]+$/.test(url.pathname)) reads.push(decodeURIComponent(url.pathname));
    });
    await form.getByRole('button', { name: 'Start backtest' }).click();

    await page.waitForURL(/\/ui\/lab\/backtests\/[^/?]+$/, { timeout: 10_000 });
    backtestId = decodeURIComponent(new URL(page.url()).pathname.split('/').at(-1) as string);
    const startedMs = Date.now();
    // The CLI runs the same request meanwhile, in its own process, on the same settings.
    const cli = run('scripts/backtest.ts', { ...settings, DATA_DIR: path.join(work, 'cli') }, [
      '--instruments',
      PICKED.join(','),
      '--timeframe',
      'M5',
      '--from',
      from,
      '--to',
      to,
      '--rules',
      `min_confluence=${RULES.min_confluence}`,
      '--json',
    ]);

    // Watched to the end on the `lab` events: the progress moves on the page while its reads of
    // the backtest are one at the open and one per status change (queued, running, done).
    const progress = new Set<string>();
    await page.locator('progress').waitFor({ timeout: 10_000 });
    const done = page.locator('[data-job-status="done"]');
    await until(async () => {
      const value = await page
        .locator('progress')
        .getAttribute('value', { timeout: 100 })
        .catch(() => null);
      if (value) progress.add(value);
      return done.isVisible();
    }, 100_000);
    const runSeconds = (Date.now() - startedMs) / 1000;
    await page.locator('table[aria-label="Metrics"]').waitFor();
    const ownReads = reads.filter((path) => path === `/backtests/${backtestId}`).length;
    process.stdout.write(`console lab: ${ownReads} reads of the backtest in a run of ${runSeconds.toFixed(1)} s, ${progress.size} progress values shown\n`);
    expect(ownReads).toBeLessThanOrEqual(4);
    // More steps of progress shown than reads: the events moved it.
    expect(progress.size).toBeGreaterThan(ownReads);

    const api = await json<Backtest>(await fetch(`${base()}/backtests/${backtestId}`));
    expect(api.status).toBe('done');
    expect(api.settings).toMatchObject({ instruments: PICKED, timeframe: 'M5', from: `${from}T00:00:00.000Z`, to: `${to}T00:00:00.000Z` });
    expect(api.settings.rules.min_confluence).toBe(RULES.min_confluence);
    const metrics = api.metrics as BacktestMetrics;
    expect(metrics.overall.trade_count).toBeGreaterThan(0);
    expect(await metricsOnPage(page)).toEqual(byColumn(metrics));

    const ran = await cli.done;
    if (ran.code !== 0) throw new Error(`the CLI failed (${ran.code}):\n${ran.stderr}`);
    const fromCli = JSON.parse(ran.stdout) as Backtest;
    expect(fromCli.metrics).toEqual(metrics);
    expect({ candles: fromCli.candles, signals: fromCli.signals, skipped: fromCli.skipped_signals }).toEqual({
      candles: api.candles,
      signals: api.signals,
      skipped: api.skipped_signals,
    });
  }, 150_000);

  it('draws the equity curve and the pair’s trades on its chart, a trade picked out from its row', async () => {
    const { points } = await json<{ points: unknown[] }>(await fetch(`${base()}/backtests/${backtestId}/equity`));
    const caption = page.locator('#equity-caption');
    await caption.waitFor({ timeout: 20_000 });
    expect(Number(await caption.getAttribute('data-points'))).toBe(points.length);
    // The curve is on the canvas: the year lost or won, its line is red or green.
    await until(async () => (await paintedPixels(page, '.chart.equity', '#ef5350')) + (await paintedPixels(page, '.chart.equity', '#26a69a')) > 200, 10_000);

    // The first pair's trades: those of the chart's span are drawn (entry arrows in the entry blue on the price pane).
    const trades = page.locator('#trades-chart-caption');
    await trades.waitFor({ timeout: 30_000 });
    const drawn = Number(await trades.getAttribute('data-trades-on-chart'));
    expect(drawn).toBeGreaterThan(0);
    await until(async () => (await paintedPixels(page, '.backtest-trades .chart', '#4f9cf9', { pricePaneOnly: true })) > 20, 10_000);

    // The chart and the table are the first pair's; the table starts with its newest trade, the API's last.
    const pair = PICKED[0] as string;
    expect(await page.getByRole('radio', { name: 'AUD/USD' }).isChecked()).toBe(true);
    const all: BacktestTrades['trades'] = [];
    for (let cursor: string | null = ''; cursor !== null;) {
      const pageOf: BacktestTrades = await json<BacktestTrades>(
        await fetch(`${base()}/backtests/${backtestId}/trades?instrument=${pair}&limit=1000${cursor ? `&cursor=${cursor}` : ''}`),
      );
      all.push(...pageOf.trades);
      cursor = pageOf.next_cursor;
    }
    const first = page.locator('table[aria-label="Trades"] tbody tr').first();
    expect(await first.getAttribute('data-entry-time')).toBe(all.at(-1)?.entry_time);
    await first.getByRole('button').click();
    expect(await first.getAttribute('aria-current')).toBe('true');
  }, 60_000);

  it('charts an old trade, months before the end, on the run’s own candles when it is picked, and steps to the one before', async () => {
    const pair = PICKED[0] as string;
    const trades: BacktestTrades['trades'] = [];
    for (let cursor: string | null = ''; cursor !== null;) {
      const pageOf: BacktestTrades = await json<BacktestTrades>(
        await fetch(`${base()}/backtests/${backtestId}/trades?instrument=${pair}&limit=1000${cursor ? `&cursor=${cursor}` : ''}`),
      );
      trades.push(...pageOf.trades);
      cursor = pageOf.next_cursor;
    }
    // The newest trade that entered at least four months before the end of the year.
    const at = trades.findLastIndex((t) => Date.parse(t.entry_time) < Date.parse(`${to}T00:00:00Z`) - 120 * DAY_MS);
    const old = trades[at] as BacktestTrades['trades'][number];
    expect(at).toBeGreaterThan(0);

    const windows: URL[] = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.pathname === `/backtests/${backtestId}/candles`) windows.push(url);
    });
    const row = page.locator(`table[aria-label="Trades"] tbody tr[data-entry-time="${old.entry_time}"]`);
    while ((await row.count()) === 0) await page.getByRole('button', { name: /^More trades/ }).click();
    await row.getByRole('button').click();
    expect(await row.getAttribute('aria-current')).toBe('true');

    const caption = page.locator(`#trades-chart-caption[data-focus="${old.entry_time}"]`);
    await caption.waitFor({ timeout: 20_000 });
    await until(async () => Date.parse((await caption.getAttribute('data-from')) as string) <= Date.parse(old.entry_time), 20_000);
    expect(Date.parse((await caption.getAttribute('data-to')) as string)).toBeGreaterThanOrEqual(Date.parse(old.exit_time));
    expect(Number(await caption.getAttribute('data-trades-on-chart'))).toBeGreaterThan(0);
    // Its entry arrow is on the price pane.
    await until(async () => (await paintedPixels(page, '.backtest-trades .chart', '#4f9cf9', { pricePaneOnly: true })) > 20, 10_000);

    // The candles the page read are the API's for the same range: the run's, with its rules' indicators.
    const asked = windows.at(-1) as URL;
    expect(asked.searchParams.get('instrument')).toBe(pair);
    const answer = await json<{ candles: Array<{ time: string }> }>(await fetch(`${base()}/backtests/${backtestId}/candles${asked.search}`));
    expect([await caption.getAttribute('data-from'), await caption.getAttribute('data-to')]).toEqual([answer.candles[0]?.time, answer.candles.at(-1)?.time]);

    // One step back: the trade before it, on the chart too.
    await page.getByRole('button', { name: '◀ Older trade' }).click();
    const before = trades[at - 1] as BacktestTrades['trades'][number];
    const stepped = page.locator(`#trades-chart-caption[data-focus="${before.entry_time}"]`);
    await stepped.waitFor({ timeout: 20_000 });
    await until(async () => {
      const [start, end] = [await stepped.getAttribute('data-from'), await stepped.getAttribute('data-to')].map((iso) => Date.parse(iso as string));
      return (start as number) <= Date.parse(before.entry_time) && (end as number) >= Date.parse(before.exit_time);
    }, 20_000);

    // For the docs, from the metrics to the chart's caption, the pointer off the charts: in a
    // viewport that tall (a full-page capture resizes the page under the charts).
    await page.mouse.move(0, 0);
    await page.evaluate(() => window.scrollTo(0, 0));
    const top = await page
      .locator('#metrics-title')
      .evaluate((title) => (title.closest('section') as HTMLElement).getBoundingClientRect().top + window.scrollY);
    const bottom = await stepped.evaluate((caption) => caption.getBoundingClientRect().bottom + window.scrollY);
    await page.setViewportSize({ width: 1360, height: Math.ceil(bottom) + 32 });
    await page.waitForTimeout(500);
    await page.screenshot({ path: path.join(shots, 'console-lab.png'), clip: { x: 0, y: top - 16, width: 1360, height: bottom - top + 32 } });
    await page.setViewportSize({ width: 1360, height: 900 });
  }, 60_000);

  it('says a cancelled backtest was cancelled', async () => {
    await page.goto(`${base()}/ui/lab`);
    const form = page.locator('form.lab-form');
    await until(async () => (await form.locator('input[name="instruments"]:checked').count()) === INSTRUMENTS.length, 20_000);
    await form.locator('select[name="timeframe"]').selectOption('M1');
    await form.locator('input[name="from"]').fill(from);
    await form.locator('input[name="to"]').fill(to);
    await form.getByRole('button', { name: 'Start backtest' }).click();
    await page.waitForURL(/\/ui\/lab\/backtests\/[^/?]+$/, { timeout: 10_000 });
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.locator('[data-job-status="cancelled"]').waitFor({ timeout: 20_000 });
    const id = decodeURIComponent(new URL(page.url()).pathname.split('/').at(-1) as string);
    expect((await json<Backtest>(await fetch(`${base()}/backtests/${id}`))).status).toBe('cancelled');
  }, 40_000);

  it('runs a small sweep whose heat map opens each cell’s backtest, and shows its walk-forward windows', async () => {
    await page.goto(`${base()}/ui/lab`);
    const form = page.locator('form.lab-form');
    await until(async () => (await form.locator('input[name="instruments"]:checked').count()) === INSTRUMENTS.length, 20_000);
    await form.getByText('Sweep', { exact: true }).click();
    for (const pair of PICKED.slice(2)) await form.locator(`input[name="instruments"][value="${pair}"]`).uncheck();
    await form.locator('select[name="timeframe"]').selectOption('M5');
    await form.locator('input[name="from"]').fill(day(Date.parse(`${to}T00:00:00Z`) - 42 * DAY_MS));
    await form.locator('input[name="to"]').fill(to);
    await form.locator('input[name="rules.min_confluence"]').fill('2');
    await form.locator('input[name="grid.supertrend_atr_period"]').fill('8, 12');
    await form.locator('input[name="grid.supertrend_multiplier"]').fill('2..3');
    expect(
      await form
        .locator('legend')
        .filter({ hasText: /^Sweep:/ })
        .textContent(),
    ).toContain('Sweep: 2 settings');
    await form.locator('input[name="grid.supertrend_multiplier"]').fill('2..3 by 1');
    expect(
      await form
        .locator('legend')
        .filter({ hasText: /^Sweep:/ })
        .textContent(),
    ).toContain('Sweep: 4 settings');
    await form.getByLabel('Walk-forward').check();
    await form.locator('input[name="windows"]').fill('2');
    await form.getByRole('button', { name: 'Start sweep' }).click();

    await page.waitForURL(/\/ui\/lab\/sweeps\/[^/?]+$/, { timeout: 10_000 });
    sweepId = decodeURIComponent(new URL(page.url()).pathname.split('/').at(-1) as string);
    await page.locator('[data-job-status="done"]').waitFor({ timeout: 60_000 });
    const sweep = await json<Sweep>(await fetch(`${base()}/sweeps/${sweepId}`));
    expect(sweep.results).toHaveLength(4);

    const map = page.locator('table.heat-map');
    await map.waitFor();
    expect([await map.getAttribute('data-x'), await map.getAttribute('data-y')]).toEqual(['supertrend_atr_period', 'supertrend_multiplier']);
    const cells = map.locator('td a');
    expect(await cells.count()).toBe(4);
    // The cell of period 12 and multiplier 2 (bottom right: multipliers run down from the highest) opens that setting's backtest.
    const wanted = sweep.results.find((r) => r.rules.supertrend_atr_period === 12 && r.rules.supertrend_multiplier === 2);
    const cell = map.locator('tbody tr').nth(1).locator('td a').nth(1);
    expect(await cell.getAttribute('href')).toBe(`/ui/lab/backtests/${wanted?.backtest_id}`);
    await cell.click();
    await page.waitForURL(`**/ui/lab/backtests/${wanted?.backtest_id}`);
    await page.locator('table[aria-label="Metrics"]').waitFor({ timeout: 20_000 });
    const opened = await json<Backtest>(await fetch(`${base()}/backtests/${wanted?.backtest_id}`));
    expect(opened.sweep_id).toBe(sweepId);
    expect((await metricsOnPage(page)).overall).toEqual(opened.metrics?.overall);

    await page.goBack();
    const windows = page.locator('table[aria-label="Walk-forward windows"] tbody tr');
    await windows.first().waitFor();
    expect(await windows.count()).toBe(2);
  }, 90_000);

  it('runs a backtest with exit rules set in the form: the request carries them, its settings show them and its trades leave by them', async () => {
    await page.goto(`${base()}/ui/lab`);
    const form = page.locator('form.lab-form');
    await form.getByRole('button', { name: /^Start (backtest|sweep)$/ }).waitFor();
    await form.getByText('Backtest', { exact: true }).click();
    await form.getByRole('button', { name: 'Start backtest' }).waitFor();
    // The exits are off unless the form sets them (the strategy's own are off here).
    expect(await form.locator('select[name="rules.exit_on_opposite_signal"]').inputValue()).toBe('');
    await until(async () => (await form.locator('input[name="rules.time_exit_candles"]').getAttribute('placeholder')) === 'off', 20_000);
    const [first, second] = PICKED as [string, string];
    for (const pair of PICKED) {
      const box = form.locator(`input[name="instruments"][value="${pair}"]`);
      if (pair === first || pair === second) await box.check();
      else await box.uncheck();
    }
    await form.locator('select[name="timeframe"]').selectOption('M5');
    await form.locator('input[name="from"]').fill(day(Date.parse(`${to}T00:00:00Z`) - 28 * DAY_MS));
    await form.locator('input[name="to"]').fill(to);
    await form.locator('input[name="rules.time_exit_candles"]').fill('6');
    await form.locator('select[name="rules.exit_on_opposite_signal"]').selectOption('1');
    const posted = page.waitForRequest((request) => request.method() === 'POST' && new URL(request.url()).pathname === '/backtests', { timeout: 20_000 });
    await form.getByRole('button', { name: 'Start backtest' }).click();
    const body = (await posted).postDataJSON() as { instruments: string[]; rules: Record<string, number> };
    expect(body.instruments).toEqual([first, second]);
    expect(body.rules).toMatchObject({ time_exit_candles: 6, exit_on_opposite_signal: 1 });

    await page.waitForURL(/\/ui\/lab\/backtests\/[^/?]+$/, { timeout: 20_000 });
    await page.locator('[data-job-status="done"]').waitFor({ timeout: 120_000 });
    const id = decodeURIComponent(new URL(page.url()).pathname.split('/').at(-1) as string);
    const run = await json<Backtest>(await fetch(`${base()}/backtests/${id}`));
    expect(run.settings.rules).toMatchObject({ time_exit_candles: 6, exit_on_opposite_signal: 1 });
    expect(await page.locator('[data-rule="time_exit_candles"] dd').textContent()).toBe('6');
    expect(await page.locator('[data-rule="exit_on_opposite_signal"] dd').textContent()).toBe('on');
    expect(await page.locator('[data-rule="break_even_r"] dd').textContent()).toBe('off');

    // The first pair's trades in the table: some held their 6 candles and left by the time exit.
    const { trades } = await json<BacktestTrades>(await fetch(`${base()}/backtests/${id}/trades?instrument=${first}&limit=1000`));
    expect(trades.some((t) => t.exit_reason === 'time')).toBe(true);
    const reasons = page.locator('table[aria-label="Trades"] tbody td[data-label="Reason"]');
    await reasons.first().waitFor({ timeout: 30_000 });
    await until(async () => {
      if ((await reasons.allTextContents()).includes('time')) return true;
      const more = page.getByRole('button', { name: /^More trades/ });
      if ((await more.count()) > 0) await more.click();
      return false;
    }, 60_000);
    expect(pageErrors).toEqual([]);
  }, 180_000);

  it('runs a backtest with risk rules set in the form: sized by risk, a limit refusing, its skips shown by reason', async () => {
    await page.goto(`${base()}/ui/lab`);
    const form = page.locator('form.lab-form');
    await form.getByRole('button', { name: /^Start (backtest|sweep)$/ }).waitFor();
    await form.getByText('Backtest', { exact: true }).click();
    await form.getByRole('button', { name: 'Start backtest' }).waitFor();
    // The strategy sizes by fixed lots and has no limit here: the form shows so.
    await until(async () => (await form.locator('input[name="rules.risk_percent"]').getAttribute('placeholder')) === 'fixed lots', 20_000);
    expect(await form.locator('input[name="rules.max_open_trades"]').getAttribute('placeholder')).toBe('off');
    expect(await form.locator('input[name="rules.one_position_per_pair"]').count()).toBe(0);
    for (const pair of PICKED) await form.locator(`input[name="instruments"][value="${pair}"]`).check();
    await form.locator('select[name="timeframe"]').selectOption('M5');
    await form.locator('input[name="from"]').fill(day(Date.parse(`${to}T00:00:00Z`) - 28 * DAY_MS));
    await form.locator('input[name="to"]').fill(to);
    await form.locator('input[name="rules.risk_percent"]').fill('0.5');
    await form.locator('input[name="rules.max_open_trades"]').fill('1');
    const posted = page.waitForRequest((request) => request.method() === 'POST' && new URL(request.url()).pathname === '/backtests', { timeout: 20_000 });
    await form.getByRole('button', { name: 'Start backtest' }).click();
    const body = (await posted).postDataJSON() as { rules: Record<string, number> };
    expect(body.rules).toMatchObject({ risk_percent: 0.5, max_open_trades: 1 });

    await page.waitForURL(/\/ui\/lab\/backtests\/[^/?]+$/, { timeout: 20_000 });
    await page.locator('[data-job-status="done"]').waitFor({ timeout: 120_000 });
    const id = decodeURIComponent(new URL(page.url()).pathname.split('/').at(-1) as string);
    const run = await json<Backtest>(await fetch(`${base()}/backtests/${id}`));
    expect(run.settings.rules).toMatchObject({ risk_percent: 0.5, max_open_trades: 1 });
    expect(await page.locator('[data-rule="risk_percent"] dd').textContent()).toBe('0.5');
    expect(await page.locator('[data-rule="daily_loss_limit"] dd').textContent()).toBe('off');
    // One open trade across the pairs: the limit refused some signals, and the page counts them as the API does.
    const refused = run.metrics?.skipped?.overall.max_open_trades ?? 0;
    expect(refused).toBeGreaterThan(0);
    const row = page.locator('table[aria-label="Signals not traded"] tr[data-skip="max_open_trades"]');
    expect(await row.locator('td[data-column="overall"]').textContent()).toBe(String(refused));
    for (const pair of PICKED) {
      expect(await row.locator(`td[data-column="${pair}"]`).textContent()).toBe(String(run.metrics?.skipped?.per_pair[pair]?.max_open_trades ?? 0));
    }
    // Sized by risk: not one size for all.
    const { trades } = await json<BacktestTrades>(await fetch(`${base()}/backtests/${id}/trades?limit=1000`));
    expect(new Set(trades.map((t) => t.volume_lots)).size).toBeGreaterThan(1);
    expect(pageErrors).toEqual([]);
  }, 180_000);

  it('fits a phone’s 390 px: the lab, a backtest and a sweep scroll down, never across', async () => {
    const phone = await browser.newPage({ viewport: { width: 390, height: 844 } });
    phone.on('pageerror', (err) => pageErrors.push(err.message));
    for (const url of [`${base()}/ui/lab`, `${base()}/ui/lab/backtests/${backtestId}`, `${base()}/ui/lab/sweeps/${sweepId}`]) {
      await phone.goto(url);
      await phone.locator('h1').first().waitFor();
      await phone.waitForLoadState('networkidle');
      expect(await phone.evaluate(() => document.documentElement.scrollWidth), url).toBeLessThanOrEqual(390);
    }
    await phone.close();
    expect(pageErrors).toEqual([]);
  }, 60_000);
});
