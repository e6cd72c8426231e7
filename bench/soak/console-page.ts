import type { Browser } from 'playwright-core';
import { answers } from '@fxdesk/core/testing';

export interface ConsolePage {
  /** `/ui/`, or `/docs/` while the console is not built. */
  path: string;
  /** What went wrong in the page (errors, failed requests, answers ≥ 400), by count. */
  issues: Map<string, number>;
  /** Stops counting (a closing page fails its open requests) and closes it. */
  close(): Promise<void>;
}

/** Opens the strategy's console, as a trader leaves it open, and watches it. */
export async function openConsolePage(browser: Browser, strategy: string): Promise<ConsolePage> {
  const page = await browser.newPage();
  const issues = new Map<string, number>();
  let closing = false;
  const note = (issue: string) => {
    if (!closing) issues.set(issue, (issues.get(issue) ?? 0) + 1);
  };
  page.on('pageerror', (err) => note(`page error: ${err.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') note(`console error: ${message.text()}`);
  });
  page.on('response', (res) => {
    if (res.status() >= 400) note(`${res.status()} ${new URL(res.url()).pathname}`);
  });
  page.on('requestfailed', (req) => note(`failed ${new URL(req.url()).pathname}: ${req.failure()?.errorText}`));
  const path = (await answers(`${strategy}/ui/`)) ? '/ui/' : '/docs/';
  await page.goto(`${strategy}${path}`, { waitUntil: 'load' });
  return {
    path,
    issues,
    close: async () => {
      closing = true;
      await page.close();
    },
  };
}
