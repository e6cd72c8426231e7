import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SYMBOL_SPECS } from '@fxdesk/broker';
import { answers, freePort, run, until } from '@fxdesk/core/testing';
import type { AccountRisk, RiskReport } from '@fxdesk/schemas';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { envelope, fakeService, FakeVenue, type FakeAnswer, type RecordedRequest } from './fake-service.js';
import { postgresForFile } from './postgres-server.js';

/**
 * Issue 24's done-when for the kill switch: two replica processes of the service on one real
 * PostgreSQL trade the live account (orders to an execution service of the test's, which fills
 * each) while an account service of the test's reports its equity. The equity falls past
 * DAILY_LOSS_LIMIT: the leader halts and sends no more orders, though signals keep coming; the
 * leader is SIGKILLed and the follower that takes over stays halted (the halt is in the store);
 * after POST /risk/resume on it, orders go out again. With HALT_FLATTEN the halt closes what the
 * strategy opened: the execution service is down for the close-all while the first leader lives,
 * so the flatten it owes dies with it, and the follower sends it, under the same key, once.
 *
 * What reaches the desk's risk here is the account service's equity as the leader reads it
 * (each fresh read of GET /api/v1/account/summary, here made by GET /status, is marked), the
 * orders the execution service receives, and the signals in the store.
 *
 * The steps after the start wait for signals decided on real M1 closes (after the halt, after the
 * kill, after the resume): a Supertrend of narrow bands flips on several of the 23 pairs at nearly
 * every close, so each step waits for one close, not for a close that happens to bring signals.
 */

const { unavailable, database } = postgresForFile();

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fxdesk-risk-halt-'));
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

/** The account service's summary at `nav`. */
function summaryAt(nav: number): FakeAnswer {
  const money = nav.toFixed(4);
  const at = new Date().toISOString();
  return {
    status: 200,
    body: {
      account: {
        id: '101-004-1435156-001',
        alias: null,
        currency: 'USD',
        balance: money,
        nav: money,
        unrealizedPL: '0.0000',
        realizedPL: '0.0000',
        marginUsed: '0.0000',
        marginAvailable: money,
        marginRate: '0.0333',
        openTradeCount: 0,
        openPositionCount: 0,
        pendingOrderCount: 0,
        lastTransactionId: '1',
        asOf: at,
      },
      snapshot: { id: 1, takenAt: at },
    },
  };
}

type Replica = ReturnType<typeof run> & { url: string; name: string };

function startReplica(name: string, port: number, env: Record<string, string>): Replica {
  const child = run('services/strategy/src/server.ts', { ...env, DATA_DIR: path.join(dataDir, name), PORT: String(port), REPLICA_ID: name });
  return { ...child, url: `http://127.0.0.1:${port}`, name };
}

async function leaderCheck(replica: Replica): Promise<string> {
  const res = await fetch(`${replica.url}/health/ready`);
  return ((await res.json()) as { checks: { leader: { detail: string } } }).checks.leader.detail;
}

async function liveRisk(replica: Replica): Promise<AccountRisk> {
  const report = (await (await fetch(`${replica.url}/risk`)).json()) as RiskReport;
  return report.accounts.find((a) => a.account === 'live') as AccountRisk;
}

/** The stored signals, oldest first, with their order's state. */
async function storedSignals(url: string): Promise<Array<{ signalId: string; generatedAt: number; execution: string }>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ signal_id: string; generated_at: string; execution: string }>(
      'SELECT signal_id, generated_at, execution FROM strategy_signals ORDER BY seq',
    );
    return rows.map((row) => ({
      signalId: row.signal_id,
      generatedAt: Date.parse(row.generated_at),
      execution: (JSON.parse(row.execution) as { status: string }).status,
    }));
  } finally {
    await client.end();
  }
}

