import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { SYMBOL_SPECS } from '@fxdesk/broker';
import { answers, freePort, run, until } from '@fxdesk/core/testing';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { signalIdFor } from '../src/signal-id.js';
import { FakeVenue } from './fake-service.js';
import { postgresForFile } from './postgres-server.js';

/**
 * Issue 15's done-when for the strategy: two replica processes of the service on one real
 * PostgreSQL, deciding on M1 candles of every simulated pair with a low confluence (a signal
 * comes every minute or two) and sending orders to an execution service of the test's, which
 * counts what reaches it per signal_id, fills each order at once, lists the positions it opened
 * and answers each order 3 s late. The leader is SIGKILLed as the first order of a candle reaches
 * that service, so that order's answer dies with it: the other replica must take the lead within
 * 15 s, and no signal may be emitted twice.
 */

const { unavailable, database } = postgresForFile();

// Long enough that nothing answered after the kill can be stored before the test reads what the
// killed leader left pending.
const ANSWER_DELAY_MS = 3000;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fxdesk-failover-'));
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

interface Arrival {
  signalId: string;
  body: string;
  answeredAt: number | undefined;
  /** When it arrived, and whether its sender hung up before the answer (a client timeout, or the kill). */
  arrivedAt: number;
  isAbandoned: boolean;
  /** When the connection it came on was opened: the killed leader's connections are older than its death. */
  connectedAt: number;
}

/** The execution service as far as the strategy sees it: each order filled at once (its position listed from then on), answered late. */
async function countingExecution(): Promise<{ url: string; arrivals: Arrival[]; onArrival: (hook: () => void) => void; close: () => Promise<void> }> {
  const venue = new FakeVenue();
  const arrivals: Arrival[] = [];
  let hook: (() => void) | undefined;
  const connectedAt = new WeakMap<object, number>();
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const request = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: body ? (JSON.parse(body) as unknown) : undefined };
      const answer = venue.answer(request);
      // The leader's other calls (the positions, the live journal's deals and actions) are answered at once.
      if (req.method !== 'POST' || req.url !== '/v1/signals') {
        res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
        res.end(JSON.stringify(answer.body));
        return;
      }
      const signalId = (request.body as { signal_id: string }).signal_id;
      const arrival: Arrival = {
        signalId,
        body,
        answeredAt: undefined,
        arrivedAt: Date.now(),
        isAbandoned: false,
        connectedAt: connectedAt.get(req.socket) ?? 0,
      };
      arrivals.push(arrival);
      res.on('close', () => {
        if (arrival.answeredAt === undefined) arrival.isAbandoned = true;
      });
      const once = hook;
      hook = undefined;
      once?.();
      setTimeout(() => {
        arrival.answeredAt = Date.now();
        res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
        res.end(JSON.stringify(answer.body));
      }, ANSWER_DELAY_MS);
    });
  });
  server.on('connection', (socket) => connectedAt.set(socket, Date.now()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    arrivals,
    onArrival: (next) => (hook = next),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

type Replica = ReturnType<typeof run> & { url: string; name: string };

function startReplica(name: string, port: number, env: Record<string, string>): Replica {
  const dir = path.join(dataDir, name);
  // Each replica its own REPLICA_ID, as a deployment of several on one host gives them.
  const child = run('services/strategy/src/server.ts', { ...env, DATA_DIR: dir, PORT: String(port), REPLICA_ID: name });
  return { ...child, url: `http://127.0.0.1:${port}`, name };
}

async function leaderCheck(replica: Replica): Promise<string> {
  const res = await fetch(`${replica.url}/health/ready`);
  return ((await res.json()) as { checks: { leader: { detail: string } } }).checks.leader.detail;
}

interface StoredSignal {
  signal_id: string;
  instrument: string;
  candle_time: string;
  timeframe: 'M1';
  generated_at: string;
  execution: string;
  /** Why a skipped signal was not sent. */
  code: string | null;
}

async function storedSignals(url: string): Promise<StoredSignal[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ body: string; execution: string }>('SELECT body, execution FROM strategy_signals ORDER BY seq');
    return rows.map((row) => {
      const execution = JSON.parse(row.execution) as { status: string; code: string | null };
      return { ...(JSON.parse(row.body) as Omit<StoredSignal, 'execution' | 'code'>), execution: execution.status, code: execution.code };
    });
  } finally {
    await client.end();
  }
}

