import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { StrategySignal, StrategyStatus } from '@fxdesk/schemas';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answers, freePort, launchBrowser, paintedPixels, run, runNode, until } from '@fxdesk/core/testing';

/**
 * The console in Chromium against the desk's real processes: market-data, execution, account,
 * notification and strategy on free ports, over one simulated market. Market hours are off (this
 * may run on a weekend) and the strategy decides on M1 candles of fourteen pairs with a confluence
 * of one and a tight Supertrend, so a signal comes at a start (from the candle that just closed)
 * or within a minute. The console is built from its sources first, into a folder the strategy
 * serves.
 */

const SEED = 'console-browser';
const KEYS = { marketData: 'md-console-key-1', execution: 'exec-console-key-1', account: 'acct-console-key-1', notification: 'notify-console-key-1' };
const INSTRUMENTS = [
  'EUR_USD',
  'GBP_USD',
  'USD_JPY',
  'USD_CHF',
  'AUD_USD',
  'USD_CAD',
  'NZD_USD',
  'EUR_GBP',
  'EUR_JPY',
  'GBP_JPY',
  'EUR_CHF',
  'AUD_JPY',
  'EUR_AUD',
  'GBP_CHF',
];
const PASSWORD = 'console-browser-password';
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'fxdesk-console-'));
const dist = path.join(work, 'dist');
/** Where the screenshots go; kept after the run, for the docs. */
const shots = fs.mkdtempSync(path.join(os.tmpdir(), 'fxdesk-console-screenshots-'));
const market = { SIM_SEED: SEED, SIM_MARKET_HOURS: 'false', SIM_TICK_INTERVAL_MS: '100' };
const common = { HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...market };

type Process = ReturnType<typeof run>;
const processes = new Set<Process>();
const ports = { marketData: 0, execution: 0, account: 0, notification: 0, strategy: 0, production: 0 };
const url = (port: number) => `http://127.0.0.1:${port}`;

function start(service: string, port: number, env: Record<string, string>): Process {
  const p = run(`services/${service}/src/server.ts`, { ...common, PORT: String(port), ...env });
  processes.add(p);
  return p;
}

const marketDataEnv = () => ({ DATA_DIR: path.join(work, 'market-data'), API_KEY: KEYS.marketData });

/** The strategy, reading the other four with their keys (as the console's read-through routes do). */
function strategyEnv(dataDir: string): Record<string, string> {
  return {
    DATA_DIR: dataDir,
    MARKET_DATA_URL: url(ports.marketData),
    MARKET_DATA_API_KEY: KEYS.marketData,
    EXECUTION_URL: url(ports.execution),
    EXECUTION_API_KEY: KEYS.execution,
    ACCOUNT_URL: url(ports.account),
    ACCOUNT_API_KEY: KEYS.account,
    NOTIFICATION_URL: url(ports.notification),
    NOTIFICATION_API_KEY: KEYS.notification,
    CONSOLE_DIST_DIR: dist,
    TIMEFRAME: 'M1',
    INSTRUMENTS: INSTRUMENTS.join(','),
    MIN_CONFLUENCE: '1',
    // A tight Supertrend flips every few M1 candles, so a signal comes within a minute or so.
    SUPERTREND_MULTIPLIER: '0.3',
    // M1 ranges are small: wider stops keep them beyond the simulated terminal's stops level.
    MIN_STOP_ATR: '2',
    WARMUP_CANDLES: '120',
    CANDLE_CLOSE_DELAY_MS: '500',
    // The page and the test read more often than the spec's 60 GETs a minute, which is tested elsewhere.
    RATE_LIMIT_GET_PER_MINUTE: '100000',
    RATE_LIMIT_POST_PER_MINUTE: '1000',
  };
}

/** A link of the header's navigation. */
function nav(page: Page, name: 'Desk' | 'Activity') {
  return page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name, exact: true });
}

async function json<T>(res: Response): Promise<T> {
  return (await res.json()) as T;
}

let marketData: Process;
let browser: Browser;

