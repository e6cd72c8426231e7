import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ExecutionClient } from '@fxdesk/client';
import { JournalTradeSchema, type ActionRecord, type JournalPage, type JournalTrade, type OpenPosition, type SignalResult } from '@fxdesk/schemas';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answers, freePort, launchBrowser, run, runNode, until } from '@fxdesk/core/testing';

/**
 * Issue 23's "Done when", in Chromium against the real services: positions opened on the
 * execution service's simulated terminal, one closed from the console's Positions page, the rest
 * flattened there, then the venue's book and action records, and every position in the journal
 * table of the page and in the CSV it downloads, with its side, volume and exit reason. The
 * console is built from its sources first and asks for its password.
 */

const SEED = 'console-positions';
const KEY = 'exec-positions-key-1';
const PASSWORD = 'positions-desk-password';
const SOURCE = 'fxdesk-strategy';
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'fxdesk-console-positions-'));
const dist = path.join(work, 'dist');
const market = { SIM_SEED: SEED, SIM_MARKET_HOURS: 'false' };

/**
 * The positions, opened by POSTing signals to the execution service under the strategy's
 * SIGNAL_SOURCE, so their order comments make them the strategy's, as its own orders are. A
 * started strategy would open them at its own pace (a signal when the indicators align) and its
 * exit rules could close them; these are opened now, a known number with known sides and volumes.
 * No stop or target: the market cannot close one before the console does.
 */
const OPENS = [
  { symbol: 'EURUSD', direction: 'buy', volume: '0.10' },
  { symbol: 'GBPUSD', direction: 'sell', volume: '0.20' },
  { symbol: 'USDJPY', direction: 'buy', volume: '0.30' },
  { symbol: 'EURUSD', direction: 'sell', volume: '0.05' },
] as const;

type Process = ReturnType<typeof run>;
const processes = new Set<Process>();
const ports = { execution: 0, strategy: 0 };
const url = (port: number) => `http://127.0.0.1:${port}`;
const base = () => url(ports.strategy);
let browser: Browser;
let execution: ExecutionClient;

function start(service: string, port: number, env: Record<string, string>): void {
  processes.add(run(`services/${service}/src/server.ts`, { HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...market, PORT: String(port), ...env }));
}

beforeAll(async () => {
  const built = await runNode(['node_modules/vite/bin/vite.js', 'build', 'packages/console', '--outDir', dist, '--emptyOutDir', '--logLevel', 'warn'], {}).done;
  if (built.code !== 0) throw new Error(`the console did not build:\n${built.stderr}`);

  ports.execution = await freePort();
  ports.strategy = await freePort();
  start('execution', ports.execution, { DATA_DIR: path.join(work, 'execution'), API_KEY: KEY, TRADING_ENABLED: 'true' });
  start('strategy', ports.strategy, {
    DATA_DIR: path.join(work, 'strategy'),
    CONSOLE_DIST_DIR: dist,
    CONSOLE_PASSWORD: PASSWORD,
    EXECUTION_URL: url(ports.execution),
    EXECUTION_API_KEY: KEY,
    SIGNAL_SOURCE: SOURCE,
    // The shortest the setting takes: the closes are journaled within seconds.
    LIVE_JOURNAL_SYNC_SECONDS: '5',
    // The test reads the journal beside the page until the closes are in it.
    CONSOLE_READS_PER_MINUTE: '100000',
  });
  try {
    await until(async () => (await answers(`${url(ports.execution)}/health/ready`)) && (await answers(`${base()}/health/live`)), 120_000);
  } catch (err) {
    for (const p of processes) process.stderr.write(p.out.stderr);
    throw err;
  }
  execution = new ExecutionClient({ baseUrl: url(ports.execution), apiKey: KEY, timeoutMs: 30_000 });
  browser = await launchBrowser();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await execution?.close();
  for (const p of processes) if (p.child.exitCode === null) p.child.kill('SIGTERM');
  await Promise.all([...processes].map((p) => p.done));
  fs.rmSync(work, { recursive: true, force: true });
});

/** Each opened position: the signal's answer and the position it opened, as the venue lists it. */
interface Opened {
  open: (typeof OPENS)[number];
  filled: SignalResult;
  position: OpenPosition;
}

async function openPositions(): Promise<Opened[]> {
  const filled: SignalResult[] = [];
  for (const open of OPENS) {
    const { result } = await execution.submitSignal({
      signal_id: randomUUID(),
      occurred_at: new Date().toISOString(),
      execution_type: 'market',
      source: SOURCE,
      ...open,
    });
    expect(result.state, JSON.stringify(result)).toBe('filled');
    filled.push(result);
  }
  const { positions } = await execution.positions({ source: SOURCE });
  return OPENS.map((open, i) => {
    const position = positions.find((p) => p.ticket === filled[i]?.tickets.position);
    if (!position) throw new Error(`the venue lists no position for ${JSON.stringify(filled[i])}`);
    return { open, filled: filled[i] as SignalResult, position };
  });
}

