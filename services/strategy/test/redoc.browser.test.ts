import { launchBrowser } from '@fxdesk/core/testing';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harness, type Harness } from './helpers.js';

/** /redoc in a real browser (Debian's Chromium): it renders with nothing fetched from outside this service. */
describe('GET /redoc in a browser', () => {
  let browser: Browser;
  let h: Harness;
  let base: string;
  beforeAll(async () => {
    h = await harness();
    base = await h.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchBrowser();
  }, 600_000);
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  it('renders every spec 000 operation from the local bundle, fetching nothing from another host', async () => {
    const page = await browser.newPage();
    const outside: string[] = [];
    const pageErrors: string[] = [];
    page.on('pageerror', (err) => pageErrors.push(err.message));
    page.on('console', (msg) => {
      // The decorative Redocly logo is the one thing the policy blocks (and Redoc hides it).
      if (msg.type() === 'error' && !msg.text().includes('cdn.redoc.ly/redoc/logo-mini.svg')) pageErrors.push(msg.text());
    });
    await page.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith(base) || url.startsWith('data:') || url.startsWith('blob:')) return route.continue();
      outside.push(url);
      return route.abort();
    });
    await page.goto(`${base}/redoc`);
    await page.waitForSelector('h1', { timeout: 20_000 });
    const title = await page.textContent('h1');
    expect(title).toContain('fxdesk strategy control service');
    const text = (await page.textContent('body')) ?? '';
    for (const path of ['/health', '/status', '/pairs', '/signals/{instrument}', '/start', '/stop', '/restart']) {
      expect(text).toContain(path);
    }
    expect(outside).toEqual([]);
    expect(pageErrors).toEqual([]);
    await page.close();
  }, 40_000);
});
