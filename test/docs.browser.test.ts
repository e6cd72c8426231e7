import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STACK } from '../scripts/stack.js';
import { DEV_SECRETS } from './services.js';
import { answers, freePort, launchBrowser, run, until } from '@fxdesk/core/testing';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fxdesk-docs-'));

describe('Swagger UI in a real browser', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  }, 600_000);
  afterAll(async () => {
    await browser?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  for (const service of STACK) {
    it(`renders the ${service.name} service's operations at /docs`, async () => {
      const port = await freePort();
      const server = run(`services/${service.name}/src/server.ts`, { PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn' });
      try {
        await until(() => answers(`http://127.0.0.1:${port}/health/live`), 20_000);
        // The account service keys its API pages like every other non-health route (spec 001 B).
        const key = DEV_SECRETS[service.name]?.INTERNAL_API_KEY;
        const page = await browser.newPage(key ? { extraHTTPHeaders: { 'x-internal-api-key': key } } : {});
        await page.goto(`http://127.0.0.1:${port}/docs/`);
        await page.waitForSelector('.opblock', { timeout: 15_000 });
        const paths = await page.$$eval('.opblock-summary-path', (nodes) => nodes.map((n) => n.textContent?.replace(/\u200b/g, '').trim()));
        expect(paths).toContain('/health/live');
        expect(await page.title()).toBe('Swagger UI');
        await page.close();
      } finally {
        server.child.kill('SIGTERM');
        await server.done;
      }
    }, 40_000);
  }
});