async function logIn(page: Page): Promise<void> {
  await page.goto(`${base()}/ui/positions`);
  await page.locator('#password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Positions', level: 1 }).waitFor({ timeout: 30_000 });
}

/** The Idempotency-Key the page sent with each of its actions, by path. */
function actionKeys(page: Page): Map<string, string> {
  const keys = new Map<string, string>();
  page.on('request', (request) => {
    const key = request.headers()['idempotency-key'];
    if (request.method() === 'POST' && key !== undefined) keys.set(new URL(request.url()).pathname, key);
  });
  return keys;
}

/** The live journal as the console reads it (with the page's session cookie). */
async function liveJournal(context: BrowserContext): Promise<JournalTrade[]> {
  const res = await context.request.get(`${base()}/console/trades?account=live&limit=500`);
  if (!res.ok()) throw new Error(`/console/trades: ${res.status()} ${await res.text()}`);
  return ((await res.json()) as JournalPage).trades;
}

/** The records of GET /v1/actions, every page. */
async function allActions(): Promise<ActionRecord[]> {
  const actions: ActionRecord[] = [];
  let cursor: string | undefined;
  do {
    const page = await execution.actions({ limit: 500, cursor });
    actions.push(...page.actions);
    cursor = page.next_cursor ?? undefined;
  } while (cursor !== undefined);
  return actions;
}

/** A position's P/L from its deals at the venue: profit, commission and swap, in cents. */
async function dealsPnlCents(ticket: string): Promise<number> {
  const to = new Date(Date.now() + 60_000);
  const { deals } = await execution.deals({ position: ticket, from: new Date(to.getTime() - 86_400_000).toISOString(), to: to.toISOString(), limit: 500 });
  expect(deals.map((d) => d.entry)).toEqual(['in', 'out']);
  return deals.reduce((cents, d) => cents + Math.round(Number(d.profit) * 100) + Math.round(Number(d.commission) * 100) + Math.round(Number(d.swap) * 100), 0);
}