beforeAll(async () => {
  const build = runNode(['node_modules/vite/bin/vite.js', 'build', 'packages/console', '--outDir', dist, '--emptyOutDir', '--logLevel', 'warn'], {});
  const built = await build.done;
  if (built.code !== 0) throw new Error(`the console did not build:\n${built.stderr}`);

  for (const name of Object.keys(ports) as (keyof typeof ports)[]) ports[name] = await freePort();
  marketData = start('market-data', ports.marketData, marketDataEnv());
  start('execution', ports.execution, {
    DATA_DIR: path.join(work, 'execution'),
    API_KEY: KEYS.execution,
    TRADING_ENABLED: 'true',
    ALLOWED_SYMBOLS: INSTRUMENTS.map((i) => i.replace('_', '')).join(','),
  });
  start('account', ports.account, { DATA_DIR: path.join(work, 'account'), INTERNAL_API_KEY: KEYS.account });
  start('notification', ports.notification, {
    DATA_DIR: path.join(work, 'notification'),
    NOTIFICATION_API_KEY: KEYS.notification,
    CHAT_APP_CHAT_IDS: '424242',
  });
  start('strategy', ports.strategy, { ...strategyEnv(path.join(work, 'strategy')), AUTO_START: 'true' });
  try {
    const ready = [ports.marketData, ports.execution, ports.account].map((p) => `${url(p)}/health/ready`);
    const live = [ports.notification, ports.strategy].map((p) => `${url(p)}/health/live`);
    await until(async () => (await Promise.all([...ready, ...live].map(answers))).every(Boolean), 40_000);
  } catch (err) {
    for (const p of processes) process.stderr.write(p.out.stderr);
    throw err;
  }
  browser = await launchBrowser();
}, 600_000);

afterAll(async () => {
  await browser?.close();
  for (const p of processes) if (p.child.exitCode === null) p.child.kill('SIGTERM');
  await Promise.all([...processes].map((p) => p.done));
  fs.rmSync(work, { recursive: true, force: true });
  process.stdout.write(`console screenshots: ${shots}\n`);
});

