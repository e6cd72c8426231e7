import { ExecutionClient, NotificationClient } from '@fxdesk/client';
import { createLogger } from '@fxdesk/core';
import { until } from '@fxdesk/core/testing';
import { ManualClock, systemClock } from '@fxdesk/primitives';
import pg from 'pg';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { LabRunner } from '../src/lab/jobs.js';
import { JOB_CHECK_MS, JOB_LEASE_MS } from '../src/lab/jobs.js';
import { SqlLabStore } from '../src/lab/sql-store.js';
import { PostgresLeadership } from '../src/postgres-leadership.js';
import { openStrategyStores } from '../src/store/index.js';
import { EventReader } from './event-reader.js';
import { accepted, fakeService, filled, type FakeService } from './fake-service.js';
import { harness, MONDAY_NOON, type Harness } from './helpers.js';
import { ManualRunner } from './lab-jobs.fixture.js';
import { postgresForFile } from './postgres-server.js';

/**
 * Replicas of the app in one process on a real PostgreSQL server: each its own store, election
 * session and simulated market (the same seed, so the same candles), on one manual clock for the
 * candles; the election runs on the wall clock, checking every 250 ms.
 */

const { unavailable, database } = postgresForFile();

// An election check fails when PostgreSQL takes longer than a check to answer: 250 ms, so a busy shared machine does not change the leader.
const CHECK_MS = 250;
/** The longest a test waits for what the election or the log settles (on a busy machine; a wait ends once it holds). */
const WAIT_MS = 20_000;
const M5 = 300_000;

interface Replica extends Harness {
  leadership: PostgresLeadership;
  /** Orders this replica sent, at a fake execution service of its own. */
  execution: FakeService;
  /** Announcements this replica sent, at a fake notification service of its own. */
  notification: FakeService;
}

let cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  cleanups = [];
});

interface ReplicaOptions {
  env?: Record<string, string>;
  /** Runs the lab's backtests: a pool of one worker thread by default. */
  labRunner?: LabRunner;
}

async function replica(url: string, replicaId: string, clock: ManualClock, { env = {}, labRunner }: ReplicaOptions = {}): Promise<Replica> {
  const execution = await fakeService(filled);
  const client = new ExecutionClient({ baseUrl: execution.url, apiKey: 'exec-key-123', timeoutMs: 2000 });
  const notification = await fakeService(accepted);
  const notificationClient = new NotificationClient({ baseUrl: notification.url, timeoutMs: 2000 });
  const logger = createLogger({ name: 'strategy', level: 'silent' });
  const leadership = new PostgresLeadership({ url, replicaId, clock: systemClock, logger, checkMs: CHECK_MS });
  const stores = await openStrategyStores({ databaseUrl: url });
  const labStore = await SqlLabStore.open({ databaseUrl: url, replicaId });
  const h = await harness({
    clock,
    stores,
    labStore,
    labRunner,
    env: { MIN_CONFLUENCE: '1', ...env },
    deps: { execution: client, notification: notificationClient, leadership, logger },
  });
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await h.close();
    await Promise.all([client.close(), notificationClient.close()]);
    await Promise.all([execution.close(), notification.close()]);
  };
  cleanups.push(close);
  return { ...h, close, leadership, execution, notification };
}

const ready = async (r: Replica) =>
  (await r.app.inject({ url: '/health/ready' })).json<{ checks: { leader: { ok: boolean; detail: string } } }>().checks.leader;
const status = async (r: Replica) => (await r.app.inject({ url: '/status' })).json<{ running: boolean; active_pairs: string[]; dry_run: boolean }>();
/** The orders a replica sent (its other calls to the execution service, the reads of positions and deals, are not orders). */
const orders = (r: Replica) =>
  r.execution.requests
    .filter((request) => request.method === 'POST' && request.url === '/v1/signals')
    .map((request) => (request.body as { signal_id: string }).signal_id);

/** A client of a replica's GET /events over HTTP (the replica listens on a port of its own). */
async function events(r: Replica, headers?: Record<string, string>): Promise<EventReader> {
  const address = r.app.server.listening ? r.app.listeningOrigin : await r.app.listen({ host: '127.0.0.1', port: 0 });
  const reader = await EventReader.open(`${address}/events`, headers);
  cleanups.push(async () => reader.close());
  return reader;
}

/** Moves the clock a candle at a time until the leader stored a signal and its order and announcement came back. */
async function untilSignalSettled(clock: ManualClock, leader: Replica, replicas: Replica[]): Promise<void> {
  for (let i = 0; i < 100 && (await leader.store.page({ limit: 1 })).signals.length === 0; i++) await advance(clock, replicas, M5);
  await until(async () => (await leader.store.page({ limit: 1 })).signals.length > 0 && (await leader.store.unfinished()).length === 0, WAIT_MS);
}

