/**
 * POST /v1/signals throughput and latency of the real execution server (simulated terminal,
 * durable SQLite: WAL, synchronous=FULL, group commit) beside bare Fastify validating and
 * echoing the same body, measured in the same run, and the ratio.
 *
 *   npm run bench -- execution [seconds per run] [connections]     (default 10 s, 64)
 *
 * Every request carries a fresh signal_id (a market buy of 0.01 EURUSD), so each one is a full
 * claim → checks → order_check → order_send → outcome, with two durable commits. Each server
 * runs in its own process; autocannon runs in this one. A short warm-up precedes each run.
 *
 * A third row runs the same app (same pipeline, same durable store) on a terminal whose calls
 * cost nothing (stub-server.ts), to separate the service's own cost from the simulated
 * terminal's. The simulated terminal keeps per-symbol running totals and trigger books, so its
 * cost per call does not depend on the positions the run opens. On a quiet 2-core machine:
 * simulated terminal 9,199 signals/s (p50 5 ms, p99 15 ms), zero-cost terminal 10,873/s, bare
 * Fastify validate + echo 50,937 req/s, ratio 0.181.
 *
 * A fourth row runs the real server on the simulated terminal with its signals in PostgreSQL
 * (DATABASE_URL), on a durable server of its own started from the Debian package (skipped, with
 * the reason, where PostgreSQL cannot run), beside the SQLite row of the same run.
 * Not a test: nothing here fails on a slow machine.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { postgresUnavailable, startPostgres } from '../../packages/core/testing/engines.js';

const SECONDS = Number(process.argv[2] ?? 10);
const CONNECTIONS = Number(process.argv[3] ?? 64);
const WARMUP_SECONDS = 2;
const TARGET = 2000;
const KEY = 'bench-execution-key';
const root = path.resolve(import.meta.dirname, '../..');

interface Figures {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  total: number;
  non2xx: number;
  errors: number;
}

function start(entry: string, port: number, env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, entry)], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PORT: String(port), ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    const deadline = setTimeout(() => reject(new Error(`${entry} did not start`)), 30_000);
    const poll = async () => {
      try {
        const res = await fetch(`http://127.0.0.1:${port}/health/ready`).catch(() => fetch(`http://127.0.0.1:${port}/`));
        if (res.status < 500) {
          clearTimeout(deadline);
          resolve(child);
          return;
        }
      } catch {
        // not up yet
      }
      setTimeout(() => void poll(), 100);
    };
    child.on('exit', (code) => reject(new Error(`${entry} exited ${code}`)));
    void poll();
  });
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.removeAllListeners('exit');
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

function signalBody(): string {
  return JSON.stringify({
    signal_id: randomUUID(),
    occurred_at: new Date().toISOString(),
    execution_type: 'market',
    symbol: 'EURUSD',
    direction: 'buy',
    volume: '0.01',
    source: 'fxdesk-strategy',
  });
}

async function load(port: number, seconds: number): Promise<Figures> {
  const result = await autocannon({
    url: `http://127.0.0.1:${port}`,
    connections: CONNECTIONS,
    duration: seconds,
    requests: [
      {
        method: 'POST',
        path: '/v1/signals',
        headers: { 'content-type': 'application/json', 'x-api-key': KEY },
        setupRequest: (request) => ({ ...request, body: signalBody() }),
      },
    ],
  });
  return {
    requestsPerSecond: result.requests.total / seconds,
    p50: result.latency.p50,
    p99: result.latency.p99,
    total: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

async function measure(name: string, entry: string, port: number, env: Record<string, string>): Promise<Figures> {
  const child = await start(entry, port, env);
  try {
    await load(port, WARMUP_SECONDS);
    const figures = await load(port, SECONDS);
    process.stdout.write(`  ${name}: done\n`);
    return figures;
  } finally {
    await stop(child);
  }
}

/** Signals stored `filled` in a run's database. */
async function filledIn(dataDir: string): Promise<number> {
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(path.join(dataDir, 'execution.db'), { readonly: true });
  const { n } = db.prepare("SELECT COUNT(*) AS n FROM signals WHERE state = 'filled'").get() as { n: number };
  db.close();
  return n;
}

