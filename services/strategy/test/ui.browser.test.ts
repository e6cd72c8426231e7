import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ExecutionClient } from '@fxdesk/client';
import { launchBrowser, paintedPixels, root, until } from '@fxdesk/core/testing';
import type { BacktestEquity, BacktestRequest, JournalTrade, OpenPosition } from '@fxdesk/schemas';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envelope, fakeService, type FakeAnswer, type FakeService, type RecordedRequest } from './fake-service.js';
import { harness, MONDAY_NOON, type Harness } from './helpers.js';

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

/** An open position of the strategy's orders as the execution service lists it. */
function position(ticket: string): OpenPosition {
  return {
    ticket,
    symbol: 'EURUSD',
    side: 'buy',
    volume: '0.10',
    open_price: '1.10012',
    sl: '1.09500',
    tp: '1.11000',
    profit: '12.40',
    swap: '-0.30',
    magic: 0,
    comment: 'fxdesk-strategy 3f2c8a4e',
    source: 'fxdesk-strategy',
    opened_at: '2026-01-05T12:00:01.000Z',
  };
}

const RESULT = { retcode: 10009, retcode_name: 'TRADE_RETCODE_DONE', order: '7001', deal: '8001', volume: '0.10', price: '1.10100', broker_comment: 'done' };

/** The execution service's book: the positions it holds, closed one by one or all at once. */
function book(tickets: string[]): (request: RecordedRequest) => FakeAnswer {
  const open = new Map(tickets.map((t) => [t, position(t)]));
  return (request) => {
    const key = String(request.headers['idempotency-key']);
    if (request.method === 'GET' && request.url.startsWith('/v1/positions')) return { status: 200, body: { positions: [...open.values()] } };
    if (request.url === '/v1/positions/close-all') {
      const closed = [...open.keys()].map((ticket) => ({
        ticket,
        state: 'done',
        http_status: 200,
        answer: { action_id: `${key}#${ticket}`, kind: 'close', ticket, state: 'done', result: RESULT },
      }));
      open.clear();
      return { status: 200, body: { idempotency_key: key, positions: closed } };
    }
    const close = /^\/v1\/positions\/(\d+)\/close$/.exec(request.url);
    if (close && open.delete(close[1] as string)) {
      return { status: 200, body: { action_id: key, kind: 'close', ticket: close[1], state: 'done', result: RESULT } };
    }
    return { status: 404, body: envelope('not_found', 'no such route or position') };
  };
}

describe('/ui/positions in a browser', () => {
  let browser: Browser;
  let h: Harness;
  let execution: FakeService;
  let client: ExecutionClient;
  let base: string;
  beforeAll(async () => {
    if (!fs.existsSync(path.join(root, 'packages/console/dist/index.html'))) execFileSync('npm', ['run', 'build', '-w', '@fxdesk/console'], { cwd: root });
    execution = await fakeService(book(['5001', '5002', '5003']));
    client = new ExecutionClient({ baseUrl: execution.url, apiKey: 'exec-key-123', timeoutMs: 5000 });
    h = await harness({ deps: { execution: client } });
    base = (await h.app.listen({ host: '127.0.0.1', port: 0 })).replace('127.0.0.1', 'localhost');
    browser = await launchBrowser();
  }, 600_000);
  afterAll(async () => {
    await browser?.close();
    await h?.close();
    await client?.close();
    await execution?.close();
  });

  it('reads the positions on the pair chart, lists them, closes one, flattens the rest behind a confirmation, and links the journal’s CSV', async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('pageerror', (err) => problems.push(err.message));
    // The pair's page reads the positions too, to draw their prices and stops on its chart.
    await h.app.inject({ method: 'POST', url: '/start', payload: { dry_run: true } });
    await h.advance(60_000);
    const read = page.waitForResponse((res) => new URL(res.url()).pathname === '/console/positions' && res.status() === 200);
    await page.goto(`${base}/ui/pair/EUR_USD`);
    await read;
    await page.waitForSelector('canvas', { timeout: 20_000 });
    await page.goto(`${base}/ui/positions`);
    await page.waitForSelector('tr[data-ticket="5003"]', { timeout: 20_000 });
    expect(await page.textContent('tr[data-ticket="5001"]')).toContain('1.09500');

    await page.click('button[aria-label="Close position 5001"]');
    await page.waitForSelector('tr[data-ticket="5001"]', { state: 'detached', timeout: 20_000 });
    const closes = execution.requests.filter((r) => r.url === '/v1/positions/5001/close');
    expect(closes).toHaveLength(1);
    expect(closes[0]?.headers['idempotency-key']).toMatch(/^console-[0-9a-f]{32}$/);

    await page.getByRole('button', { name: 'Flatten all' }).click();
    await page.waitForSelector('[aria-label="Confirm the flatten"]', { timeout: 10_000 });
    await page.getByRole('button', { name: 'Close them all' }).click();
    await page.waitForSelector('text=Flatten: 2 of 2 closed', { timeout: 20_000 });
    await page.waitForSelector('text=No open position.', { timeout: 20_000 });
    const flattens = execution.requests.filter((r) => r.url === '/v1/positions/close-all');
    expect(flattens).toHaveLength(1);
    expect(flattens[0]?.body).toEqual({ source: 'fxdesk-strategy' });

    await page.waitForSelector('#journal-title', { timeout: 10_000 });
    await page.getByLabel('Exit reason').selectOption('flatten');
    await page.waitForSelector('a[href$="exit_reason=flatten&format=csv"]', { timeout: 10_000 });
    expect(problems).toEqual([]);
    await page.close();
  }, 120_000);
});

