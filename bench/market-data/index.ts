/**
 * Market-data streaming: N SSE clients on the market-data service (the real app, in a child
 * process, fed at R ticks/s by the simulated market's prices) beside a bare Node `http` SSE
 * broadcaster sending the same ticks, framed the same way, in the same run. The clients run in
 * this process, on raw http connections, so client and server never share an event loop.
 *
 *   npm run bench -- market-data [clients] [ticksPerSecond] [seconds]   (default 1000 50 10)
 *
 * Figures per server: delivered ticks/s (over all clients), p50/p99 tick-to-client latency
 * (receive time minus the tick's `ts`, which is the instant the tick was due, so a late server
 * shows as latency), ticks dropped for slow clients, the server's RSS at the end and its CPU
 * time over the window (100 % = one core).
 * Target (2 cores): 1,000 clients × 50 ticks/s, p99 < 100 ms, and ≥ 70% of the bare
 * broadcaster's delivered ticks/s. Not a test: nothing here fails on a slow machine.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { cpus } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ClientPool } from './clients.js';
import type { FromServer, ToServer } from './protocol.js';

const CLIENTS = Number(process.argv[2] ?? 1000);
const RATE = Number(process.argv[3] ?? 50);
const SECONDS = Number(process.argv[4] ?? 10);
const WARMUP_SECONDS = 3;
const API_KEY = 'bench-market-data-key';

interface Figures {
  name: string;
  deliveredPerSecond: number;
  p50: number;
  p99: number;
  dropped: number;
  missing: number;
  rssMb: number;
  cpuPercent: number;
}

type Report = Extract<FromServer, { type: 'report' }>;

class Server {
  private readonly child: ChildProcess;
  private readonly waiting: Array<(m: FromServer) => void> = [];

  constructor(script: string) {
    this.child = fork(path.join(import.meta.dirname, script), [String(RATE), String(CLIENTS)], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.child.on('message', (m: FromServer) => this.waiting.shift()?.(m));
  }

  next(): Promise<FromServer> {
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  async report(): Promise<Report> {
    const reply = this.next();
    this.child.send({ type: 'report' } satisfies ToServer);
    return (await reply) as Report;
  }

  async stop(): Promise<void> {
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.send({ type: 'stop' } satisfies ToServer);
    await Promise.race([exited, sleep(10_000).then(() => this.child.kill('SIGKILL'))]);
  }
}

async function measure(name: string, script: string, streamPath: string, headers: Record<string, string>): Promise<Figures> {
  const server = new Server(script);
  const ready = await server.next();
  if (ready.type !== 'ready') throw new Error(`${name} did not start`);
  const pool = new ClientPool();
  try {
    await pool.connect(ready.port, streamPath, headers, CLIENTS);
    await sleep(WARMUP_SECONDS * 1000);
    const before = await server.report();
    pool.reset();
    const startedAt = performance.now();
    await sleep(SECONDS * 1000);
    const after = await server.report();
    const elapsedSeconds = (performance.now() - startedAt) / 1000;
    const received = pool.received;
    const figures: Figures = {
      name,
      deliveredPerSecond: received / elapsedSeconds,
      p50: pool.percentile(0.5),
      p99: pool.percentile(0.99),
      dropped: after.dropped - before.dropped,
      missing: Math.max(0, (after.ticksPublished - before.ticksPublished) * CLIENTS - received),
      rssMb: after.rssBytes / 1_048_576,
      cpuPercent: (after.cpuMicros - before.cpuMicros) / 1e4 / elapsedSeconds,
    };
    if (after.clients !== CLIENTS) process.stdout.write(`  note: ${name} ended with ${after.clients} of ${CLIENTS} clients connected\n`);
    return figures;
  } finally {
    pool.close();
    await server.stop();
  }
}

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

process.stdout.write(
  `market-data streaming: ${fmt(CLIENTS)} SSE clients × ${RATE} ticks/s (ideal ${fmt(CLIENTS * RATE)} ticks/s delivered), ${SECONDS} s measured after ${WARMUP_SECONDS} s warm-up, ${cpus().length} CPUs\n`,
);
const bare = await measure('bare node:http broadcaster', 'bare-server.ts', '/', {});
const service = await measure('market-data service', 'service-server.ts', '/v1/stream/ticks', { 'x-api-key': API_KEY });

const rows = [bare, service].map((f) => [
  f.name,
  fmt(f.deliveredPerSecond),
  `${f.p50} ms`,
  `${f.p99} ms`,
  fmt(f.dropped),
  fmt(f.missing),
  `${fmt(f.rssMb, 1)} MB`,
  `${fmt(f.cpuPercent)} %`,
]);
const header = ['server', 'delivered ticks/s', 'p50', 'p99', 'dropped', 'not received', 'server RSS', 'server CPU'];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
for (const row of [header, ...rows])
  process.stdout.write(`  ${row.map((c, i) => (i === 0 ? c.padEnd(widths[i] as number) : c.padStart(widths[i] as number))).join('  ')}\n`);

const ratio = service.deliveredPerSecond / bare.deliveredPerSecond;
process.stdout.write(`ratio service / bare (delivered ticks/s): ${fmt(ratio * 100, 1)} %  (target ≥ 70 %: ${ratio >= 0.7 ? 'met' : 'NOT met'})\n`);
process.stdout.write(`service p99 ${service.p99} ms  (target < 100 ms: ${service.p99 < 100 ? 'met' : 'NOT met'})\n`);
process.stdout.write('"not received": ticks published in the window times clients, minus ticks counted by the clients (in flight at the edges, or dropped).\n');