describe('the console in a browser', () => {
  let page: Page;
  const base = () => url(ports.strategy);
  const status = async () => json<StrategyStatus>(await fetch(`${base()}/status`));

  beforeAll(async () => {
    page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
  });

  it('shows every monitored pair with a live price on the desk', async () => {
    await page.goto(`${base()}/ui/`);
    await page.getByRole('heading', { name: 'Pairs' }).waitFor();
    for (const instrument of INSTRUMENTS) {
      await page
        .locator(`tr[data-instrument="${instrument}"] td.price`)
        .filter({ hasText: /^\d+\.\d+$/ })
        .waitFor({ timeout: 30_000 });
    }
    const shown = await page.locator('tr[data-instrument]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-instrument')));
    expect(shown.sort()).toEqual([...INSTRUMENTS].sort());
    // Live: a price moves without the page reading /pairs again (the simulated market ticks every 100 ms).
    const price = page.locator('tr[data-instrument="EUR_USD"] td.price');
    const first = await price.textContent();
    await until(async () => (await price.textContent()) !== first, 20_000);
  }, 60_000);

  it('draws the pair chart with the Supertrend, fair value gaps and POC lines from the warm-up', async () => {
    // The pair's row of the grid (a signal of the pair on the desk links to the chart too).
    await page.locator('tr[data-instrument="EUR_USD"]').getByRole('link', { name: 'EUR/USD', exact: true }).click();
    expect(new URL(page.url()).pathname).toBe('/ui/pair/EUR_USD');
    const layer = (name: string) => page.locator(`ul[aria-label="Chart layers"] li[data-layer="${name}"]`);
    await layer('candles').waitFor({ timeout: 20_000 });
    expect(Number(/^(\d+) M1 candles/.exec((await layer('candles').textContent()) ?? '')?.[1])).toBeGreaterThanOrEqual(100);
    expect(await layer('supertrend').textContent()).toMatch(/Supertrend (bullish|bearish) \d+\.\d{5}/);
    expect(Number(/Fair value gaps: (\d+)/.exec((await layer('fvg').textContent()) ?? '')?.[1])).toBeGreaterThan(0);
    expect(await layer('profile').textContent()).toMatch(/POC \d+\.\d{5} · VAH \d+\.\d{5} · VAL \d+\.\d{5}/);
    expect(await layer('stochrsi').textContent()).toMatch(/%K \d+\.\d · %D \d+\.\d/);
    // The canvas shows them: the POC's colour is on it (its line and axis label), and the Stochastic RSI has a pane of its own.
    expect(await paintedPixels(page, '.chart', '#f6c343')).toBeGreaterThan(50);
    const panes = await page
      .locator('.chart')
      .evaluate((chart) => [...chart.querySelectorAll('tr')].filter((tr) => tr.querySelector('canvas') && tr.offsetHeight > 60).length);
    expect(panes).toBeGreaterThanOrEqual(2);
  }, 40_000);

  it('stops and starts the strategy from the page', async () => {
    await nav(page, 'Desk').click();
    await page.getByRole('status', { name: 'Strategy running' }).waitFor();
    await page.getByRole('button', { name: 'Stop', exact: true }).click();
    await page.getByRole('status', { name: 'Strategy stopped' }).waitFor();
    expect((await status()).running).toBe(false);
    await page.getByRole('button', { name: 'Start', exact: true }).click();
    await page.getByRole('status', { name: 'Strategy running' }).waitFor();
    const after = await status();
    expect(after).toMatchObject({ running: true, dry_run: false });
    expect([...after.active_pairs].sort()).toEqual([...INSTRUMENTS].sort());
  }, 30_000);

  it('shows a signal as it comes, with its entry, stop and target on the chart, then its order and delivery in Activity', async () => {
    // The page read its signals once, at load; any newer row came over /events.
    await page.goto(`${base()}/ui/`);
    await page.getByRole('heading', { name: 'Latest signals' }).waitFor();
    const { signals: before } = await json<{ signals: StrategySignal[] }>(await fetch(`${base()}/signals?limit=500`));
    const known = new Set(before.map((s) => s.signal_id));
    const rows = page.locator('table[aria-label="Latest signals"] tbody tr[data-signal-id]');
    // The first new one the desk sent: a signal the risk limits refused (a position open on its pair) has no order.
    let signal: StrategySignal | undefined;
    await until(async () => {
      const ids = await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-signal-id') as string));
      const fresh = ids.filter((i) => !known.has(i));
      if (fresh.length === 0) return false;
      const { signals } = await json<{ signals: StrategySignal[] }>(await fetch(`${base()}/signals?limit=500`));
      signal = signals.find((s) => fresh.includes(s.signal_id) && s.execution.status !== 'skipped');
      return signal !== undefined;
    }, 180_000);
    if (!signal) throw new Error('no new signal was sent');
    const id = signal.signal_id;

    // Its order and announcement settle on the desk as their events arrive.
    const row = page.locator(`table[aria-label="Latest signals"] tr[data-signal-id="${id}"]`);
    await until(async () => !/pending/.test((await row.locator('td[data-label="Order"]').textContent()) ?? ''), 60_000);
    await until(async () => !/pending/.test((await row.locator('td[data-label="Announcement"]').textContent()) ?? ''), 60_000);
    await page.screenshot({ path: path.join(shots, 'console-desk.png'), fullPage: true });

    await row.getByRole('link').click();
    expect(page.url()).toContain(`/ui/pair/${signal.instrument}?tf=M1&signal=${signal.signal_id}`);
    const digits = signal.instrument.endsWith('_JPY') ? 3 : 5;
    const levels = page.locator('ul[aria-label="Chart layers"] li[data-layer="signals"]');
    await levels.filter({ hasText: `entry ${signal.entry_price.toFixed(digits)}` }).waitFor({ timeout: 20_000 });
    expect(await levels.textContent()).toContain(
      `${signal.type}: entry ${signal.entry_price.toFixed(digits)} · stop ${signal.stop_loss.toFixed(digits)} · target ${signal.take_profit.toFixed(digits)}`,
    );
    await page.getByRole('heading', { name: new RegExp(`^${signal.type} signal of`) }).waitFor();
    // The pointer off the chart, or its crosshair is in the picture.
    await page.mouse.move(0, 0);
    await page.screenshot({ path: path.join(shots, 'console-pair.png') });

    const settled = (await json<{ signals: StrategySignal[] }>(await fetch(`${base()}/signals?limit=500`))).signals.find(
      (s) => s.signal_id === id,
    ) as StrategySignal;
    await nav(page, 'Activity').click();
    await page.getByRole('tab', { name: 'Orders' }).click();
    const order = page.locator(`table[aria-label="Orders"] tr[data-signal-id="${id}"]`);
    await order.waitFor({ timeout: 20_000 });
    expect(await order.locator('td[data-label="State"]').textContent()).toContain(settled.execution.status.replace('_', ' '));
    if (settled.execution.tickets?.order) {
      expect(await order.locator('td[data-label="Tickets"]').textContent()).toContain(`order ${settled.execution.tickets.order}`);
      expect(await order.locator('td[data-label="Fill price"]').textContent()).toMatch(/\d+\.\d+/);
      expect(await order.locator('td[data-label="Retcode"]').textContent()).toMatch(/^100(08|09|10) TRADE_RETCODE_/);
    }
    await order.getByRole('link').waitFor();

    await page.getByRole('tab', { name: 'Deliveries' }).click();
    const delivery = page.locator(`table[aria-label="Deliveries"] tr[data-signal-id="${id}"]`);
    await delivery.waitFor({ timeout: 20_000 });
    expect(await delivery.locator('td[data-label="Status"]').textContent()).toMatch(/sent|delivered/);
    expect(await delivery.locator('td[data-label="Recipient"]').textContent()).toBe('424242');
    await delivery.getByRole('link').click();
    expect(page.url()).toContain(`signal=${signal.signal_id}`);
  }, 300_000);

  it('says so within seconds when the market-data service dies, and recovers when it is back', async () => {
    await nav(page, 'Desk').click();
    const banner = page.locator('[data-banner="market_data"]');
    const service = page.locator('li[data-service="market_data"]');
    await service.and(page.getByLabel('Market data: up')).waitFor({ timeout: 20_000 });

    marketData.child.kill('SIGKILL');
    await marketData.done;
    await banner.waitFor({ timeout: 15_000 });
    expect(await banner.textContent()).toContain('Market data service is down');
    expect(await banner.textContent()).toContain('Still working');
    await service.and(page.getByLabel('Market data: down')).waitFor({ timeout: 15_000 });

    marketData = start('market-data', ports.marketData, marketDataEnv());
    await banner.waitFor({ state: 'detached', timeout: 90_000 });
    await service.and(page.getByLabel('Market data: up')).waitFor({ timeout: 30_000 });
    const price = page.locator('tr[data-instrument="EUR_USD"] td.price');
    const first = await price.textContent();
    await until(async () => (await price.textContent()) !== first, 30_000);
  }, 180_000);
});

