import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { launchBrowser, root } from '@fxdesk/core/testing';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harness, type Harness } from './helpers.js';

const PASSWORD = 'correct horse battery staple';

/**
 * The console's real build, served by the strategy with its headers (the content security
 * policy above all), in Debian's Chromium: the page runs under the policy, logs in with the
 * HttpOnly cookie and opens /events with it.
 */
describe('/ui in a browser', () => {
  let browser: Browser;
  let h: Harness;
  let base: string;
  beforeAll(async () => {
    // `npm install` builds it; a checkout that skipped the install scripts builds it here.
    if (!fs.existsSync(path.join(root, 'packages/console/dist/index.html'))) execFileSync('npm', ['run', 'build', '-w', '@fxdesk/console'], { cwd: root });
    h = await harness({ env: { CONSOLE_PASSWORD: PASSWORD } });
    base = await h.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchBrowser();
  }, 600_000);
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  it('runs under its content security policy, refuses a wrong password, and after the login reads the desk live with a cookie no script can read', async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    const refusals: string[] = [];
    const outside: string[] = [];
    page.on('pageerror', (err) => problems.push(err.message));
    page.on('response', (res) => {
      if (res.status() >= 400) refusals.push(`${res.status()} ${new URL(res.url()).pathname}`);
    });
    page.on('console', (msg) => {
      // Chromium logs each refused request too; those are in `refusals`.
      if (msg.type() === 'error' && !msg.text().startsWith('Failed to load resource')) problems.push(msg.text());
    });
    await page.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith(base) || url.startsWith('data:') || url.startsWith('blob:')) return route.continue();
      outside.push(url);
      return route.abort();
    });
    const answer = await page.goto(`${base}/ui/`);
    expect(answer?.headers()['content-security-policy']).toContain("script-src 'self'");
    await page.waitForSelector('#login-title', { timeout: 20_000 });

    await page.fill('#password', 'not the password at all');
    await page.click('button[type=submit]');
    await page.waitForSelector('#login-error', { timeout: 10_000 });
    expect(await page.textContent('#login-error')).toContain('Wrong password');

    await page.fill('#password', PASSWORD);
    await page.click('button[type=submit]');
    await page.waitForSelector('.live.on', { timeout: 20_000 });
    expect(await page.evaluate(() => document.cookie)).not.toContain('fxdesk_console');
    const cookies = await page.context().cookies();
    expect(cookies.find((c) => c.name === 'fxdesk_console')).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
    expect(h.events.openStreams().length).toBeGreaterThan(0);

    expect(outside).toEqual([]);
    expect(problems).toEqual([]);
    // The wrong password, and the account the desk has no ACCOUNT_URL for (the page says so).
    expect([...new Set(refusals)]).toEqual(['401 /console/login', '404 /console/account']);
    await page.close();
  }, 60_000);
});
