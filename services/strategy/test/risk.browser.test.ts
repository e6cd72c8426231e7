import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { launchBrowser, root } from '@fxdesk/core/testing';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harness, MONDAY_NOON, type Harness } from './helpers.js';

/** The desk page's Risk panel in Debian's Chromium, on the console's real build served by the strategy. */
describe('/ui risk panel in a browser', () => {
  let browser: Browser;
  let h: Harness;
  let base: string;
  beforeAll(async () => {
    if (!fs.existsSync(path.join(root, 'packages/console/dist/index.html'))) execFileSync('npm', ['run', 'build', '-w', '@fxdesk/console'], { cwd: root });
    h = await harness({ env: { DAILY_LOSS_LIMIT: '3', MAX_OPEN_TRADES: '5' } });
    base = await h.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchBrowser();
  }, 600_000);
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  it('shows each limit beside its use and the halt with its reason, and resumes the account behind a confirmation', async () => {
    const { risk } = h.deps;
    await risk.markEquity('paper', MONDAY_NOON - 60_000, 10_000);
    await risk.markEquity('paper', MONDAY_NOON, 9_600);
    await risk.whenIdle();
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('pageerror', (err) => problems.push(err.message));
    await page.goto(`${base}/ui/`);
    const paper = page.locator('.risk-account[data-account="paper"]');
    await paper.locator('.badge', { hasText: 'halted' }).waitFor({ timeout: 20_000 });
    const text = await paper.textContent();
    expect(text).toContain('by the daily loss limit');
    expect(text).toContain('lost 400.00 of the day');
    expect(text).toContain('400.00 (4.00 %)');
    expect(text).toContain('/ 3 %');
    expect(text).toMatch(/Open trades0 \/ 5/);
    expect(await page.locator('.risk-account[data-account="live"] .badge').textContent()).toBe('trading');

    await page.getByRole('button', { name: 'Resume the paper account' }).click();
    await page.getByRole('group', { name: 'Confirm the resume of the paper account' }).waitFor();
    expect(risk.haltOf('paper')).not.toBeNull();
    await page.getByRole('button', { name: 'Resume trading' }).click();
    await paper.locator('.badge', { hasText: 'trading' }).waitFor({ timeout: 20_000 });
    expect(risk.haltOf('paper')).toBeNull();
    expect(await paper.locator('.halt').count()).toBe(0);
    expect(problems).toEqual([]);
    await page.close();
  }, 60_000);
});
