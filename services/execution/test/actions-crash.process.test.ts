/**
 * The real server process, killed with SIGKILL while a close (and a flatten) is inside the
 * terminal call, then restarted on the same data directory: the action reads back `unknown`, a
 * retry with its key is 503 and sends nothing, and a resumed flatten closes only the positions it
 * had not reached; nothing is closed twice.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, until } from '@fxdesk/core/testing';
import Database from 'better-sqlite3';
import type { ActionList, ActionReconciliation } from '@fxdesk/schemas';
import { afterAll, describe, expect, it } from 'vitest';
import { killAll, marketBuy, PROCESS_KEY, startServer, type ServerProcess } from './server-process.js';

const started: ServerProcess[] = [];
const dirs: string[] = [];

afterAll(async () => {
  await killAll(started);
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

async function start(dataDir: string, port: number, env: Record<string, string> = {}): Promise<ServerProcess> {
  const server = await startServer({ DATA_DIR: dataDir, ...env }, port);
  started.push(server);
  return server;
}

function call(server: ServerProcess, method: string, url: string, key?: string, body?: object): Promise<Response> {
  const headers: Record<string, string> = { 'x-api-key': PROCESS_KEY };
  if (key) headers['idempotency-key'] = key;
  if (body) headers['content-type'] = 'application/json';
  return fetch(`http://127.0.0.1:${server.port}${url}`, { method, headers, body: body ? JSON.stringify(body) : undefined });
}

async function closeCalls(server: ServerProcess): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${server.port}/metrics`)).text();
  const match = /fxdesk_execution_terminal_calls\{method="closePosition"\} (\d+)/.exec(text);
  if (!match) throw new Error('no closePosition counter in /metrics');
  return Number(match[1]);
}

async function openPosition(server: ServerProcess): Promise<string> {
  const res = await server.submit(marketBuy());
  expect(res.status).toBe(200);
  return ((await res.json()) as { tickets: { position: string } }).tickets.position;
}

async function openTickets(server: ServerProcess): Promise<string[]> {
  const { positions } = (await (await call(server, 'GET', '/v1/positions')).json()) as { positions: { ticket: string }[] };
  return positions.map((p) => p.ticket);
}

async function kill(server: ServerProcess): Promise<void> {
  server.child.kill('SIGKILL');
  expect((await server.done).code).toBeNull();
}

/** The action's `reconciliation`, once the restarted service has looked it up on the terminal (in the background). */
async function reconciliation(server: ServerProcess, actionId: string): Promise<ActionReconciliation> {
  let found: ActionReconciliation | null = null;
  await until(async () => {
    const { actions } = (await (await call(server, 'GET', '/v1/actions')).json()) as ActionList;
    found = actions.find((a) => a.action_id === actionId)?.reconciliation ?? null;
    return found !== null;
  }, 20_000);
  return found as unknown as ActionReconciliation;
}

