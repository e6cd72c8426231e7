/**
 * Market-data streaming: N SSE clients on the market-data service (the real app, in a child
 * process, fed at R ticks/s by the simulated market's prices) beside a bare Node `http` SSE
 * broadcaster sending the same ticks, framed the same way, in the same run. The clients run in
 * this process, on raw http connections, so client and server never share an event loop.
 *
 *   npm run bench -- market-data [clients] [ticksPerSecond] [seconds]              (default 1000 50 10)
 *   npm run bench -- market-data --replicas [clients] [ticksPerSecond] [seconds]   (default 10000 5 10)
 *
 * With --replicas the service runs as the scaled desk runs it: two replica processes on a Redis
 * server of the Debian package (one holds the lease, connects its feed and appends the ticks to
 * the Redis stream; both stream from it), behind nginx (the config scripts/scale.ts writes for
 * `npm run start:scale`, two workers), which the clients connect to.
 *
 * Figures per server: delivered ticks/s (over all clients), p50/p99 tick-to-client latency
 * (receive time minus the tick's `ts`, which is the instant the tick was due, so a late server
 * shows as latency), ticks dropped for slow clients, the servers' RSS at the end and their CPU
 * time over the window (100 % = one core; nginx's workers, Redis and the clients of this process
 * counted apart, beside).
 * Targets (2 cores): 1,000 clients × 50 ticks/s, p99 < 100 ms and ≥ 70% of the bare
 * broadcaster's delivered ticks/s; with --replicas, 10,000 clients × 5 ticks/s over two replicas
 * behind the balancer, p99 < 100 ms and ≥ 90% of the bare broadcaster. Not a test: nothing here
 * fails on a slow machine.
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { answers, ensureDebianPackage, freePort, startRedis, until, type RunningEngine } from '@fxdesk/core/testing';
import { nginxConfig } from '../../scripts/scale.js';
import { cpuSeconds } from '../proc.js';
import { ClientPool } from './clients.js';
import type { FromServer, ToServer } from './protocol.js';

const REPLICAS = process.argv.includes('--replicas');
const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const CLIENTS = Number(args[0] ?? (REPLICAS ? 10_000 : 1000));
const RATE = Number(args[1] ?? (REPLICAS ? 5 : 50));
const SECONDS = Number(args[2] ?? 10);
const WARMUP_SECONDS = 3;
const API_KEY = 'bench-market-data-key';
const TARGET_RATIO = REPLICAS ? 0.9 : 0.7;

interface Figures {
  name: string;
  deliveredPerSecond: number;
  p50: number;
  p99: number;
  dropped: number;
  missing: number;
  rssMb: number;
  cpuPercent: number;
  /** CPU of what stands beside the servers (nginx, Redis), when they run. */
  besideCpu: string;
}

type Report = Extract<FromServer, { type: 'report' }>;

class Server {
  private readonly child: ChildProcess;
  private readonly waiting: Array<(m: FromServer) => void> = [];

