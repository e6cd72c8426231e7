import { ExecutionClient } from '@fxdesk/client';
import { createLogger } from '@fxdesk/core';
import { until } from '@fxdesk/core/testing';
import { ManualClock, systemClock } from '@fxdesk/primitives';
import pg from 'pg';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PostgresLeadership } from '../src/postgres-leadership.js';
import { PostgresStrategyStore } from '../src/postgres-store.js';
import { fakeService, filled, type FakeService } from './fake-service.js';
import { harness, MONDAY_NOON, type Harness } from './helpers.js';
import { postgresForFile } from './postgres-server.js';

/**
 * Replicas of the app in one process on a real PostgreSQL server: each its own store, election
 * session and simulated market (the same seed, so the same candles), on one manual clock for the
 * candles; the election runs on the wall clock, checking every 100 ms.
 */

const { unavailable, database } = postgresForFile();

const CHECK_MS = 100;
const M5 = 300_000;

interface Replica extends Harness {
  leadership: PostgresLeadership;
  /** Orders this replica sent, at a fake execution service of its own. */
  execution: FakeService;
}

let cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  cleanups = [];
});

async function replica(url: string, replicaId: string, clock: ManualClock, env: Record<string, string> = {}): Promise<Replica> {
  const execution = await fakeService(filled);
  const client = new ExecutionClient({ baseUrl: execution.url, apiKey: 'exec-key-123', timeoutMs: 2000 });
  const logger = createLogger({ name: 'strategy', level: 'silent' });
  const leadership = new PostgresLeadership({ url, replicaId, clock: systemClock, logger, checkMs: CHECK_MS });
  const store = await PostgresStrategyStore.open(url);
  const h = await harness({ clock, store, env: { MIN_CONFLUENCE: '1', ...env }, deps: { execution: client, leadership, logger } });
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await h.close();
    await client.close();
    await execution.close();
  };
  cleanups.push(close);
  return { ...h, close, leadership, execution };
}

const ready = async (r: Replica) =>
  (await r.app.inject({ url: '/health/ready' })).json<{ checks: { leader: { ok: boolean; detail: string } } }>().checks.leader;
const status = async (r: Replica) => (await r.app.inject({ url: '/status' })).json<{ running: boolean; active_pairs: string[]; dry_run: boolean }>();
const orders = (r: Replica) => r.execution.requests.map((request) => (request.body as { signal_id: string }).signal_id);

/** Two replicas on a fresh database, on one clock: `a` leads, `b` follows (its readiness says so). */
async function twoReplicas(env: Record<string, string> = {}): Promise<{ a: Replica; b: Replica; clock: ManualClock; url: string }> {
  const url = await database();
  const clock = new ManualClock(MONDAY_NOON);
  const a = await replica(url, 'replica-a', clock, env);
  await until(() => a.leadership.isLeader, 5000);
  const b = await replica(url, 'replica-b', clock, env);
  await until(async () => (await ready(b)).detail === 'follower: replica replica-a leads', 5000);
  return { a, b, clock, url };
}

/** Moves the shared clock and lets every replica finish what it started. */
async function advance(clock: ManualClock, replicas: Replica[], ms: number): Promise<void> {
  clock.advance(ms);
  for (const r of replicas) await r.settle();
}