/** The open positions the simulated terminal has committed to `<dir>/execution.db`, read as another process would. */
function savedPositions(dir: string): number {
  const db = new Database(path.join(dir, 'execution.db'), { readonly: true, fileMustExist: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM sim_positions').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

function dataDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fxdesk-exec-actions-crash-'));
  dirs.push(dir);
  return dir;
}

describe('execution server process, actions', () => {
  it('killed with SIGKILL inside a close, then restarted: the close is unknown, a retry is 503 and nothing is closed', async () => {
    const dir = dataDir();
    const port = await freePort();
    const first = await start(dir, port, { SIM_TERMINAL_FAULTS: 'closePosition:hang' });
    const ticket = await openPosition(first);
    const inFlight = call(first, 'POST', `/v1/positions/${ticket}/close`, 'crash-close-1').catch((err: unknown) => err);
    await until(async () => (await closeCalls(first)) === 1, 10_000);
    await kill(first);
    expect(await inFlight).toBeInstanceOf(Error);

    const second = await start(dir, port);
    const retry = await call(second, 'POST', `/v1/positions/${ticket}/close`, 'crash-close-1');
    expect(retry.status).toBe(503);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await retry.json()).toMatchObject({ code: 'execution_outcome_unknown' });
    const { actions } = (await (await call(second, 'GET', '/v1/actions')).json()) as { actions: { action_id: string; state: string }[] };
    expect(actions).toEqual([expect.objectContaining({ action_id: 'crash-close-1', state: 'unknown' })]);
    // The lookup on the terminal: no closing deal, and the position still open as it was.
    expect(await reconciliation(second, 'crash-close-1')).toMatchObject({ found: [], open: { kind: 'position', symbol: 'EURUSD', volume: '0.10' } });
    expect(await closeCalls(second)).toBe(0);
    expect(await openTickets(second)).toEqual([ticket]);
    second.child.kill('SIGTERM');
    expect((await second.done).code).toBe(0);
  }, 60_000);

  it('killed with SIGKILL after the terminal closed but before the outcome was stored: unknown, and the lookup shows the closing deal', async () => {
    const dir = dataDir();
    const port = await freePort();
    const first = await start(dir, port, { SIM_TERMINAL_FAULTS: 'closePosition:stall' });
    const ticket = await openPosition(first);
    const inFlight = call(first, 'POST', `/v1/positions/${ticket}/close`, 'crash-close-2').catch((err: unknown) => err);
    // Killed once the close is committed to execution.db (the simulated terminal's account is
    // kept there), while its answer is still held: not merely once the call began.
    await until(() => savedPositions(dir) === 0, 10_000);
    await kill(first);
    expect(await inFlight).toBeInstanceOf(Error);

    const second = await start(dir, port);
    const retry = await call(second, 'POST', `/v1/positions/${ticket}/close`, 'crash-close-2');
    expect(retry.status).toBe(503);
    const seen = await reconciliation(second, 'crash-close-2');
    expect(seen.open).toBeNull();
    // The closing market order and its deal, both carrying the close's comment.
    expect(seen.found.map((r) => [r.kind, r.symbol, r.type, r.volume, r.state]).sort()).toEqual([
      ['deal', 'EURUSD', 'sell', '0.10', 'filled'],
      ['order', 'EURUSD', 'sell', '0.10', 'filled'],
    ]);
    expect(await closeCalls(second)).toBe(0);
    expect(await openTickets(second)).toEqual([]);
    second.child.kill('SIGTERM');
    expect((await second.done).code).toBe(0);
  }, 60_000);

  it('killed with SIGKILL inside a flatten, then resumed with the same key: the close in flight stays unknown, the rest are closed once', async () => {
    const dir = dataDir();
    const port = await freePort();
    const first = await start(dir, port, { SIM_TERMINAL_FAULTS: 'closePosition:hang' });
    const tickets = [await openPosition(first), await openPosition(first), await openPosition(first)];
    const inFlight = call(first, 'POST', '/v1/positions/close-all', 'crash-flatten-1').catch((err: unknown) => err);
    await until(async () => (await closeCalls(first)) === 1, 10_000);
    await kill(first);
    expect(await inFlight).toBeInstanceOf(Error);

    const second = await start(dir, port);
    await openPosition(second);
    const resumed = await call(second, 'POST', '/v1/positions/close-all', 'crash-flatten-1');
    expect(resumed.status).toBe(200);
    const { positions } = (await resumed.json()) as { positions: { ticket: string; state: string }[] };
    expect(positions.map((p) => [p.ticket, p.state])).toEqual([
      [tickets[0], 'unknown'],
      [tickets[1], 'done'],
      [tickets[2], 'done'],
    ]);
    expect(await closeCalls(second)).toBe(2);
    // The close in flight never reached the terminal (hang); the position opened since is not in the plan.
    expect((await openTickets(second)).slice(0, 1)).toEqual([tickets[0]]);
    expect(await openTickets(second)).toHaveLength(2);

    const again = await call(second, 'POST', '/v1/positions/close-all', 'crash-flatten-1');
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await closeCalls(second)).toBe(2);
    second.child.kill('SIGTERM');
    expect((await second.done).code).toBe(0);
  }, 60_000);
});
