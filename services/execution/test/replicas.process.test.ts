/**
 * Two execution server processes on one PostgreSQL database, each with its own REPLICA_ID and
 * DATA_DIR (so its own simulated terminal: "order_send in total" counts over both terminals).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { postgresUnavailable, startPostgres, until, type RunningPostgres } from '@fxdesk/core/testing';
import type { SignalRecord } from '@fxdesk/schemas';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { killAll, marketBuy, startServer, type ServerProcess } from './server-process.js';

const unavailable = postgresUnavailable();
let server: RunningPostgres;
const started: ServerProcess[] = [];
const dataDirs: string[] = [];

beforeAll(async () => {
  if (!unavailable) server = await startPostgres();
}, 300_000);
afterEach(async () => {
  await killAll(started.splice(0));
  for (const dir of dataDirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});
afterAll(() => server?.stop());

// A claim's lease is 3 × PRE_SEND_TIMEOUT_MS + ORDER_SEND_TIMEOUT_MS + 5 s: 16 s here.
const TIMEOUTS = { PRE_SEND_TIMEOUT_MS: '2000', ORDER_SEND_TIMEOUT_MS: '5000' };
const LEASE_MS = 16_000;

/** One replica of the service on the database `url`, in a DATA_DIR of its own. */
async function replica(url: string, replicaId: string, env: Record<string, string> = {}): Promise<ServerProcess> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `fxdesk-exec-${replicaId}-`));
  dataDirs.push(dataDir);
  const replicaProcess = await startServer({ DATA_DIR: dataDir, DATABASE_URL: url, REPLICA_ID: replicaId, ...TIMEOUTS, ...env });
  started.push(replicaProcess);
  return replicaProcess;
}

async function record(replica: ServerProcess, signalId: string): Promise<SignalRecord> {
  return (await (await replica.getSignal(signalId)).json()) as SignalRecord;
}

describe.skipIf(unavailable !== undefined)(`two replica processes on one PostgreSQL${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
  it('100 concurrent identical signals spread over both cause exactly one order_send over both terminals', async () => {
    const url = await server.createDatabase();
    const replicas = await Promise.all([replica(url, 'a'), replica(url, 'b')]);
    const body = marketBuy();
    const answers = await Promise.all(
      Array.from({ length: 100 }, async (_, i) => {
        const res = await replicas[i % 2]!.submit(body);
        return { status: res.status, replayed: res.headers.get('idempotent-replayed'), body: await res.text() };
      }),
    );

    const calls = await Promise.all(replicas.map((r) => r.orderSendCalls()));
    expect(calls[0]! + calls[1]!).toBe(1);
    const originals = answers.filter((a) => a.status === 200 && a.replayed === null);
    expect(originals).toHaveLength(1);
    for (const answer of answers) {
      if (answer === originals[0]) continue;
      const isReplay = answer.status === 200 && answer.replayed === 'true' && answer.body === originals[0]!.body;
      const isInProgress = answer.status === 409 && (JSON.parse(answer.body) as { code: string }).code === 'signal_in_progress';
      expect(isReplay || isInProgress, `${answer.status} ${answer.body}`).toBe(true);
    }
    for (const r of replicas) expect(await record(r, body.signal_id)).toMatchObject({ state: 'filled' });
  }, 180_000);

  it("replica A SIGKILLed inside order_send while B has signals in flight: only A's claim turns unknown, after its lease, and B's complete", async () => {
    const url = await server.createDatabase();
    // A's first order_send executes on its terminal and never answers: the process dies inside it.
    const [a, b] = await Promise.all([replica(url, 'a', { SIM_TERMINAL_FAULTS: 'orderSend:stall:1' }), replica(url, 'b')]);
    const orphan = marketBuy();
    const lost = a.submit(orphan).catch((err: unknown) => err);
    await until(async () => (await a.orderSendCalls()) === 1, 20_000);

    // B's signals, four at a time, until the test holds at least two of them in flight: a
    // transaction of its own locks B's claims still `processing`, so B cannot store their
    // outcomes (its UPDATE waits on the row lock) until the test lets go.
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    await db.query('BEGIN');
    let loading = true;
    const bAnswers: { signalId: string; status: number; state: string }[] = [];
    const load = Array.from({ length: 4 }, async () => {
      while (loading) {
        const body = marketBuy('0.01');
        const res = await b.submit(body);
        bAnswers.push({ signalId: body.signal_id, status: res.status, state: ((await res.json()) as { state?: string }).state ?? '' });
      }
    });
    let held: string[] = [];
    await until(async () => {
      const { rows } = await db.query<{ signal_id: string }>("SELECT signal_id FROM signals WHERE owner = 'b' AND state = 'processing' FOR UPDATE");
      held = rows.map((r) => r.signal_id);
      return held.length >= 2;
    }, 20_000);
    loading = false;

    a.child.kill('SIGKILL');
    expect((await a.done).code).toBeNull();
    expect(await lost).toBeInstanceOf(Error);

    // A is dead; through B: A's claim is still within its lease, and B's held signals are in flight.
    expect(await record(b, orphan.signal_id)).toMatchObject({ state: 'processing' });
    for (const signalId of held) expect(await record(b, signalId), signalId).toMatchObject({ state: 'processing' });

    await db.query('COMMIT');
    await Promise.all(load);
    expect(bAnswers.map((x) => x.signalId)).toEqual(expect.arrayContaining(held));
    for (const answer of bAnswers) expect(answer, answer.signalId).toMatchObject({ status: 200, state: 'filled' });
    expect(await b.orderSendCalls()).toBe(bAnswers.length);

    // Past A's lease, B's sweep (every 5 s) takes A's claim over: unknown, never sent again.
    await until(async () => (await record(b, orphan.signal_id)).state === 'unknown', LEASE_MS + 30_000);
    const takenOver = await record(b, orphan.signal_id);
    expect(takenOver).toMatchObject({ http_status: 503, error: { code: 'execution_outcome_unknown' } });
    const takenOverAfterMs = Date.parse(takenOver.completed_at as string) - Date.parse(takenOver.received_at);
    expect(takenOverAfterMs).toBeGreaterThanOrEqual(LEASE_MS);
    console.log(
      `B: ${held.length} of its ${bAnswers.length} signals held in flight at A's SIGKILL, all filled; A's claim unknown ${takenOverAfterMs} ms after it was made (lease ${LEASE_MS} ms)`,
    );
    const retry = await b.submit(orphan);
    expect(retry.status).toBe(503);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await b.orderSendCalls()).toBe(bAnswers.length);

    const { rows } = await db.query<{ owner: string; state: string; count: string }>(
      'SELECT owner, state, count(*) FROM signals GROUP BY owner, state ORDER BY owner',
    );
    await db.end();
    expect(rows).toEqual([
      { owner: 'a', state: 'unknown', count: '1' },
      { owner: 'b', state: 'filled', count: String(bAnswers.length) },
    ]);
  }, 180_000);
});