describe.skipIf(unavailable !== undefined)(`replicas on one PostgreSQL${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
  it('one replica leads and the other follows, each saying so in /health/ready', async () => {
    const { a, b } = await twoReplicas();
    expect(await ready(a)).toEqual({ ok: true, detail: 'leader: replica replica-a runs the strategy' });
    expect(b.leadership.isLeader).toBe(false);
    expect(b.engine.leads).toBe(false);
  });

  it('runs a start asked of a follower on the leader at once, and a stop asked of the leader on the follower', async () => {
    const { a, b } = await twoReplicas();

    const started = await b.app.inject({ method: 'POST', url: '/start', payload: { instruments: ['EUR_USD', 'USD_JPY'], dry_run: true } });
    expect(started.statusCode).toBe(200);
    await until(async () => (await status(a)).running, 2000);
    expect(await status(a)).toMatchObject({ active_pairs: ['EUR_USD', 'USD_JPY'], dry_run: true });
    expect((await a.app.inject({ url: '/status' })).json().started_at).toBe(started.json().started_at);
    expect((await a.app.inject({ method: 'POST', url: '/start' })).json()).toMatchObject({ code: 'STRATEGY_ALREADY_RUNNING' });

    expect((await a.app.inject({ method: 'POST', url: '/stop' })).statusCode).toBe(200);
    await until(async () => !(await status(b)).running, 2000);
    expect((await b.app.inject({ method: 'POST', url: '/stop' })).json()).toMatchObject({ code: 'STRATEGY_NOT_RUNNING' });
  });

  it("tells a follower's /pairs and /signals the leader's signals, which only the leader sends", async () => {
    const { a, b, clock } = await twoReplicas();
    await a.app.inject({ method: 'POST', url: '/start', payload: { instruments: ['EUR_USD'] } });
    await until(async () => (await status(b)).running, 2000);
    for (let i = 0; i < 100 && (await a.store.page({ limit: 1 })).signals.length === 0; i++) await advance(clock, [a, b], M5);
    const [signal] = (await a.store.page({ limit: 1 })).signals;
    expect(signal).toBeDefined();
    await until(async () => (await b.app.inject({ url: '/pairs' })).json().pairs[0].last_signal?.time === signal!.generated_at, 2000);
    expect((await b.app.inject({ url: '/signals/EUR_USD' })).json().signal.signal_id).toBe(signal!.signal_id);
    await until(() => orders(a).length > 0, 2000);
    expect(orders(a)).toContain(signal!.signal_id);
    expect(orders(b)).toEqual([]);
  });

  it('hands the lead to a follower when the leader stops, which then decides and sends', async () => {
    const { a, b, clock } = await twoReplicas();
    await a.app.inject({ method: 'POST', url: '/start', payload: { instruments: ['EUR_USD', 'GBP_USD'] } });
    await until(async () => (await status(b)).running, 2000);
    await a.close();
    await until(() => b.leadership.isLeader, 2000);
    expect(await ready(b)).toEqual({ ok: true, detail: 'leader: replica replica-b runs the strategy' });
    for (let i = 0; i < 100 && orders(b).length === 0; i++) await advance(clock, [b], M5);
    expect(orders(b).length).toBeGreaterThan(0);
    expect(await status(b)).toMatchObject({ running: true, active_pairs: ['EUR_USD', 'GBP_USD'] });
  });

  it('a leader whose session the server ends steps down, and the other replica takes the lead', async () => {
    const { a, b, url } = await twoReplicas();
    const steppedDown = vi.spyOn(a.engine, 'follow');
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'fxdesk-strategy replica-a'");
    await admin.end();
    // It may take the lead again at its next check, before b does: either way, one leads.
    await until(() => steppedDown.mock.calls.length === 1, 2000);
    await until(() => [a, b].filter((r) => r.engine.leads && r.leadership.isLeader).length === 1, 2000);
    expect([a, b].filter((r) => r.engine.leads || r.leadership.isLeader)).toHaveLength(1);
  });

  it('holds a console login made on one replica on the other, and ends it on both at a logout on the other', async () => {
    const password = 'correct horse battery staple';
    const { a, b } = await twoReplicas({ CONSOLE_PASSWORD: password });
    const login = await a.app.inject({ method: 'POST', url: '/console/login', payload: { password } });
    const set = login.cookies.find((c) => c.name === 'fxdesk_console')!;
    const cookie = `${set.name}=${set.value}`;
    const csrf = login.json<{ csrf_token: string }>().csrf_token;

    expect((await b.app.inject({ url: '/console/session', headers: { cookie } })).json()).toMatchObject({ authenticated: true, csrf_token: csrf });
    expect((await b.app.inject({ url: '/console/services', headers: { cookie } })).statusCode).toBe(200);
    const start = await b.app.inject({ method: 'POST', url: '/console/start', headers: { cookie, 'x-csrf-token': csrf }, payload: { dry_run: true } });
    expect(start.statusCode).toBe(200);

    expect((await b.app.inject({ method: 'POST', url: '/console/logout', headers: { cookie, 'x-csrf-token': csrf } })).statusCode).toBe(200);
    expect((await a.app.inject({ url: '/console/session', headers: { cookie } })).json()).toMatchObject({ authenticated: false });
    expect((await a.app.inject({ url: '/console/services', headers: { cookie } })).statusCode).toBe(401);
  });

  it('two replicas leading at once store and send each signal once', async () => {
    const { a, b, clock } = await twoReplicas();
    // As for a moment when the old leader has not yet seen that it lost the lead.
    await b.engine.lead({ autoStart: false });
    await a.app.inject({ method: 'POST', url: '/start' });
    await until(async () => (await status(b)).running, 2000);
    for (let i = 0; i < 24; i++) await advance(clock, [a, b], M5);
    await until(async () => (await a.store.unfinished()).length === 0, 5000);
    const stored = (await a.store.page({ limit: 500 })).signals.map((s) => s.signal_id);
    expect(stored.length).toBeGreaterThan(3);
    expect(new Set(stored).size).toBe(stored.length);
    const sent = [...orders(a), ...orders(b)];
    expect(sent.sort()).toEqual([...stored].sort());
  });
});
