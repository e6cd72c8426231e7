/**
 * The real server process, killed with SIGKILL while a signal is inside order_send, then
 * restarted: the signal reads back `unknown` and is never sent again, and the reconciliation
 * shows what the simulated terminal, kept in the same data directory, had executed.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Reconciliation, SignalRecord } from '@fxdesk/schemas';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, run, until } from '@fxdesk/core/testing';
import { killAll, marketBuy, PROCESS_KEY, SERVER, startServer, type ServerProcess } from './server-process.js';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fxdesk-exec-crash-'));
const started: ServerProcess[] = [];

afterAll(async () => {
  await killAll(started);
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function start(port: number, env: Record<string, string> = {}): Promise<ServerProcess> {
  const server = await startServer({ DATA_DIR: dataDir, ...env }, port);
  started.push(server);
  return server;
}

/** The signal's record once the restarted service has looked it up on the terminal. */
async function reconciled(server: ServerProcess, signalId: string): Promise<SignalRecord & { reconciliation: Reconciliation }> {
  let record: SignalRecord | undefined;
  await until(async () => {
    record = (await (await server.getSignal(signalId)).json()) as SignalRecord;
    return record.reconciliation !== null;
  }, 10_000);
  return record as SignalRecord & { reconciliation: Reconciliation };
}

/**
 * Starts the server with an order_send fault, submits `body` and kills the process with SIGKILL
 * once the signal is inside order_send (still `processing`); the request dies with it.
 */
async function killInsideOrderSend(port: number, body: { signal_id: string }, fault: 'hang' | 'stall'): Promise<void> {
  const server = await start(port, { SIM_TERMINAL_FAULTS: `orderSend:${fault}` });
  const inFlight = server.submit(body).catch((err: unknown) => err);
  await until(async () => (await server.orderSendCalls()) === 1, 10_000);
  expect(await (await server.getSignal(body.signal_id)).json()).toMatchObject({ state: 'processing' });
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
    const record = await second.getSignal(body.signal_id);
    expect(record.status).toBe(200);
    expect(await record.json()).toMatchObject({ state: 'unknown', http_status: 503, error: { code: 'execution_outcome_unknown' } });
    expect((await reconciled(second, body.signal_id)).reconciliation.found).toEqual([]);

    const retry = await second.submit(body);
    expect(retry.status).toBe(503);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await retry.json()).toMatchObject({ error: true, code: 'execution_outcome_unknown' });
    expect(await second.orderSendCalls()).toBe(0);

    second.child.kill('SIGTERM');
    expect((await second.done).code).toBe(0);
  }, 60_000);

  it('killed with SIGKILL after the terminal executed the order, before the outcome was stored: the restarted service finds the order and its deal', async () => {
    const port = await freePort();
    const body = marketBuy();

    await killInsideOrderSend(port, body, 'stall');

    const second = await start(port);
    const record = await reconciled(second, body.signal_id);
    expect(record).toMatchObject({ state: 'unknown', http_status: 503 });
    expect(record.reconciliation.found).toMatchObject([
      { kind: 'deal', symbol: 'EURUSD', type: 'buy', volume: '0.10', state: 'filled' },
      { kind: 'order', symbol: 'EURUSD', type: 'buy', volume: '0.10', state: 'filled' },
    ]);
    expect(await second.orderSendCalls()).toBe(0);

    second.child.kill('SIGTERM');
    expect((await second.done).code).toBe(0);
  }, 60_000);

  it('started with a venue BROKER and none of its credentials, exits 1 with one line saying why', async () => {
    const result = await run(SERVER, { DATA_DIR: dataDir, API_KEY: PROCESS_KEY, BROKER: 'ctrader', PORT: '0' }).done;
    expect(result.code).toBe(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^execution: invalid configuration: CTRADER_CLIENT_ID: is required when BROKER=ctrader/);
  }, 30_000);
});