describe.skipIf(unavailable !== undefined)(`two strategy replicas on one PostgreSQL${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
  it('the leader SIGKILLed inside an order: the other leads within 15 s and no signal is emitted twice', async () => {
    const url = await database();
    const execution = await countingExecution();
    const env = {
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      DATABASE_URL: url,
      EXECUTION_URL: execution.url,
      EXECUTION_API_KEY: 'exec-failover-key',
      // Far beyond the fake's 3 s answer, so that a send is never cut off and retried however slow
      // a busy machine makes this run: a second arrival then only comes from a takeover.
      DOWNSTREAM_TIMEOUT_MS: '30000',
      SIM_SEED: 'failover',
      SIM_MARKET_HOURS: 'false',
      SIM_TICK_INTERVAL_MS: '1000',
      TIMEFRAME: 'M1',
      INSTRUMENTS: SYMBOL_SPECS.map((s) => s.instrument).join(','),
      MIN_CONFLUENCE: '1',
      WARMUP_CANDLES: '120',
      CANDLE_CLOSE_DELAY_MS: '500',
      RATE_LIMIT_GET_PER_MINUTE: '100000',
      LAB_WORKERS: '1',
    };
    const replicas: Replica[] = [];
    try {
      const first = startReplica('first', await freePort(), env);
      replicas.push(first);
      await until(async () => (await answers(`${first.url}/health/ready`)) && (await leaderCheck(first)).startsWith('leader:'), 60_000);
      const second = startReplica('second', await freePort(), env);
      replicas.push(second);
      await until(async () => (await answers(`${second.url}/health/ready`)) && (await leaderCheck(second)).startsWith('follower:'), 60_000);
      expect(await leaderCheck(second)).toBe('follower: replica first leads');

      // Started through the follower: the leader runs it.
      const start = await fetch(`${second.url}/start`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"dry_run":false}' });
      expect(start.status).toBe(200);
      // The first orders open the leader's connections to the execution service; killing at the
      // very first one would race the accept of the others against the kill, and the count below
      // tells the killed leader's connections from the new one's by when they were opened.
      await until(() => execution.arrivals.length > 0, 180_000);

      // The next order to arrive kills its sender, the leader, before its answer comes back.
      let killedAt = 0;
      const killed = new Promise<void>((resolve) =>
        execution.onArrival(() => {
          killedAt = Date.now();
          first.child.kill('SIGKILL');
          resolve();
        }),
      );
      await until(() => killedAt > 0, 180_000);
      await killed;
      await first.done;
      // What the killed leader left unsent or without its answer stored: the new leader sends
      // these again. Read before any answer to such a send could come back.
      const pendingAtKill = new Set((await storedSignals(url)).filter((s) => s.execution === 'pending').map((s) => s.signal_id));
      expect(Date.now() - killedAt).toBeLessThan(ANSWER_DELAY_MS);

      await until(async () => (await leaderCheck(second)).startsWith('leader:'), 15_000);
      const takeoverMs = Date.now() - killedAt;
      expect(takeoverMs).toBeLessThan(15_000);

      // The new leader emits: a signal of a candle after the kill, sent. Then the run stops, and
      // every send settles.
      await until(
        async () => (await storedSignals(url)).some((s) => Date.parse(s.candle_time) + 60_000 > killedAt && !['pending', 'skipped'].includes(s.execution)),
        180_000,
      );
      expect((await fetch(`${second.url}/stop`, { method: 'POST' })).status).toBe(200);
      await until(async () => (await storedSignals(url)).every((s) => s.execution !== 'pending'), 30_000);
      await until(() => execution.arrivals.every((a) => a.answeredAt !== undefined), 10_000);

      // The orders the killed leader sent and had not stored the answer to. Its orders are those on
      // the connections opened before the kill (the other replica sent nothing before it led), and
      // those of a burst whose connection the server accepted only after the kill: the kill cut
      // them off unanswered, which the new leader's never are (its sends wait 30 s for an answer).
      const isKilledLeaders = (a: Arrival) => a.connectedAt < killedAt || a.isAbandoned;
      const resent = new Set(execution.arrivals.filter((a) => isKilledLeaders(a) && pendingAtKill.has(a.signalId)).map((a) => a.signalId));
      console.log(
        `takeover: the other replica leads ${takeoverMs} ms after the leader was SIGKILLed; ${resent.size} order(s) of the killed leader had no answer stored`,
      );

      // The store: one signal per pair and candle, under its deterministic id.
      const stored = await storedSignals(url);
      expect(new Set(stored.map((s) => `${s.instrument}|${s.candle_time}`)).size).toBe(stored.length);
      for (const s of stored) expect(s.signal_id).toBe(signalIdFor(s.instrument, 'M1', Date.parse(s.candle_time) / 1000));

      // The downstream: every stored signal reached it, and only those, but for the ones refused
      // for a position open on their pair; each with the same bytes every time; once, but for the
      // orders the killed leader sent without storing their answer, which the new leader sent
      // again, once.
      const bySignal = new Map<string, Arrival[]>();
      for (const a of execution.arrivals) bySignal.set(a.signalId, [...(bySignal.get(a.signalId) ?? []), a]);
      const skipped = stored.filter((s) => s.execution === 'skipped');
      const sent = stored.filter((s) => s.execution !== 'skipped');
      expect([...bySignal.keys()].sort()).toEqual(sent.map((s) => s.signal_id).sort());
      // Nothing closes a position here (no exit rule is on, the fake moves no price): a pair's
      // first order holds its position to the end, and each later signal of the pair is refused for it.
      const ordered = sent.map((s) => s.instrument);
      for (const s of skipped) {
        expect(s.code, s.signal_id).toBe('position_open');
        expect(ordered, s.signal_id).toContain(s.instrument);
      }
      for (const [signalId, arrivals] of bySignal) {
        expect(new Set(arrivals.map((a) => a.body)).size, signalId).toBe(1);
        const seen = arrivals.map((a) => ({ arrivedMs: a.arrivedAt - killedAt, connectedMs: a.connectedAt - killedAt, isAbandoned: a.isAbandoned }));
        expect(arrivals.length, `${signalId} (times from the kill): ${JSON.stringify(seen)}`).toBe(resent.has(signalId) ? 2 : 1);
      }
      console.log(
        `signals: ${stored.length} stored (${skipped.length} refused for a position open on their pair), ${stored.filter((s) => Date.parse(s.generated_at) > killedAt).length} by the new leader; orders: ${execution.arrivals.length} received`,
      );
    } catch (err) {
      for (const r of replicas) process.stderr.write(`--- ${r.name}\n${r.out.stderr}`);
      throw err;
    } finally {
      for (const r of replicas) r.child.kill('SIGTERM');
      await Promise.all(replicas.map((r) => r.done));
      await execution.close();
    }
  }, 600_000);
});
