/**
 * Notification throughput: POST /notifications per second of the real service (durable SQLite
 * with synchronous=FULL, group commit, sandbox transports, the outbox sending as it goes)
 * beside bare Fastify answering the same 201 body, measured in the same run with the same load,
 * each server in its own process; then the outbox alone draining a backlog, in deliveries/s, on
 * SQLite and again on PostgreSQL (DATABASE_URL: a durable server of its own from the Debian
 * package, fsync and synchronous_commit on; skipped with the reason when it cannot run here).
 *
 *   npm run bench -- notification [seconds] [connections] [backlog] [rounds]   (defaults 10, 50, 20000, 2)
 *   npm run bench -- notification render [runs]   (the renderers alone: render.ts)
 *
 * The servers run in alternating rounds and each row reports its best round, which damps the
 * noise of a shared machine without favouring either side.
 *
 * Every POST carries a fresh idempotencyKey, as a caller that retries safely would. Target on
 * this machine: at least 1,500 requests/s. Not a test: nothing here fails on a slow machine.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import autocannon from 'autocannon';
import { loadConfig } from '@fxdesk/core';
import { systemClock } from '@fxdesk/primitives';
import { postgresUnavailable, startPostgres } from '../../packages/core/testing/engines.js';
import { buildApp } from '../../services/notification/src/app.js';
import { NotificationConfigSchema } from '../../services/notification/src/config.js';
import type { DatabaseNotificationStore } from '../../services/notification/src/database-store.js';
import { openDeps } from '../../services/notification/src/deps.js';
import type { NotificationStore } from '../../services/notification/src/store.js';

if (process.argv[2] === 'render') {
  await import('./render.js');
  process.exit(0);
}

const SECONDS = Number(process.argv[2] ?? 10);
const CONNECTIONS = Number(process.argv[3] ?? 50);
const BACKLOG = Number(process.argv[4] ?? 20_000);
/** Alternating rounds (bare, service, bare, service…); each row reports its best round. */
const ROUNDS = Number(process.argv[5] ?? 2);
const TARGET = 1500;
const WARMUP_SECONDS = 2;
const KEY = 'bench-notification-key';
const here = import.meta.dirname;

interface Server {
  child: ChildProcess;
  port: number;
  lines: readline.Interface;
}

async function startServer(mode: 'service' | 'bare', dataDir: string): Promise<Server> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(here, 'server.ts'), mode, dataDir, KEY], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = readline.createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const port = await new Promise<number>((resolve, reject) => {
    lines.once('line', (line) => resolve((JSON.parse(line) as { port: number }).port));
    child.once('exit', (code) => reject(new Error(`${mode} server exited with ${code}`)));
  });
  return { child, port, lines };
}

async function stopServer(server: Server): Promise<unknown> {
  const last = new Promise<unknown>((resolve) => {
    server.lines.once('line', (line) => resolve(JSON.parse(line)));
    server.child.once('exit', () => resolve(undefined));
  });
  server.child.kill('SIGTERM');
  return last;
}

async function load(port: number, seconds: number): Promise<autocannon.Result> {
  let n = 0;
  const prefix = randomUUID();
  return autocannon({
    url: `http://127.0.0.1:${port}/notifications`,
    connections: CONNECTIONS,
    duration: seconds,
    requests: [
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': KEY },
        setupRequest: (req) => ({
          ...req,
          body: JSON.stringify({ message: 'EUR_USD long filled at 1.0850', channels: ['CHAT_APP'], source: 'bench', idempotencyKey: `${prefix}-${++n}` }),
        }),
      },
    ],
  });
}

async function measure(mode: 'service' | 'bare'): Promise<{ result: autocannon.Result; stats: unknown }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `fxdesk-bench-${mode}-`));
  const server = await startServer(mode, dir);
  await load(server.port, WARMUP_SECONDS); // warm-up: JIT, connection pools, SQLite pages
  const result = await load(server.port, SECONDS);
  const stats = await stopServer(server);
  fs.rmSync(dir, { recursive: true, force: true });
  return { result, stats };
}

interface Drain {
  deliveries: number;
  seconds: number;
  /** Where the engine groups commits (SQLite): the commits and the writes in them. */
  commits: { commits: number; operations: number } | undefined;
}

/** The store's commits and the writes in them so far, where its engine groups commits (SQLite). */
function commitCount(store: NotificationStore): { commits: number; operations: number } | undefined {
  const stats = (store as DatabaseNotificationStore).db.commitStats;
  return stats && { commits: stats.commits, operations: stats.operations };
}