const HOUR_MS = 3_600_000;

/** A paper trade of the journal on EUR_USD, entered an hour before its exit. */
function paperTrade(n: number, exitMs: number, pnl: number): JournalTrade {
  return {
    id: `paper:trade-${n}`,
    account: 'paper',
    signal_id: null,
    position: null,
    instrument: 'EUR_USD',
    side: 'LONG',
    volume_lots: 0.1,
    entry_time: new Date(exitMs - HOUR_MS).toISOString(),
    entry_price: 1.085,
    exit_time: new Date(exitMs).toISOString(),
    exit_price: 1.086,
    exit_reason: pnl > 0 ? 'target' : 'stop',
    pnl,
    commission: 0,
    swap: 0,
    r_multiple: pnl / 20,
    duration_seconds: 3600,
  };
}

describe("/ui/positions: the journal's equity beside its backtest", () => {
  let browser: Browser;
  let h: Harness;
  let base: string;
  const day = MONDAY_NOON - 12 * HOUR_MS;
  beforeAll(async () => {
    if (!fs.existsSync(path.join(root, 'packages/console/dist/index.html'))) execFileSync('npm', ['run', 'build', '-w', '@fxdesk/console'], { cwd: root });
    // The test reads the lab beside the page.
    h = await harness({ env: { RATE_LIMIT_GET_PER_MINUTE: '1000' } });
    // Three closed paper trades on the Monday morning, the first entered at 01:00.
    for (const [n, hour, pnl] of [
      [1, 2, 40],
      [2, 5, -15],
      [3, 9, 25],
    ] as const)
      await h.stores.journal.record(paperTrade(n, day + hour * HOUR_MS, pnl));
    await h.app.inject({ method: 'POST', url: '/start', payload: { dry_run: true } });
    await h.advance(60_000);
    base = await h.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchBrowser();
  }, 600_000);
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  it('draws the paper journal’s curve, runs the backtest of the same period from the page and draws its curve beside it, found again after a reload', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems: string[] = [];
    page.on('pageerror', (err) => problems.push(err.message));
    const posted: BacktestRequest[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && new URL(request.url()).pathname === '/backtests') posted.push(request.postDataJSON() as BacktestRequest);
    });
    await page.goto(`${base}/ui/positions`);
    // The journal: 0 at the period’s start, a step at each of the three exits, standing until now.
    const journal = page.locator('#comparison-caption li[data-curve="journal"][data-points="5"]');
    await journal.waitFor({ timeout: 30_000 });
    expect(await journal.textContent()).toContain('+50.00');
    expect(await page.locator('#comparison-caption li[data-curve="backtest"]').textContent()).toContain('not run yet');

    await page.getByRole('button', { name: 'Run the backtest of this period' }).click();
    await page.locator('[data-comparison-status="done"]').waitFor({ timeout: 120_000 });
    // The desk's pairs and timeframe from the day the first trade entered to the strategy's now, on its own settings.
    expect(posted).toEqual([
      {
        name: 'Journal paper since 2026-01-05',
        instruments: [...h.config.INSTRUMENTS].sort(),
        timeframe: 'M5',
        from: '2026-01-05T00:00:00.000Z',
        to: new Date(h.clock.now()).toISOString(),
        initial_balance: h.config.PAPER_BALANCE,
      },
    ]);

    // Both curves are drawn: the backtest's every point, and each curve's colour on the chart.
    const id = decodeURIComponent((await page.getByRole('link', { name: 'The backtest' }).getAttribute('href'))?.split('/').at(-1) ?? '');
    const { points } = (await h.app.inject({ url: `/backtests/${id}/equity` })).json<BacktestEquity>();
    const times = new Set(points.map((p) => Math.floor(Date.parse(p.time) / 1000)));
    await page.locator(`#comparison-caption li[data-curve="backtest"][data-points="${times.size}"]`).waitFor({ timeout: 30_000 });
    expect(times.size).toBeGreaterThan(1);
    await until(async () => (await paintedPixels(page, '.chart.comparison', '#f6a343')) > 50, 30_000);
    await until(async () => (await paintedPixels(page, '.chart.comparison', '#b388ff')) > 50, 30_000);
    expect(await page.locator('#comparison-caption li[data-curve="gap"]').textContent()).toMatch(/the journal is [\d,.]+ (ahead of|behind) it/);

    // A reload finds the same backtest in the lab rather than running another.
    await page.reload();
    await page.locator('[data-comparison-status="done"]').waitFor({ timeout: 30_000 });
    expect(await page.getByRole('link', { name: 'The backtest' }).getAttribute('href')).toBe(`/ui/lab/backtests/${id}`);
    await page.getByRole('button', { name: 'Run the backtest again up to now' }).waitFor({ timeout: 10_000 });
    expect(posted).toHaveLength(1);
    expect(problems).toEqual([]);
    await page.close();
  }, 240_000);
});
