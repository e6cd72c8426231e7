/**
 * The real server process, killed with SIGKILL while a signal is inside order_send, then
 * restarted: the signal reads back `unknown` and is never sent again, and the reconciliation
 * shows what the simulated terminal, kept in the same data directory, had executed.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Reconciliation, SignalRecord } from '@fxdesk/schemas';
import { afterAll, describe, expect, it } from 'vitest';
import { answers, freePort, run, until } from '@fxdesk/core/testing';

const SERVER = 'services/execution/src/server.ts';
const KEY = 'crash-test-key';
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fxdesk-exec-crash-'));
const started: ReturnType<typeof run>[] = [];

afterAll(async () => {
  for (const server of started) if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL');
  await Promise.all(started.map((s) => s.done));
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function start(port: number, env: Record<string, string> = {}) {
  const server = run(SERVER, {
    DATA_DIR: dataDir,
    PORT: String(port),
    API_KEY: KEY,
    TRADING_ENABLED: 'true',
    SIM_MARKET_HOURS: 'false',
    LOG_LEVEL: 'warn',
    ...env,
  });
  started.push(server);
  await until(() => answers(`http://127.0.0.1:${port}/health/ready`), 30_000);
  return server;
}

async function orderSendCalls(port: number): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const match = /fxdesk_execution_terminal_calls\{method="orderSend"\} (\d+)/.exec(text);
  if (!match) throw new Error('no orderSend counter in /metrics');
  return Number(match[1]);
}

function getSignal(port: number, signalId: string) {
  return fetch(`http://127.0.0.1:${port}/v1/signals/${signalId}`, { headers: { 'x-api-key': KEY } });
}

/** The signal's record once the restarted service has looked it up on the terminal. */
async function reconciled(port: number, signalId: string): Promise<SignalRecord & { reconciliation: Reconciliation }> {
  let record: SignalRecord | undefined;
  await until(async () => {
    record = (await (await getSignal(port, signalId)).json()) as SignalRecord;
    return record.reconciliation !== null;
  }, 10_000);
  return record as SignalRecord & { reconciliation: Reconciliation };
}

function marketBuy() {
  return {
    signal_id: randomUUID(),
    occurred_at: new Date().toISOString(),
    execution_type: 'market',
    symbol: 'EURUSD',
    direction: 'buy',
    volume: '0.10',
    source: 'fxdesk-strategy',
  };
}

function submit(port: number, body: object) {
  return fetch(`http://127.0.0.1:${port}/v1/signals`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': KEY },
    body: JSON.stringify(body),
  });
}

/**
 * Starts the server with an order_send fault, submits `body` and kills the process with SIGKILL
 * once the signal is inside order_send (still `processing`); the request dies with it.
 */
async function killInsideOrderSend(port: number, body: { signal_id: string }, fault: 'hang' | 'stall'): Promise<void> {
  const server = await start(port, { SIM_TERMINAL_FAULTS: `orderSend:${fault}` });
  const inFlight = submit(port, body).catch((err: unknown) => err);
  await until(async () => (await orderSendCalls(port)) === 1, 10_000);
  expect(await (await getSignal(port, body.signal_id)).json()).toMatchObject({ state: 'processing' });
  server.child.kill('SIGKILL');
  expect((await server.done).code).toBeNull();
  expect(await inFlight).toBeInstanceOf(Error);
}

describe('execution server process', () => {
  it('killed with SIGKILL inside order_send before the terminal executed it, then restarted: the signal is unknown, the terminal shows nothing, and a retry is 503 with no second order_send', async () => {
    const port = await freePort();
    const body = marketBuy();

    await killInsideOrderSend(port, body, 'hang');

    const second = await start(port);
    const record = await getSignal(port, body.signal_id);
    expect(record.status).toBe(200);
    expect(await record.json()).toMatchObject({ state: 'unknown', http_status: 503, error: { code: 'execution_outcome_unknown' } });
    expect((await reconciled(port, body.signal_id)).reconciliation.found).toEqual([]);

    const retry = await submit(port, body);
    expect(retry.status).toBe(503);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await retry.json()).toMatchObject({ error: true, code: 'execution_outcome_unknown' });
    expect(await orderSendCalls(port)).toBe(0);

    second.child.kill('SIGTERM');
    expect((await second.done).code).toBe(0);
  }, 60_000);

  it('killed with SIGKILL after the terminal executed the order, before the outcome was stored: the restarted service finds the order and its deal', async () => {
    const port = await freePort();
    const body = marketBuy();

    await killInsideOrderSend(port, body, 'stall');

    const second = await start(port);
    const record = await reconciled(port, body.signal_id);
    expect(record).toMatchObject({ state: 'unknown', http_status: 503 });
    expect(record.reconciliation.found).toMatchObject([
      { kind: 'deal', symbol: 'EURUSD', type: 'buy', volume: '0.10', state: 'filled' },
      { kind: 'order', symbol: 'EURUSD', type: 'buy', volume: '0.10', state: 'filled' },
    ]);
    expect(await orderSendCalls(port)).toBe(0);

    second.child.kill('SIGTERM');
    expect((await second.done).code).toBe(0);
  }, 60_000);

  it('started with a BROKER that has no MT5 terminal adapter, exits 1 with one line saying why', async () => {
    const result = await run(SERVER, { DATA_DIR: dataDir, API_KEY: KEY, BROKER: 'ctrader', PORT: '0' }).done;
    expect(result.code).toBe(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^execution: invalid configuration: BROKER: the execution service runs on BROKER=simulated or BROKER=metaapi only/);
  }, 30_000);
});