/** The outbox alone: a stored backlog drained through the sandbox transport (`env`: DATABASE_URL for PostgreSQL). */
async function drainBacklog(env: Record<string, string> = {}): Promise<Drain> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fxdesk-bench-outbox-'));
  const config = loadConfig(NotificationConfigSchema, { LOG_LEVEL: 'silent', DATA_DIR: dir, RATE_LIMIT_PER_MINUTE: '0', CHAT_APP_CHAT_IDS: '111', ...env });
  const deps = await openDeps(config, { clock: systemClock });
  const { app, store, outbox } = await buildApp({ config, deps });
  app.addHook('onClose', deps.close);
  await app.ready();
  await outbox.stop();
  const batch = 500;
  for (let i = 0; i < BACKLOG; i += batch) {
    await Promise.all(
      Array.from({ length: Math.min(batch, BACKLOG - i) }, () =>
        store.create({
          requestId: randomUUID(),
          source: 'bench',
          idempotencyKey: undefined,
          message: 'EUR_USD long filled at 1.0850',
          subject: undefined,
          contentType: 'text',
          channels: ['CHAT_APP'],
          payloadHash: 'bench',
          deliveries: [{ id: randomUUID(), channel: 'CHAT_APP', recipient: '111' }],
          now: Date.now(),
        }),
      ),
    );
  }
  const before = commitCount(store);
  const started = performance.now();
  outbox.start();
  await outbox.settle();
  const seconds = (performance.now() - started) / 1000;
  const after = commitCount(store);
  const sent = (await store.countByStatus()).sent ?? 0;
  await app.close();
  fs.rmSync(dir, { recursive: true, force: true });
  const commits = before && after ? { commits: after.commits - before.commits, operations: after.operations - before.operations } : undefined;
  return { deliveries: sent, seconds, commits };
}

/** The same drain with the store in PostgreSQL, or the reason it cannot run here. */
async function drainOnPostgres(): Promise<Drain | string> {
  const missing = postgresUnavailable();
  if (missing) return missing;
  const server = await startPostgres({ durable: true });
  try {
    return await drainBacklog({ DATABASE_URL: await server.createDatabase() });
  } finally {
    await server.stop();
  }
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

process.stdout.write(
  `notification bench: ${SECONDS} s per server and round, ${ROUNDS} rounds, ${CONNECTIONS} connections, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'})\n\n`,
);
const best = (a: autocannon.Result | undefined, b: autocannon.Result) => (a && a.requests.average >= b.requests.average ? a : b);
let bareBest: autocannon.Result | undefined;
let serviceBest: autocannon.Result | undefined;
let serviceStats: unknown;
for (let round = 0; round < ROUNDS; round++) {
  bareBest = best(bareBest, (await measure('bare')).result);
  const service = await measure('service');
  if (!serviceBest || service.result.requests.average > serviceBest.requests.average) serviceStats = service.stats;
  serviceBest = best(serviceBest, service.result);
}
const bare = bareBest as autocannon.Result;
const service = { result: serviceBest as autocannon.Result, stats: serviceStats };
const ratio = service.result.requests.average / bare.requests.average;
const rows = [
  ['bare Fastify (same 201 body)', bare],
  ['POST /notifications (SQLite FULL, outbox on)', service.result],
] as const;
process.stdout.write(`${'server'.padEnd(48)}${'req/s'.padStart(10)}${'p50 ms'.padStart(9)}${'p99 ms'.padStart(9)}${'errors'.padStart(8)}\n`);
for (const [name, r] of rows) {
  process.stdout.write(
    `${name.padEnd(48)}${fmt(r.requests.average).padStart(10)}${String(r.latency.p50).padStart(9)}${String(r.latency.p99).padStart(9)}${String(r.errors + r.non2xx).padStart(8)}\n`,
  );
}
process.stdout.write(`\nratio service / bare Fastify: ${ratio.toFixed(3)} (${(ratio * 100).toFixed(1)} %)\n`);
process.stdout.write(`target ≥ ${fmt(TARGET)} req/s: ${service.result.requests.average >= TARGET ? 'met' : 'NOT met'}\n`);
process.stdout.write(`service after the run: ${JSON.stringify(service.stats)}\n`);

const drain = await drainBacklog();
const onPostgres = await drainOnPostgres();
const drainRate = drain.deliveries / drain.seconds;
const sentDuringRun = ((service.stats as { deliveries?: { sent?: number } } | undefined)?.deliveries?.sent ?? 0) / (WARMUP_SECONDS + SECONDS);
process.stdout.write(
  `\noutbox during the POST run: ${fmt(sentDuringRun)} deliveries/s sent while taking the POSTs (ratio to bare Fastify req/s: ${(sentDuringRun / bare.requests.average).toFixed(3)})\n` +
    `outbox alone: ${fmt(drain.deliveries)} deliveries in ${drain.seconds.toFixed(2)} s = ${fmt(drainRate)} deliveries/s ` +
    `(${drain.commits ? `${fmt(drain.commits.commits)} commits for ${fmt(drain.commits.operations)} writes; ` : ''}ratio to bare Fastify req/s: ${(drainRate / bare.requests.average).toFixed(3)})\n` +
    (typeof onPostgres === 'string'
      ? `outbox alone on PostgreSQL: skipped (${onPostgres})\n`
      : `outbox alone on PostgreSQL (durable): ${fmt(onPostgres.deliveries)} deliveries in ${onPostgres.seconds.toFixed(2)} s = ` +
        `${fmt(onPostgres.deliveries / onPostgres.seconds)} deliveries/s (ratio to SQLite: ` +
        `${(onPostgres.deliveries / onPostgres.seconds / drainRate).toFixed(3)})\n`),
);