const SERVICE_ENV = {
  API_KEY: KEY,
  TRADING_ENABLED: 'true',
  SIM_MARKET_HOURS: 'false',
  SIM_STARTING_BALANCE: '1000000000000',
  RATE_LIMIT_PER_MINUTE: '0',
  LOG_LEVEL: 'warn',
  NODE_ENV: 'production',
};

/**
 * The simulated-terminal row again with the signals in PostgreSQL (DATABASE_URL): a server of its
 * own from the Debian package, durable as in production (fsync, synchronous_commit on). The reason
 * instead when PostgreSQL cannot run here.
 */
async function measureOnPostgres(dataDir: string): Promise<Figures | string> {
  const missing = postgresUnavailable();
  if (missing) return missing;
  const server = await startPostgres({ durable: true });
  try {
    const env = { ...SERVICE_ENV, DATA_DIR: dataDir, DATABASE_URL: await server.createDatabase() };
    return await measure('execution service, simulated terminal, PostgreSQL', 'services/execution/src/server.ts', 18_404, env);
  } finally {
    await server.stop();
  }
}

const dataDirs = [0, 1, 2].map(() => fs.mkdtempSync(path.join(os.tmpdir(), 'fxdesk-bench-exec-')));
try {
  process.stdout.write(`bench/execution: ${SECONDS} s per run, ${CONNECTIONS} connections, ${os.cpus().length} CPUs\n`);
  const baseline = await measure('bare Fastify (zod-validate and echo)', 'bench/execution/baseline.ts', 18_401, {});
  const simulated = await measure('execution service, simulated terminal', 'services/execution/src/server.ts', 18_402, {
    ...SERVICE_ENV,
    DATA_DIR: dataDirs[0]!,
  });
  const stub = await measure('execution service, zero-cost terminal', 'bench/execution/stub-server.ts', 18_403, { ...SERVICE_ENV, DATA_DIR: dataDirs[1]! });
  const postgres = await measureOnPostgres(dataDirs[2]!);
  const filled = await filledIn(dataDirs[0]!);
  const row = (name: string, f: Figures) =>
    `${name.padEnd(44)} ${f.requestsPerSecond.toFixed(0).padStart(7)} req/s   p50 ${f.p50.toFixed(1).padStart(6)} ms   p99 ${f.p99.toFixed(1).padStart(7)} ms   non-2xx ${f.non2xx}   errors ${f.errors}`;
  const ratio = (f: Figures) => (f.requestsPerSecond / baseline.requestsPerSecond).toFixed(3);
  process.stdout.write('\n');
  process.stdout.write(`${row('bare Fastify, validate + echo (baseline)', baseline)}\n`);
  process.stdout.write(`${row('POST /v1/signals, simulated terminal', simulated)}   ratio ${ratio(simulated)}\n`);
  process.stdout.write(`${row('POST /v1/signals, zero-cost terminal', stub)}   ratio ${ratio(stub)}\n`);
  if (typeof postgres === 'string') process.stdout.write(`POST /v1/signals on PostgreSQL: skipped (${postgres})\n`);
  else {
    const toSqlite = (postgres.requestsPerSecond / simulated.requestsPerSecond).toFixed(3);
    process.stdout.write(`${row('POST /v1/signals, simulated, PostgreSQL', postgres)}   ratio ${ratio(postgres)}, to SQLite ${toSqlite}\n`);
  }
  process.stdout.write(`\nsignals filled and stored durably on the simulated terminal (warm-up included): ${filled}\n`);
  for (const [name, f] of [
    ['simulated terminal', simulated],
    ['zero-cost terminal', stub],
  ] as const) {
    process.stdout.write(`target >= ${TARGET} signals/s with the ${name}: ${f.requestsPerSecond >= TARGET ? 'met' : 'NOT met'} on this machine\n`);
  }
} finally {
  for (const dir of dataDirs) fs.rmSync(dir, { recursive: true, force: true });
}
