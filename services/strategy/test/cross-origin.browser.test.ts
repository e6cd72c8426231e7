import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { answers, freePort, launchBrowser, run, until } from '@fxdesk/core/testing';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * Issue 21: a web page of another origin must not drive the strategy. The strategy runs as a
 * real process (AUTO_START off, so it is stopped), a page is served from another port of
 * 127.0.0.1 (another origin), and real Chromium sends from it what any page can send without a
 * preflight: a bodyless no-cors fetch, a text/plain fetch with a JSON body, and an auto-submitted
 * form. The same bodyless POST without an Origin (a script's) does start it.
 */

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fxdesk-cross-origin-'));

/** A form that submits itself on load: text/plain, so the body reads as JSON (`{"dry_run":false,"x":"="}`). */
const formPage = (action: string) => `<!doctype html>
<form method="post" enctype="text/plain" action="${action}"><input name='{"dry_run":false,"x":"' value='"}'></form>
<script>document.forms[0].submit()</script>`;

describe('the strategy and a page of another origin, in Chromium', () => {
  let strategy: ReturnType<typeof run>;
  let base: string;
  let attacker: http.Server;
  let attackerBase: string;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    strategy = run('services/strategy/src/server.ts', {
      HOST: '127.0.0.1',
      PORT: String(port),
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      AUTO_START: 'false',
      INSTRUMENTS: 'EUR_USD',
      SIM_MARKET_HOURS: 'false',
    });
    attacker = http.createServer((req, res) => {
      const target = new URL(req.url ?? '/', 'http://x').searchParams.get('action');
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(target ? formPage(`${base}${target}`) : '<!doctype html><title>another origin</title>');
    });
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
    attackerBase = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}`;
    browser = await launchBrowser();
    page = await browser.newPage();
    // A busy machine: the page's navigations and the strategy's answers may take a while.
    page.setDefaultTimeout(60_000);
    await until(() => answers(`${base}/health/live`), 240_000);
  }, 600_000);

  afterAll(async () => {
    await browser?.close();
    strategy?.child.kill('SIGTERM');
    await strategy?.done;
    await new Promise((resolve) => attacker?.close(resolve));
    fs.rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  const running = async () => ((await (await fetch(`${base}/status`)).json()) as { running: boolean }).running;

  /** Runs `fetch(base + route, init)` in the page of the other origin; answers the status the strategy sent (the page itself sees an opaque answer). */
  async function fetchFromOtherOrigin(route: string, init: RequestInit): Promise<number> {
    await page.goto(attackerBase);
    const answered = page.waitForResponse(`${base}${route}`);
    await page.evaluate(async ({ url, init }) => void (await fetch(url, init).catch(() => undefined)), { url: `${base}${route}`, init });
    return (await answered).status();
  }

  /** Loads the other origin's page whose form posts itself to `route`; answers the status of the post. */
  async function formFromOtherOrigin(route: string): Promise<number> {
    const [answer] = await Promise.all([page.waitForResponse(`${base}${route}`), page.goto(`${attackerBase}/?action=${encodeURIComponent(route)}`)]);
    return answer.status();
  }

  it('does not start on a bodyless no-cors POST /start from the page', async () => {
    expect(await running()).toBe(false);
    expect(await fetchFromOtherOrigin('/start', { method: 'POST', mode: 'no-cors' })).toBe(403);
    expect(await running()).toBe(false);
  }, 120_000);

  it('does not start on a text/plain POST /start with {"dry_run":false} from the page', async () => {
    const status = await fetchFromOtherOrigin('/start', {
      method: 'POST',
      mode: 'no-cors',
      headers: { 'content-type': 'text/plain' },
      body: '{"dry_run":false}',
    });
    expect(status).toBe(403);
    expect(await running()).toBe(false);
  }, 120_000);

  it('does not start on a form the page submits by itself', async () => {
    expect(await formFromOtherOrigin('/start')).toBe(403);
    expect(await running()).toBe(false);
  }, 120_000);

  it('starts live on the same bodyless POST without an Origin, as a script sends it', async () => {
    const res = await fetch(`${base}/start`, { method: 'POST' });
    expect(res.status).toBe(200);
    expect(await running()).toBe(true);
    expect(((await (await fetch(`${base}/status`)).json()) as { dry_run: boolean }).dry_run).toBe(false);
  }, 120_000);

  it('keeps running through a no-cors POST /stop, a form POST /stop and a no-cors POST /restart from the page', async () => {
    expect(await fetchFromOtherOrigin('/stop', { method: 'POST', mode: 'no-cors' })).toBe(403);
    expect(await formFromOtherOrigin('/stop')).toBe(403);
    expect(await fetchFromOtherOrigin('/restart', { method: 'POST', mode: 'no-cors' })).toBe(403);
    expect(await running()).toBe(true);
  }, 120_000);
});