/** Two replicas on a fresh database, on one clock: `a` leads, `b` follows (its readiness says so). */
async function twoReplicas(options: ReplicaOptions = {}): Promise<{ a: Replica; b: Replica; clock: ManualClock; url: string }> {
  const url = await database();
  const clock = new ManualClock(MONDAY_NOON);
  const a = await replica(url, 'replica-a', clock, options);
  await until(() => a.leadership.isLeader, WAIT_MS);
  const b = await replica(url, 'replica-b', clock, options);
  await until(async () => (await ready(b)).detail === 'follower: replica replica-a leads', WAIT_MS);
  return { a, b, clock, url };
}

/** Moves the shared clock and lets every replica finish what it started. */
async function advance(clock: ManualClock, replicas: Replica[], ms: number): Promise<void> {
  clock.advance(ms);
  for (const r of replicas) await r.settle();
}

// Two replicas and a real server on a shared machine: waits are bounded generously (they end as soon as what they wait for holds).
describe.skipIf(unavailable !== undefined)(`replicas on one PostgreSQL${unavailable ? ` (skipped: ${unavailable})` : ''}`, { timeout: 60_000 }, () => {
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
    await until(async () => (await status(a)).running, WAIT_MS);
    expect(await status(a)).toMatchObject({ active_pairs: ['EUR_USD', 'USD_JPY'], dry_run: true });
    expect((await a.app.inject({ url: '/status' })).json().started_at).toBe(started.json().started_at);
    expect((await a.app.inject({ method: 'POST', url: '/start' })).json()).toMatchObject({ code: 'STRATEGY_ALREADY_RUNNING' });

    expect((await a.app.inject({ method: 'POST', url: '/stop' })).statusCode).toBe(200);
    await until(async () => !(await status(b)).running, WAIT_MS);
    expect((await b.app.inject({ method: 'POST', url: '/stop' })).json()).toMatchObject({ code: 'STRATEGY_NOT_RUNNING' });
  });

  it("tells a follower's /pairs and /signals the leader's signals, which only the leader sends", async () => {
    const { a, b, clock } = await twoReplicas();
    await a.app.inject({ method: 'POST', url: '/start', payload: { instruments: ['EUR_USD'] } });
    await until(async () => (await status(b)).running, WAIT_MS);
    for (let i = 0; i < 100 && (await a.store.page({ limit: 1 })).signals.length === 0; i++) await advance(clock, [a, b], M5);
    const [signal] = (await a.store.page({ limit: 1 })).signals;
    expect(signal).toBeDefined();
    await until(async () => (await b.app.inject({ url: '/pairs' })).json().pairs[0].last_signal?.time === signal!.generated_at, WAIT_MS);
    expect((await b.app.inject({ url: '/signals/EUR_USD' })).json().signal.signal_id).toBe(signal!.signal_id);
    await until(() => orders(a).length > 0, WAIT_MS);
    expect(orders(a)).toContain(signal!.signal_id);
    expect(orders(b)).toEqual([]);
  });

  it('hands the lead to a follower when the leader stops, which then decides and sends', async () => {
    const { a, b, clock } = await twoReplicas();
    await a.app.inject({ method: 'POST', url: '/start', payload: { instruments: ['EUR_USD', 'GBP_USD'] } });
    await until(async () => (await status(b)).running, WAIT_MS);
    await a.close();
    await until(() => b.leadership.isLeader, WAIT_MS);
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
    await until(() => steppedDown.mock.calls.length === 1, WAIT_MS);
    await until(() => [a, b].filter((r) => r.engine.leads && r.leadership.isLeader).length === 1, WAIT_MS);
    expect([a, b].filter((r) => r.engine.leads || r.leadership.isLeader)).toHaveLength(1);
  });

  it('holds a console login made on one replica on the other, and ends it on both at a logout on the other', async () => {
    const password = 'correct horse battery staple';
    const { a, b } = await twoReplicas({ env: { CONSOLE_PASSWORD: password } });
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

  it('reads, follows and cancels through one replica a backtest posted to and running on the other', async () => {
    const runner = new ManualRunner();
    const { a, b, clock } = await twoReplicas({ labRunner: runner });
    const onB = await events(b);
    const posted = await a.app.inject({ method: 'POST', url: '/backtests', payload: { instruments: ['EUR_USD'], from: '2025-12-01', to: '2025-12-06' } });
    expect(posted.statusCode).toBe(202);
    const { id } = posted.json<{ id: string }>();
    const call = await runner.next();
    const onBRecord = async () => (await b.app.inject({ url: `/backtests/${id}` })).json<{ status: string; progress: number }>();
    // Its candles read (the first fifth): written by A as it goes on.
    await until(async () => (await onBRecord()).progress === 0.2, WAIT_MS);
    expect(await onBRecord()).toMatchObject({ status: 'running' });

    call.onProgress(0.5);
    await until(async () => Math.abs((await onBRecord()).progress - 0.6) < 1e-9, WAIT_MS);
    expect((await b.app.inject({ url: '/backtests' })).json().backtests.map((x: { id: string }) => x.id)).toEqual([id]);

    const cancelled = await b.app.inject({ method: 'DELETE', url: `/backtests/${id}` });
    expect(cancelled.json()).toMatchObject({ id, status: 'cancelled' });
    // A learns it at its next check of its jobs, and stops the run.
    await advance(clock, [a, b], JOB_CHECK_MS);
    await until(() => call.signal?.aborted === true, WAIT_MS);
    await a.lab.whenIdle();
    expect((await a.app.inject({ url: `/backtests/${id}` })).json()).toMatchObject({ status: 'cancelled', progress: expect.closeTo(0.6, 9) });
    expect(runner.calls).toHaveLength(1);
    // A console on b followed it on b's /events: the job's events, logged where they happened.
    await onB.until((r) => r.ofType('lab').some((e) => (e.data as { status: string }).status === 'cancelled'), WAIT_MS);
    const labs = onB.ofType('lab').map((e) => e.data as { id: string; status: string });
    expect(labs.every((e) => e.id === id)).toBe(true);
    expect(labs.map((e) => e.status).filter((x, i, all) => x !== all[i - 1])).toEqual(['queued', 'running', 'cancelled']);
  });

  it('cancels through one replica a sweep running on the other, with its unfinished backtests', async () => {
    const runner = new ManualRunner();
    const { a, b, clock } = await twoReplicas({ labRunner: runner });
    const payload = { base: { instruments: ['EUR_USD'], from: '2025-12-01', to: '2025-12-06' }, grid: { min_confluence: [1, 2, 3] }, rank_by: 'net_profit' };
    const { id } = (await a.app.inject({ method: 'POST', url: '/sweeps', payload })).json<{ id: string }>();
    const first = await runner.next();
    const onB = async () => (await b.app.inject({ url: `/sweeps/${id}` })).json<{ status: string; results: Array<{ status: string }> }>();
    expect((await onB()).status).toBe('running');
    expect((await b.app.inject({ method: 'DELETE', url: `/sweeps/${id}` })).json()).toMatchObject({ id, status: 'cancelled' });
    await advance(clock, [a, b], JOB_CHECK_MS);
    await until(() => first.signal?.aborted === true, WAIT_MS);
    await a.lab.whenIdle();
    expect((await onB()).results.map((r) => r.status)).toEqual(['cancelled', 'cancelled', 'cancelled']);
    expect(runner.calls.length).toBeLessThanOrEqual(2);
  });

  it("fails a dead replica's jobs once their lease has passed, and a restarting replica only its own", async () => {
    const runner = new ManualRunner();
    const { a, b, clock, url } = await twoReplicas({ labRunner: runner });
    const { id: live } = (
      await a.app.inject({ method: 'POST', url: '/backtests', payload: { instruments: ['EUR_USD'], from: '2025-12-01', to: '2025-12-06' } })
    ).json();
    await runner.next();
    // What replica-c left when it was killed a moment ago: a job running, its lease good for 30 s more.
    const killed = await SqlLabStore.open({ databaseUrl: url, replicaId: 'replica-c' });
    const settings = (await a.app.inject({ url: `/backtests/${live}` })).json().settings;
    const stamps = { createdAt: new Date(clock.now()).toISOString(), leaseExpiresAt: new Date(clock.now() + JOB_LEASE_MS).toISOString() };
    await killed.insertBacktest({ id: 'restarted-job', name: null, settings, ...stamps });
    await killed.startBacktest('restarted-job', stamps.createdAt);
    await killed.close();
    // replica-c starts again (a container keeps its name): it fails what it left, not replica-a's running job.
    const restarted = await replica(url, 'replica-c', clock);
    const on = async (r: Replica, id: string) => (await r.app.inject({ url: `/backtests/${id}` })).json<{ status: string; error: unknown }>();
    expect(await on(restarted, 'restarted-job')).toMatchObject({ status: 'failed', error: { code: 'INTERRUPTED' } });
    expect(await on(restarted, live)).toMatchObject({ status: 'running' });
    await restarted.close();

    // replica-d dies for good, leaving a job queued: the others fail it once its lease has passed.
    const other = await SqlLabStore.open({ databaseUrl: url, replicaId: 'replica-d' });
    await other.insertBacktest({ id: 'dying', name: null, settings, ...stamps });
    await other.close();
    await advance(clock, [a, b], JOB_LEASE_MS - JOB_CHECK_MS);
    expect(await on(b, 'dying')).toMatchObject({ status: 'queued' });
    for (let i = 0; i < 3; i++) await advance(clock, [a, b], JOB_CHECK_MS);
    await until(async () => (await on(b, 'dying')).status === 'failed', WAIT_MS);
    expect(await on(a, 'dying')).toMatchObject({ status: 'failed', error: { code: 'INTERRUPTED' } });
    // replica-a renewed its own all along.
    expect(await on(b, live)).toMatchObject({ status: 'running' });
  });

  it("streams on a follower's /events the leader's signal, its order and its delivery, and shows the leader's downstream state", async () => {
    const { a, b, clock } = await twoReplicas();
    const reader = await events(b);
    await a.app.inject({ method: 'POST', url: '/start', payload: { instruments: ['EUR_USD'] } });
    await until(async () => (await status(b)).running, WAIT_MS);
    await untilSignalSettled(clock, a, [a, b]);
    const [signal] = (await a.store.page({ limit: 1 })).signals;
    // b reads the log at its next check of the election (every 250 ms here).
    await reader.until((r) => r.ofType('delivery').length > 0, WAIT_MS);
    const { signal_id, instrument, execution, notification } = signal!;
    expect(reader.ofType('signal').map((e) => e.data)).toContainEqual({ ...signal, execution: expect.anything(), notification: expect.anything() });
    expect(reader.ofType('order').map((e) => e.data)).toContainEqual({ signal_id, instrument, execution });
    expect(reader.ofType('delivery').map((e) => e.data)).toContainEqual({ signal_id, instrument, notification });
    expect(execution.status).toBe('filled');
    expect(notification.status).toBe('sent');
    expect(b.notification.requests).toHaveLength(0);
    // Its candles are the leader's, logged once.
    expect(reader.ofType('candle').length).toBeGreaterThan(0);

    await until(async () => (await b.app.inject({ url: '/status' })).json().downstream.notification.state === 'ok', WAIT_MS);
    const leaderView = (await a.app.inject({ url: '/status' })).json().downstream;
    const followerView = (await b.app.inject({ url: '/status' })).json().downstream;
    expect(followerView.execution).toEqual(leaderView.execution);
    expect(followerView.notification).toEqual(leaderView.notification);
    expect(reader.ofType('downstream').map((e) => (e.data as { service: string }).service)).toEqual(expect.arrayContaining(['execution', 'notification']));
  });

  it('resumes on one replica a stream that was reading the other, with the desk events it missed, each once, under the same ids', async () => {
    const { a, b, clock } = await twoReplicas();
    const onA = await events(a);
    await a.app.inject({ method: 'POST', url: '/start', payload: { instruments: ['EUR_USD', 'GBP_USD'] } });
    await until(async () => (await status(b)).running, WAIT_MS);
    await advance(clock, [a, b], M5);
    await onA.until((r) => r.ofType('candle').length >= 2, WAIT_MS);
    const last = onA.events.at(-1)!;
    onA.close();
    await untilSignalSettled(clock, a, [a, b]);
    await advance(clock, [a, b], M5);

    // The browser reconnects through the balancer, which sends it to b.
    const onB = await events(b, { 'last-event-id': last.id });
    const logged = (await a.stores.events.eventsAfter(last.desk, 1000))!;
    expect(logged.length).toBeGreaterThan(2);
    await onB.until((r) => r.events.some((e) => e.desk >= logged.at(-1)!.seq), WAIT_MS);
    const desk = onB.events.filter((e) => ['candle', 'signal', 'order', 'delivery', 'lab'].includes(e.event));
    expect(desk.map((e) => [e.desk, e.event, JSON.stringify(e.data)]).slice(0, logged.length)).toEqual(logged.map((e) => [e.seq, e.name, e.data]));
    expect(onB.ofType('reset')).toHaveLength(0);
    expect(new Set(desk.map((e) => e.desk)).size).toBe(desk.length);
  });

  it('two replicas leading at once store and send each signal once', async () => {
    const { a, b, clock } = await twoReplicas();
    // As for a moment when the old leader has not yet seen that it lost the lead.
    await b.engine.lead({ autoStart: false });
    await a.app.inject({ method: 'POST', url: '/start' });
    await until(async () => (await status(b)).running, WAIT_MS);
    for (let i = 0; i < 24; i++) await advance(clock, [a, b], M5);
    await until(async () => (await a.store.unfinished()).length === 0, WAIT_MS);
    const stored = (await a.store.page({ limit: 500 })).signals.map((s) => s.signal_id);
    expect(stored.length).toBeGreaterThan(3);
    expect(new Set(stored).size).toBe(stored.length);
    const sent = [...orders(a), ...orders(b)];
    expect(sent.sort()).toEqual([...stored].sort());
  });
});