describe('the console in production', () => {
  const base = () => url(ports.production);

  beforeAll(async () => {
    start('strategy', ports.production, { ...strategyEnv(path.join(work, 'strategy-production')), NODE_ENV: 'production', CONSOLE_PASSWORD: PASSWORD });
    await until(() => answers(`${base()}/health/live`), 30_000);
  }, 40_000);

  it('asks for the password before any data, refuses a wrong one and opens the desk with the right one', async () => {
    const page = await browser.newPage();
    // localhost: the session cookie is Secure in production, which a browser keeps over plain HTTP on localhost only.
    await page.goto(`http://localhost:${ports.production}/ui/`);
    await page.getByLabel('Password').waitFor();
    for (const route of ['/console/account', '/console/services', '/console/orders', '/console/deliveries', '/events']) {
      expect((await fetch(`${base()}${route}`)).status, route).toBe(401);
    }

    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'Wrong password.' }).waitFor();

    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Strategy' }).waitFor();
    await page.getByRole('heading', { name: 'Account' }).waitFor();
    await page.getByRole('status', { name: 'Live updates on' }).waitFor();

    // The page's own session, with and without the CSRF token: a console POST without it is refused.
    const answersOf = await page.evaluate(async () => {
      const session = (await (await fetch('/console/session')).json()) as { csrf_token: string };
      const bare = await fetch('/console/stop', { method: 'POST' });
      const signed = await fetch('/console/stop', { method: 'POST', headers: { 'x-csrf-token': session.csrf_token } });
      return { bare: bare.status, signed: signed.status };
    });
    expect(answersOf.bare).toBe(403);
    expect([200, 409]).toContain(answersOf.signed);
    await page.close();
  }, 60_000);

  it("leaves spec 000's routes open as the spec has them", async () => {
    for (const route of ['/health', '/status', '/pairs', '/signals']) expect((await fetch(`${base()}${route}`)).status, route).toBe(200);
    const res = await fetch(`${base()}/start`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ dry_run: true }) });
    expect([200, 409]).toContain(res.status);
  });
});
