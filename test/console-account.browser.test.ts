import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ExecutionClient } from '@fxdesk/client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answers, freePort, launchBrowser, run, runNode, until } from '@fxdesk/core/testing';
import { formatMoney } from '../packages/console/src/format.js';

/**
 * Issue 25's "the simulated venue is one account", in Chromium against the real services: the
 * execution service (its simulated terminal), the account service pointed at it as the stack
 * points it, and the strategy serving the console. A position opened on the terminal under the
 * strategy's source is counted in the desk's Account panel, at the terminal's balance, and is
 * gone from it once closed.
 */

const KEYS = { execution: 'exec-account-panel-1', account: 'account-panel-key-1' };
const PASSWORD = 'account-panel-password';
const SOURCE = 'fxdesk-strategy';
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'fxdesk-console-account-'));
const dist = path.join(work, 'dist');
const market = { SIM_SEED: 'console-account', SIM_MARKET_HOURS: 'false' };

type Process = ReturnType<typeof run>;
const processes = new Set<Process>();
const ports = { execution: 0, account: 0, strategy: 0 };
const url = (port: number) => `http://127.0.0.1:${port}`;
let browser: Browser;
let execution: ExecutionClient;

function start(service: string, port: number, env: Record<string, string>): void {
  const dataDir = path.join(work, service);
  processes.add(run(`services/${service}/src/server.ts`, { HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...market, DATA_DIR: dataDir, PORT: String(port), ...env }));
}

beforeAll(async () => {
  const built = await runNode(['node_modules/vite/bin/vite.js', 'build', 'packages/console', '--outDir', dist, '--emptyOutDir', '--logLevel', 'warn'], {}).done;
  if (built.code !== 0) throw new Error(`the console did not build:\n${built.stderr}`);

  ports.execution = await freePort();
  ports.account = await freePort();
  ports.strategy = await freePort();
  start('execution', ports.execution, { API_KEY: KEYS.execution, TRADING_ENABLED: 'true' });
  start('account', ports.account, { INTERNAL_API_KEY: KEYS.account, EXECUTION_URL: url(ports.execution), EXECUTION_API_KEY: KEYS.execution });
  start('strategy', ports.strategy, {
    CONSOLE_DIST_DIR: dist,
    CONSOLE_PASSWORD: PASSWORD,
    EXECUTION_URL: url(ports.execution),
    EXECUTION_API_KEY: KEYS.execution,
    ACCOUNT_URL: url(ports.account),
    ACCOUNT_API_KEY: KEYS.account,
    // Every read of the panel asks the account service.
    ACCOUNT_REFRESH_SECONDS: '0',
    SIGNAL_SOURCE: SOURCE,
  });
  try {
    await until(
      async () =>
        (await Promise.all([ports.execution, ports.account].map((p) => answers(`${url(p)}/health/ready`)))).every(Boolean) &&
        answers(`${url(ports.strategy)}/health/live`),
      120_000,
    );
  } catch (err) {
    for (const p of processes) process.stderr.write(p.out.stderr);
    throw err;
  }
  execution = new ExecutionClient({ baseUrl: url(ports.execution), apiKey: KEYS.execution, timeoutMs: 30_000 });
  browser = await launchBrowser();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await execution?.close();
  for (const p of processes) if (p.child.exitCode === null) p.child.kill('SIGTERM');
  await Promise.all([...processes].map((p) => p.done));
  fs.rmSync(work, { recursive: true, force: true });
});

async function logIn(page: Page): Promise<void> {
  await page.goto(`${url(ports.strategy)}/ui/`);
  await page.locator('#password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** The Account panel once it shows the account service's read with `positions` open. */
async function panelWith(page: Page, positions: number): Promise<string> {
  const panel = page.locator('section.account');
  await panel.getByText(`${positions} open positions`).waitFor({ timeout: 30_000 });
  return (await panel.textContent()) ?? '';
}

describe('the Account panel on the simulated venue', () => {
  it('counts a position opened on the execution service’s terminal, and drops it once closed', async () => {
    const { result } = await execution.submitSignal({
      signal_id: randomUUID(),
      occurred_at: new Date().toISOString(),
      execution_type: 'market',
      symbol: 'EURUSD',
      direction: 'buy',
      volume: '0.10',
      source: SOURCE,
    });
    expect(result.state).toBe('filled');
    const page = await browser.newPage();
    try {
      await logIn(page);
      const open = await panelWith(page, 1);
      expect(open).toContain('Account execution (Execution terminal)');
      const { balance, currency } = await execution.account();
      expect(open).toContain(`Balance${formatMoney(balance, currency)}`);

      await execution.closePosition(result.tickets.position as string, `panel-close-${randomUUID()}`);
      await page.reload();
      expect(await panelWith(page, 0)).toContain('Account execution');
    } finally {
      await page.close();
    }
  });
});