  constructor(script: string, extraArgs: string[] = []) {
    this.child = fork(path.join(import.meta.dirname, script), [String(RATE), String(CLIENTS), ...extraArgs], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.child.on('message', (m: FromServer) => this.waiting.shift()?.(m));
  }

  next(): Promise<FromServer> {
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  async port(): Promise<number> {
    const ready = await this.next();
    if (ready.type !== 'ready') throw new Error('the server did not start');
    return ready.port;
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

/** What the clients connect to: one server, or nginx before replicas; its reporting servers; its companions' CPU. */
interface Target {
  port: number;
  servers: Server[];
  /** CPU seconds of the processes beside the servers so far (nginx, Redis). */
  besideCpuSeconds: () => Record<string, number>;
  stop: () => Promise<void>;
}

async function single(script: string): Promise<Target> {
  const server = new Server(script);
  const port = await server.port();
  return { port, servers: [server], besideCpuSeconds: () => ({}), stop: () => server.stop() };
}

/** Two replicas on a Redis of their own, behind nginx. */
async function replicas(): Promise<Target> {
  const nginx = ensureDebianPackage('nginx', 'nginx-light');
  const redis: RunningEngine = await startRedis();
  const servers = [new Server('service-server.ts', [redis.url]), new Server('service-server.ts', [redis.url])];
  const ports = await Promise.all(servers.map((s) => s.port()));
  // Both stream once the catalog and the first ticks are in Redis: each is ready then.
  await until(async () => (await Promise.all(ports.map((p) => answers(`http://127.0.0.1:${p}/health/ready`)))).every(Boolean), 60_000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fxdesk-bench-nginx-'));
  fs.mkdirSync(path.join(dir, 'temp'));
  const port = await freePort();
  const config = nginxConfig([{ service: 'market-data', listen: `127.0.0.1:${port}`, servers: ports.map((p) => `127.0.0.1:${p}`) }], {
    tempDir: path.join(dir, 'temp'),
  });
  fs.writeFileSync(path.join(dir, 'nginx.conf'), config);
  const balancer = spawn(nginx, ['-p', dir, '-c', path.join(dir, 'nginx.conf'), '-e', 'stderr', '-g', `daemon off; pid ${dir}/nginx.pid;`], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  await until(() => answers(`http://127.0.0.1:${port}/health/live`), 30_000);
  const redisPid = findPid('redis-server', redis.url);
  return {
    port,
    servers,
    besideCpuSeconds: () => ({ nginx: childrenCpuSeconds(balancer.pid as number), redis: cpuSeconds(redisPid) }),
    stop: async () => {
      balancer.kill('SIGTERM');
      await Promise.all(servers.map((s) => s.stop()));
      await redis.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** CPU seconds of a process and its children (nginx's master and its workers). */
function childrenCpuSeconds(pid: number): number {
  const children = fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  return [pid, ...children].reduce((sum, p) => sum + cpuSeconds(p), 0);
}

/** The pid of the program listening at the url's port, found by its command line. */
function findPid(program: string, url: string): number | undefined {
  const port = new URL(url).port;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (cmdline.includes(program) && cmdline.includes(port)) return Number(entry);
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}

async function measure(name: string, start: () => Promise<Target>, streamPath: string, headers: Record<string, string>): Promise<Figures> {
  const target = await start();
  const pool = new ClientPool();
  try {
    await pool.connect(target.port, streamPath, headers, CLIENTS);
    await sleep(WARMUP_SECONDS * 1000);
    const reportAll = () => Promise.all(target.servers.map((s) => s.report()));
    const before = await reportAll();
    const besideBefore = target.besideCpuSeconds();
    pool.reset();
    const clientCpuBefore = process.cpuUsage();
    const startedAt = performance.now();
    await sleep(SECONDS * 1000);
    const after = await reportAll();
    const besideAfter = target.besideCpuSeconds();
    const elapsedSeconds = (performance.now() - startedAt) / 1000;
    const clientCpu = process.cpuUsage(clientCpuBefore);
    const received = pool.received;
    const sum = (f: (r: Report, i: number) => number) => after.reduce((total, r, i) => total + f(r, i), 0);
    // Every tick a server published in the window, once for each of its clients.
    const expected = sum((r, i) => (r.ticksPublished - (before[i] as Report).ticksPublished) * r.clients);
    const figures: Figures = {
      name,
      deliveredPerSecond: received / elapsedSeconds,
      p50: pool.percentile(0.5),
      p99: pool.percentile(0.99),
      dropped: sum((r, i) => r.dropped - (before[i] as Report).dropped),
      missing: Math.max(0, expected - received),
      rssMb: sum((r) => r.rssBytes) / 1_048_576,
      cpuPercent: sum((r, i) => r.cpuMicros - (before[i] as Report).cpuMicros) / 1e4 / elapsedSeconds,
      besideCpu: [
        ...Object.entries(besideAfter).map(([what, s]) => `${what} ${fmt(((s - (besideBefore[what] ?? 0)) / elapsedSeconds) * 100)} %`),
        `clients ${fmt((clientCpu.user + clientCpu.system) / 1e4 / elapsedSeconds)} %`,
      ].join(', '),
    };
    const connected = sum((r) => r.clients);
    if (connected !== CLIENTS) process.stdout.write(`  note: ${name} ended with ${connected} of ${CLIENTS} clients connected\n`);
    if (target.servers.length > 1) process.stdout.write(`  ${name}: clients per replica ${after.map((r) => r.clients).join(' + ')}\n`);
    return figures;
  } finally {
    pool.close();
    await target.stop();
  }
}

function fmt(n: number, digits = 0): string {
  return n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

process.stdout.write(
  `market-data streaming: ${fmt(CLIENTS)} SSE clients × ${RATE} ticks/s (ideal ${fmt(CLIENTS * RATE)} ticks/s delivered), ${SECONDS} s measured after ${WARMUP_SECONDS} s warm-up, ${os.availableParallelism()} CPUs\n`,
);
const serviceName = REPLICAS ? 'market-data, 2 replicas behind nginx' : 'market-data service';
const bare = await measure('bare node:http broadcaster', () => single('bare-server.ts'), '/', {});
const service = await measure(serviceName, REPLICAS ? replicas : () => single('service-server.ts'), '/v1/stream/ticks', { 'x-api-key': API_KEY });

const rows = [bare, service].map((f) => [
  f.name,
  fmt(f.deliveredPerSecond),
  `${f.p50} ms`,
  `${f.p99} ms`,
  fmt(f.dropped),
  fmt(f.missing),
  `${fmt(f.rssMb, 1)} MB`,
  `${fmt(f.cpuPercent)} %`,
  f.besideCpu || '-',
]);
const header = ['server', 'delivered ticks/s', 'p50', 'p99', 'dropped', 'not received', 'server RSS', 'server CPU', 'beside'];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
for (const row of [header, ...rows])
  process.stdout.write(`  ${row.map((c, i) => (i === 0 ? c.padEnd(widths[i] as number) : c.padStart(widths[i] as number))).join('  ')}\n`);

const ratio = service.deliveredPerSecond / bare.deliveredPerSecond;
process.stdout.write(
  `ratio service / bare (delivered ticks/s): ${fmt(ratio * 100, 1)} %  (target ≥ ${TARGET_RATIO * 100} %: ${ratio >= TARGET_RATIO ? 'met' : 'NOT met'})\n`,
);
process.stdout.write(`service p99 ${service.p99} ms  (target < 100 ms: ${service.p99 < 100 ? 'met' : 'NOT met'})\n`);
process.stdout.write('"not received": ticks published in the window times clients, minus ticks counted by the clients (in flight at the edges, or dropped).\n');
process.exit(0);
