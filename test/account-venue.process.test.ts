import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ExecutionClient } from '@fxdesk/client';
import { answers, freePort, run, until } from '@fxdesk/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceEnv, type Env } from '../scripts/stack-env.js';
import { stackService } from '../scripts/stack.js';

/**
 * The simulated venue is one account: the execution and account services as real processes,
 * each given the environment `npm start` gives it (scripts/stack-env.ts), on free ports. An
 * order sent through the execution service, under the strategy's source as the strategy sends one, is a position in the
 * account service's details, and is gone from them once closed.
 */

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fxdesk-account-venue-'));
const KEYS = { EXECUTION_API_KEY: 'exec-venue-key-1', INTERNAL_API_KEY: 'account-venue-key-1' };

type Process = ReturnType<typeof run>;
const processes: Process[] = [];

function definedOf(env: Env): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
}

describe('the simulated venue in the stack', () => {
  let base: Env;
  let execution: ExecutionClient;
  const account = (route: string) =>
    fetch(`http://127.0.0.1:${base.ACCOUNT_PORT}/api/v1/account/${route}`, { headers: { 'x-internal-api-key': KEYS.INTERNAL_API_KEY } });

  beforeAll(async () => {
    base = {
      ...KEYS,
      EXECUTION_PORT: String(await freePort()),
      ACCOUNT_PORT: String(await freePort()),
      DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      SIM_SEED: 'account-venue',
      SIM_MARKET_HOURS: 'false',
    };
    for (const name of ['execution', 'account'] as const) {
      processes.push(run(`services/${name}/src/server.ts`, definedOf(serviceEnv(stackService(name), base).env)));
    }
    try {
      await until(
        async () => (await Promise.all([base.EXECUTION_PORT, base.ACCOUNT_PORT].map((p) => answers(`http://127.0.0.1:${p}/health/ready`)))).every(Boolean),
        40_000,
      );
    } catch (err) {
      for (const p of processes) process.stderr.write(p.out.stderr);
      throw err;
    }
    execution = new ExecutionClient({ baseUrl: `http://127.0.0.1:${base.EXECUTION_PORT}`, apiKey: KEYS.EXECUTION_API_KEY });
  }, 60_000);

  afterAll(async () => {
    await execution?.close();
    for (const p of processes) p.child.kill('SIGTERM');
    await Promise.all(processes.map((p) => p.done));
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('starts the account service on the execution service’s terminal, and says so', () => {
    expect(processes[1]?.out.stdout).toContain(`the execution service's terminal (http://127.0.0.1:${base.EXECUTION_PORT})`);
  });

  it('shows an order the execution service filled as a position in the account’s details, and drops it once closed', async () => {
    const sent = await execution.submitSignal({
      signal_id: randomUUID(),
      occurred_at: new Date().toISOString(),
      execution_type: 'market',
      symbol: 'EURUSD',
      direction: 'buy',
      volume: '0.20',
      source: 'fxdesk-strategy',
    });
    expect(sent.result.state).toBe('filled');
    const [position] = (await execution.positions({ source: 'fxdesk-strategy' })).positions;
    const open = (await (await account('details')).json()).account;
    expect(open.trades).toEqual([expect.objectContaining({ id: position!.ticket, instrument: 'EUR_USD', currentUnits: '20000' })]);
    expect(open.positions).toEqual([expect.objectContaining({ instrument: 'EUR_USD', long: expect.objectContaining({ units: '20000' }) })]);
    expect(open.balance).toBe((await execution.account()).balance);

    await execution.closePosition(position!.ticket, `venue-close-${randomUUID()}`);
    const closed = (await (await account('details')).json()).account;
    expect(closed.trades).toEqual([]);
    expect(closed.openPositionCount).toBe(0);
    const changes = await (await account(`changes?sinceTransactionId=${open.lastTransactionId}`)).json();
    expect(changes.tradesClosed).toEqual([expect.objectContaining({ id: position!.ticket, currentUnits: '0' })]);
  });
});
