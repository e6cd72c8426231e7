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
  // The five services start side by side, with the browser, rather than one after the other.
  const servers = new Map<string, { port: number; process: ReturnType<typeof run> }>();
  beforeAll(async () => {
    for (const service of STACK) {
      const port = await freePort();
      const env = { PORT: String(port), HOST: '127.0.0.1', DATA_DIR: path.join(dataDir, service.name), LOG_LEVEL: 'warn' };
      servers.set(service.name, { port, process: run(`services/${service.name}/src/server.ts`, env) });
    }
    browser = await launchBrowser();
    await until(
      async () => (await Promise.all([...servers.values()].map(({ port }) => answers(`http://127.0.0.1:${port}/health/live`)))).every(Boolean),
      60_000,
    );
  }, 600_000);
  afterAll(async () => {
    await browser?.close();
    for (const { process } of servers.values()) process.child.kill('SIGTERM');
    await Promise.all([...servers.values()].map(({ process }) => process.done));
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  for (const service of STACK) {
    it(`renders the ${service.name} service's operations at /docs`, async () => {
      const { port } = servers.get(service.name)!;
      // The account service keys its API pages like every other non-health route (spec 001 B).
      const key = DEV_SECRETS[service.name]?.INTERNAL_API_KEY;
      const page = await browser.newPage(key ? { extraHTTPHeaders: { 'x-internal-api-key': key } } : {});
      await page.goto(`http://127.0.0.1:${port}/docs/`);
      await page.waitForSelector('.opblock', { timeout: 15_000 });
      const paths = await page.$$eval('.opblock-summary-path', (nodes) => nodes.map((n) => n.textContent?.replace(/\u200b/g, '').trim()));
      expect(paths).toContain('/health/live');
      expect(await page.title()).toBe('Swagger UI');
      await page.close();
    }, 40_000);
  }
});