describe.skipIf(unavailable !== undefined)(`the kill switch on two replicas${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
  it('halts past DAILY_LOSS_LIMIT and sends no more orders, stays halted on the follower that takes over from a SIGKILLed leader, and trades again after a resume', async () => {
    const url = await database();
    let nav = 10_000;
    const orders: Array<{ signalId: string; at: number }> = [];
    // One fake for both services: the execution service's book (each order fills and stays open
    // until closed) and the account service's summary. The close-all fails while `isFlattenDown`.
    const venue = new FakeVenue();
    const flattens: Array<{ key: string; answered: boolean }> = [];
    let isFlattenDown = true;
    const service = await fakeService((request: RecordedRequest) => {
      if (request.url.startsWith('/api/v1/account/summary')) return summaryAt(nav);
      if (request.method === 'POST' && request.url === '/v1/signals')
        orders.push({ signalId: (request.body as { signal_id: string }).signal_id, at: Date.now() });
      if (request.method === 'POST' && request.url === '/v1/positions/close-all') {
        flattens.push({ key: String(request.headers['idempotency-key']), answered: !isFlattenDown });
        if (isFlattenDown) return { status: 503, body: envelope('terminal_unavailable', 'the terminal is not connected') };
      }
      return venue.answer(request);
    });
    const env = {
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      DATABASE_URL: url,
      EXECUTION_URL: service.url,
      EXECUTION_API_KEY: 'exec-risk-key',
      ACCOUNT_URL: service.url,
      ACCOUNT_API_KEY: 'account-risk-key',
      ACCOUNT_REFRESH_SECONDS: '0',
      DAILY_LOSS_LIMIT: '2',
      HALT_FLATTEN: 'true',
      SIM_SEED: 'risk-halt',
      SIM_MARKET_HOURS: 'false',
      SIM_TICK_INTERVAL_MS: '1000',
      TIMEFRAME: 'M1',
      INSTRUMENTS: SYMBOL_SPECS.map((s) => s.instrument).join(','),
      MIN_CONFLUENCE: '1',
      // About 9 signals a close over the 23 pairs, 2 or more at all but one close in 500 (with the default 3: about 2.6, and fewer than 2 at one close in 3).
      SUPERTREND_MULTIPLIER: '0.3',
      // A signal of the other side does not close a position (the flatten is the only close here).
      EXIT_ON_OPPOSITE_SIGNAL: 'false',
      WARMUP_CANDLES: '120',
      CANDLE_CLOSE_DELAY_MS: '500',
      RATE_LIMIT_GET_PER_MINUTE: '100000',
      RATE_LIMIT_POST_PER_MINUTE: '1000',
      LAB_WORKERS: '1',
    };
    const replicas: Replica[] = [];
    const status = (replica: Replica) => fetch(`${replica.url}/status`).then((res) => res.status);
    try {
      const first = startReplica('first', await freePort(), env);
      replicas.push(first);
      await until(async () => (await answers(`${first.url}/health/ready`)) && (await leaderCheck(first)).startsWith('leader:'), 60_000);
      const second = startReplica('second', await freePort(), env);
      replicas.push(second);
      await until(async () => (await answers(`${second.url}/health/ready`)) && (await leaderCheck(second)).startsWith('follower:'), 60_000);

      // The day starts at 10 000: the leader's first read of the account.
      await status(first);
      await until(async () => (await liveRisk(first)).daily_loss.start_equity === 10_000, 30_000);
      expect((await fetch(`${first.url}/start`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"dry_run":false}' })).status).toBe(
        200,
      );
      await until(() => orders.length > 0, 240_000);

      // 2.5 % down on the day: the next read halts the live account, and the halt is stored at once.
      nav = 9_750;
      await status(first);
      await until(async () => (await liveRisk(first)).halted, 30_000);
      const halt = (await liveRisk(first)).halt;
      expect(halt).toMatchObject({ reason: 'daily_loss_limit' });
      const haltAt = Date.parse(halt?.at ?? '');
      // Signals keep coming, and none decided after the halt is sent (one decided before it may
      // still be on its way: it passed the check before the halt).
      await until(async () => (await storedSignals(url)).filter((s) => s.generatedAt > haltAt).length >= 2, 300_000);
      const afterHalt = (await storedSignals(url)).filter((s) => s.generatedAt > haltAt);
      const unsent = new Set(afterHalt.map((s) => s.signalId));
      const sentAfterHalt = () => orders.filter((o) => unsent.has(o.signalId));
      expect(sentAfterHalt()).toEqual([]);
      expect(afterHalt.map((s) => s.execution).filter((e) => e === 'filled' || e === 'pending')).toEqual([]);
      const sentBefore = new Set(orders.map((o) => o.signalId));
      // The halt's flatten was sent and failed: the positions are still open, the flatten still owed.
      const key = `risk-halt-live-${haltAt}`;
      await until(() => flattens.length > 0, 30_000);
      expect(flattens).toEqual(flattens.map(() => ({ key, answered: false })));
      expect(venue.positions.length).toBeGreaterThan(0);

      // The leader dies; the follower takes over, and is halted from the first.
      isFlattenDown = false;
      first.child.kill('SIGKILL');
      await first.done;
      const killedAt = Date.now();
      await until(async () => (await leaderCheck(second)).startsWith('leader:'), 15_000);
      const takeoverMs = Date.now() - killedAt;
      expect(await liveRisk(second)).toMatchObject({ halted: true, halt: { reason: 'daily_loss_limit', at: halt?.at } });
      // It sends the flatten its predecessor owed, under the same key, and the positions close.
      await until(() => flattens.some((f) => f.answered), 30_000);
      expect(venue.positions).toEqual([]);
      expect(flattens.map((f) => f.key).every((k) => k === key)).toBe(true);
      await until(async () => (await storedSignals(url)).some((s) => s.generatedAt > killedAt), 300_000);
      for (const s of await storedSignals(url)) if (s.generatedAt > haltAt) unsent.add(s.signalId);
      expect(sentAfterHalt()).toEqual([]);
      expect(orders.filter((o) => !sentBefore.has(o.signalId))).toEqual([]);
      expect((await fetch(`${second.url}/risk/resume`, { method: 'POST' })).status).toBe(422);

      // A person resumes the live account on the new leader: its orders go out again.
      const resumed = await fetch(`${second.url}/risk/resume`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"account":"live"}' });
      expect(resumed.status).toBe(200);
      expect(((await resumed.json()) as { account: AccountRisk }).account).toMatchObject({ halted: false, daily_loss: { start_equity: 9_750 } });
      const resumedAt = Date.now();
      await until(() => orders.some((o) => o.at > resumedAt), 300_000);
      expect(
        (await fetch(`${second.url}/risk/resume`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"account":"live"}' })).status,
      ).toBe(409);
      // Answered once, the flatten is never sent again (its answer is stored).
      expect(flattens.filter((f) => f.answered)).toHaveLength(1);
      console.log(
        `risk halt: ${sentBefore.size} order(s) before the halt, ${flattens.length - 1} failed flatten(s) before the kill and one after it, ${afterHalt.length} signal(s) after it unsent, the follower led ${takeoverMs} ms after the kill and stayed halted; ${orders.filter((o) => o.at > resumedAt).length} order(s) after the resume`,
      );
    } catch (err) {
      for (const r of replicas) process.stderr.write(`--- ${r.name}\n${r.out.stderr}`);
      throw err;
    } finally {
      for (const r of replicas) r.child.kill('SIGTERM');
      await Promise.all(replicas.map((r) => r.done));
      await service.close();
    }
  }, 900_000);
});
