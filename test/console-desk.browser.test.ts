import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { StrategyStatus } from '@fxdesk/schemas';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answers, freePort, launchBrowser, run, runNode, until } from '@fxdesk/core/testing';

/**
 * The desk page in Chromium against a real strategy process (its own simulated market, open all
 * week): how it reads the desk (its own budget, whole snapshots, a 429 retried by itself) and what
 * it shows after a stop and a restart of the service. The console is built from its sources first.
 */

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'fxdesk-console-desk-'));
const dist = path.join(work, 'dist');
const dataDir = path.join(work, 'strategy');
const INSTRUMENTS = ['EUR_USD', 'GBP_USD'];
const env = {
  HOST: '127.0.0.1',
  LOG_LEVEL: 'warn',
  SIM_SEED: 'console-desk',
  SIM_MARKET_HOURS: 'false',
  DATA_DIR: dataDir,
  CONSOLE_DIST_DIR: dist,
  INSTRUMENTS: INSTRUMENTS.join(','),
  AUTO_START: 'true',
};

let port = 0;
let strategy: ReturnType<typeof run>;
let browser: Browser;
let page: Page;
const base = () => `http://127.0.0.1:${port}`;

async function startStrategy(): Promise<void> {
  strategy = run('services/strategy/src/server.ts', { ...env, PORT: String(port) });
  await until(() => answers(`${base()}/health/live`), 120_000);
}

/** The status record, read through the console's copy: the first test spends spec 000's GETs on purpose. */
async function status(): Promise<StrategyStatus> {
  return (await (await fetch(`${base()}/console/status`)).json()) as StrategyStatus;
}

/** The desk, once it shows both pairs with a price. */
async function openDesk(): Promise<void> {
  await page.goto(`${base()}/ui/`);
  for (const instrument of INSTRUMENTS) {
    await page
      .locator(`tr[data-instrument="${instrument}"] td.price`)
      .filter({ hasText: /^\d+\.\d+$/ })
      .waitFor({ timeout: 60_000 });
  }
}

beforeAll(async () => {
  const built = await runNode(['node_modules/vite/bin/vite.js', 'build', 'packages/console', '--outDir', dist, '--emptyOutDir', '--logLevel', 'warn'], {}).done;
  if (built.code !== 0) throw new Error(`the console did not build:\n${built.stderr}`);
  port = await freePort();
  await startStrategy();
  await until(async () => (await status()).running, 60_000);
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
}, 600_000);

afterAll(async () => {
  await browser?.close();
  if (strategy && strategy.child.exitCode === null) strategy.child.kill('SIGTERM');
  await strategy?.done;
  fs.rmSync(work, { recursive: true, force: true });
});

describe('the desk page', () => {
  it("reads the desk on a budget of its own: its reloads leave spec 000's GETs alone, and a script that spent them leaves the desk whole", async () => {
    const first = await fetch(`${base()}/status`);
    const remaining = Number(first.headers.get('x-ratelimit-remaining'));
    for (let i = 0; i < 3; i++) await openDesk();
    const after = await fetch(`${base()}/status`);
    // One GET of its own since (or a fresh window): none of the page's reads.
    expect(Number(after.headers.get('x-ratelimit-remaining'))).toBeGreaterThanOrEqual(remaining - 1);

    // A script on the same machine spends the 60 GETs a minute of spec 000.
    let spent = false;
    for (let i = 0; i < 70 && !spent; i++) spent = (await fetch(`${base()}/pairs`)).status === 429;
    expect(spent).toBe(true);
    await openDesk();
    await page.getByRole('status', { name: 'Strategy running' }).waitFor();
    expect(await page.locator('[data-banner="load"]').count()).toBe(0);
    // Every pair's distance to its POC came with the snapshot.
    for (const instrument of INSTRUMENTS) {
      expect(await page.locator(`tr[data-instrument="${instrument}"] td[data-label="To POC"]`).textContent()).toMatch(/\d/);
    }
  }, 240_000);

  it('shows no desk assembled from a read that partly failed, and reads it again by itself after the Retry-After of a 429', async () => {
    let refused = 0;
    await page.route('**/console/signals?*', async (route) => {
      if (refused > 0) return route.continue();
      refused += 1;
      await route.fulfill({
        status: 429,
        headers: { 'content-type': 'application/json', 'retry-after': '3' },
        body: JSON.stringify({ error: true, code: 'RATE_LIMITED', message: 'more than 600 console reads in a minute', timestamp: new Date().toISOString() }),
      });
    });
    try {
      await page.goto(`${base()}/ui/`);
      const banner = page.locator('[data-banner="load"]');
      await banner.waitFor({ timeout: 30_000 });
      expect(await banner.textContent()).toMatch(/Reading it again (in \d s|now)/);
      // The status and the pairs were read, the signals were not: none of it is shown as the desk.
      expect(await page.getByText('Signals today').count()).toBe(0);
      expect(await page.getByText(/^No signal yet/).count()).toBe(0);
      expect(await page.locator('tr[data-instrument]').count()).toBe(0);
      // No Retry pressed: the desk comes by itself once the Retry-After has passed.
      await page.getByRole('heading', { name: 'Latest signals' }).waitFor({ timeout: 30_000 });
      await banner.waitFor({ state: 'detached', timeout: 10_000 });
      expect(refused).toBe(1);
    } finally {
      await page.unroute('**/console/signals?*');
    }
  }, 120_000);

  it("after a stop and a restart of the service, shows the last run's mode and why it is idle, and starts it again in that mode", async () => {
    expect(await status()).toMatchObject({ running: true, dry_run: false });
    expect((await fetch(`${base()}/stop`, { method: 'POST' })).status).toBe(200);
    strategy.child.kill('SIGTERM');
    expect((await strategy.done).code).toBe(0);
    await startStrategy();

    await page.goto(`${base()}/ui/`);
    await page.getByRole('status', { name: 'Strategy stopped' }).waitFor({ timeout: 30_000 });
    expect(await page.locator('dd[data-fact="mode"]').textContent()).toBe('live orders, in the last run');
    expect(await page.locator('[data-idle="stopped"]').textContent()).toMatch(/^Stopped on .* it stays stopped across restarts of the service until Start\.$/);
    const dryRun = page.getByRole('switch', { name: 'Dry run (paper trading)' });
    expect(await dryRun.isChecked()).toBe(false);

    await page.getByRole('button', { name: 'Start', exact: true }).click();
    await page.getByRole('status', { name: 'Strategy running' }).waitFor({ timeout: 30_000 });
    expect(await status()).toMatchObject({ running: true, dry_run: false, idle: null });
  }, 300_000);
});