/** RFC 4180 lines (CRLF) of simple fields: none of the journal's values holds a comma, a quote or a line break. */
function csvRows(text: string): string[][] {
  expect(text.endsWith('\r\n')).toBe(true);
  expect(text).not.toMatch(/"/);
  return text
    .slice(0, -2)
    .split('\r\n')
    .map((line) => line.split(','));
}

describe('the Positions page on the simulated terminal', () => {
  it('closes one position and flattens the rest from the console, and finds each in the journal and its CSV with its side, volume and reason', async () => {
    const opened = await openPositions();
    const [single, ...rest] = opened as [Opened, ...Opened[]];

    const context = await browser.newContext({ viewport: { width: 1360, height: 900 } });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (err) => problems.push(err.message));
    const keys = actionKeys(page);
    await logIn(page);

    // The venue's positions, listed by the page.
    const table = page.locator('table[aria-label="Open positions"]');
    for (const { position } of opened) await table.locator(`tr[data-ticket="${position.ticket}"]`).waitFor({ timeout: 30_000 });
    expect(await table.locator('tbody tr').count()).toBe(opened.length);
    for (const { open, position } of opened) {
      const row = table.locator(`tr[data-ticket="${position.ticket}"]`);
      expect(await row.locator('td[data-label="Symbol"]').textContent()).toBe(open.symbol);
      expect(await row.locator('td[data-label="Side"]').textContent()).toBe(open.direction);
      expect(await row.locator('td[data-label="Volume"]').textContent()).toBe(open.volume);
    }

    // One closed with its own button.
    await page.getByRole('button', { name: `Close position ${single.position.ticket}`, exact: true }).click();
    await table.locator(`tr[data-ticket="${single.position.ticket}"]`).waitFor({ state: 'detached', timeout: 30_000 });
    for (const { position } of rest) expect(await table.locator(`tr[data-ticket="${position.ticket}"]`).count()).toBe(1);

    // The rest flattened, behind the confirmation.
    await page.getByRole('button', { name: 'Flatten all', exact: true }).click();
    await page.getByRole('group', { name: 'Confirm the flatten' }).waitFor({ timeout: 10_000 });
    await page.getByRole('button', { name: 'Close them all', exact: true }).click();
    await page.getByText(`Flatten: ${rest.length} of ${rest.length} closed`, { exact: true }).waitFor({ timeout: 30_000 });
    await page.getByText('No open position.', { exact: true }).waitFor({ timeout: 30_000 });

    // The venue holds nothing, and recorded one close and one flatten (its plan and a close per position) under the page's keys.
    expect((await execution.positions()).positions).toEqual([]);
    const closeKey = keys.get(`/console/positions/${single.position.ticket}/close`);
    const flattenKey = keys.get('/console/positions/close-all');
    expect(closeKey).toMatch(/^console-[0-9a-f]{32}$/);
    expect(flattenKey).toMatch(/^console-[0-9a-f]{32}$/);
    const actions = await allActions();
    const summary = (a: ActionRecord) => ({ action_id: a.action_id, idempotency_key: a.idempotency_key, kind: a.kind, ticket: a.ticket, state: a.state });
    expect(actions.map(summary).sort((a, b) => a.action_id.localeCompare(b.action_id))).toEqual(
      [
        { action_id: closeKey, idempotency_key: closeKey, kind: 'close', ticket: single.position.ticket, state: 'done' },
        { action_id: flattenKey, idempotency_key: flattenKey, kind: 'close_all', ticket: '', state: 'done' },
        ...rest.map(({ position }) => ({
          action_id: `${flattenKey}#${position.ticket}`,
          idempotency_key: flattenKey,
          kind: 'close',
          ticket: position.ticket,
          state: 'done',
        })),
      ].sort((a, b) => String(a.action_id).localeCompare(String(b.action_id))),
    );
    expect(actions.find((a) => a.kind === 'close_all')?.request).toEqual({ source: SOURCE, tickets: rest.map(({ position }) => position.ticket) });
    const closedAt = new Map(actions.filter((a) => a.kind === 'close').map((a) => [a.ticket, a.result?.price]));

    // The journal: every position once, as the venue traded it, with the reason of its close.
    let journal: JournalTrade[] = [];
    await until(async () => (journal = await liveJournal(context)).length >= opened.length, 120_000);
    expect(journal).toHaveLength(opened.length);
    for (const { open, filled, position } of opened) {
      const trade = journal.find((t) => t.position === position.ticket);
      expect(trade, position.ticket).toEqual({
        id: `live:${position.ticket}`,
        account: 'live',
        signal_id: null,
        position: position.ticket,
        instrument: `${open.symbol.slice(0, 3)}_${open.symbol.slice(3)}`,
        side: open.direction === 'buy' ? 'LONG' : 'SHORT',
        volume_lots: Number(open.volume),
        entry_time: position.opened_at,
        entry_price: Number(filled.result.price),
        exit_time: expect.any(String),
        exit_price: Number(closedAt.get(position.ticket)),
        exit_reason: position === single.position ? 'manual' : 'flatten',
        pnl: (await dealsPnlCents(position.ticket)) / 100,
        commission: 0,
        swap: 0,
        r_multiple: null,
        duration_seconds: expect.any(Number),
      });
    }

    // The journal table of the page (read when the page opens): every position, with its reason.
    await page.reload();
    const rows = page.locator('table[aria-label="Journal"] tbody tr');
    const journalRow = (ticket: string) => page.locator(`table[aria-label="Journal"] tr[data-trade-id="live:${ticket}"]`);
    for (const { position } of opened) await journalRow(position.ticket).waitFor({ timeout: 30_000 });
    expect(await rows.count()).toBe(opened.length);
    for (const { open, position } of opened) {
      const row = journalRow(position.ticket);
      const cell = (label: string) => row.locator(`td[data-label="${label}"]`).textContent();
      expect(await cell('Account')).toBe('live');
      expect(await cell('Instrument')).toBe(`${open.symbol.slice(0, 3)}/${open.symbol.slice(3)}`);
      expect(await cell('Side')).toBe(open.direction === 'buy' ? 'LONG' : 'SHORT');
      expect(await cell('Lots')).toBe(String(Number(open.volume)));
      expect(await cell('Reason')).toBe(position === single.position ? 'manual' : 'flatten');
    }

    // The CSV the page downloads: the columns of the JSON trade, a line per trade, the same values.
    const [download] = await Promise.all([page.waitForEvent('download', { timeout: 30_000 }), page.getByRole('link', { name: 'Download CSV' }).click()]);
    expect(download.suggestedFilename()).toBe('fxdesk-trades.csv');
    const [header, ...lines] = csvRows(fs.readFileSync(await download.path(), 'utf8'));
    const columns = Object.keys(JournalTradeSchema.shape) as (keyof JournalTrade)[];
    expect(header).toEqual(columns);
    expect(lines).toHaveLength(opened.length);
    const csv = lines.map((line) => Object.fromEntries(columns.map((c, i) => [c, line[i]])));
    for (const { open, position } of opened) {
      const trade = journal.find((t) => t.position === position.ticket) as JournalTrade;
      const line = csv.find((l) => l.position === position.ticket);
      expect(line, position.ticket).toEqual(Object.fromEntries(columns.map((c) => [c, trade[c] === null ? '' : String(trade[c])])));
      expect(line).toMatchObject({
        side: open.direction === 'buy' ? 'LONG' : 'SHORT',
        volume_lots: String(Number(open.volume)),
        exit_reason: position === single.position ? 'manual' : 'flatten',
      });
    }
    expect(problems).toEqual([]);
    await context.close();
  }, 300_000);
});
