/**
 * Start-up time and memory of each service run both ways, in the same run: from TypeScript
 * through tsx, as `npm start` runs it (`node --import tsx services/<name>/src/server.ts`), and
 * compiled, as the image runs it (`node --enable-source-maps services/<name>/dist/server.js`,
 * built here first by the same function as `npm run build`), with the ratio compiled/tsx.
 *
 *   npm run bench -- startup [runs per way]     (default 5)
 *
 * Start: from spawn to the first 200 from /health/live (polled every 5 ms). RSS: the process's
 * resident set (VmRSS, so Linux only) 1 s after that, once start-up work has settled. Each
 * service keeps one DATA_DIR across its runs, as a restart would; the two ways alternate, after
 * one unmeasured run of each (which warms tsx's transform cache and the page cache).
 * On a shared 2-core machine (Node 20, 9 runs): compiled starts in 0.51–0.62 of tsx's time
 * (260–400 ms against 490–760 ms) and holds 0.71–0.75 of its memory (91–95 MB against
 * 126–132 MB a service; 465 MB against 646 MB for the five).
 * Not a test: nothing here fails on a slow machine.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { buildServices, type BuiltService } from '../../scripts/build-services.js';

const RUNS = Number(process.argv[2] ?? 5);
const SETTLE_MS = 1000;
const root = path.resolve(import.meta.dirname, '../..');

interface Way {
  label: string;
  args: (service: BuiltService) => string[];
}

const WAYS: Way[] = [
  { label: 'tsx', args: (s) => ['--import', 'tsx', s.entry] },
  { label: 'node', args: (s) => ['--enable-source-maps', s.outfile] },
];

interface Sample {
  startMs: number;
  rssMb: number;
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function live(url: string): Promise<boolean> {
  try {
    return (await fetch(url)).status === 200;
  } catch {
    return false;
  }
}

function rssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1]);
  return kb / 1024;
}

async function startOnce(service: BuiltService, way: Way, dataDir: string): Promise<Sample> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, way.args(service), {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  try {
    while (!(await live(`http://127.0.0.1:${port}/health/live`))) {
      if (child.exitCode !== null) throw new Error(`${service.name} (${way.label}) exited: ${stderr}`);
      if (performance.now() - started > 60_000) throw new Error(`${service.name} (${way.label}) did not answer in 60 s`);
      await sleep(5);
    }
    const startMs = performance.now() - started;
    await sleep(SETTLE_MS);
    return { startMs, rssMb: rssMb(child.pid as number) };
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

const buildStarted = performance.now();
const services = await buildServices(root);
const buildMs = performance.now() - buildStarted;
const dataRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'fxdesk-bench-startup-'));
process.stdout.write(
  `startup: ${services.length} services, ${RUNS} runs per way, Node ${process.version}, ${os.availableParallelism()} CPUs; bundles built in ${Math.round(buildMs)} ms\n\n`,
);

const rows: { name: string; tsx: Sample; node: Sample }[] = [];
try {
  for (const service of services) {
    const dataDir = path.join(dataRoot, service.name);
    const samples = new Map<string, Sample[]>(WAYS.map((w) => [w.label, []]));
    for (const way of WAYS) await startOnce(service, way, dataDir);
    for (let run = 0; run < RUNS; run++) {
      for (const way of WAYS) samples.get(way.label)?.push(await startOnce(service, way, dataDir));
    }
    const summary = (label: string): Sample => {
      const list = samples.get(label) ?? [];
      return { startMs: median(list.map((s) => s.startMs)), rssMb: median(list.map((s) => s.rssMb)) };
    };
    rows.push({ name: service.name, tsx: summary('tsx'), node: summary('node') });
    process.stderr.write(`  ${service.name} done\n`);
  }
} finally {
  fs.rmSync(dataRoot, { recursive: true, force: true });
}

const total = `sum of ${rows.length}`;
const width = Math.max(...rows.map((r) => r.name.length), total.length);
const line = (name: string, cells: string[]) => `${name.padEnd(width)}  ${cells.map((c) => c.padStart(8)).join('  ')}\n`;
process.stdout.write(line('service', ['tsx ms', 'node ms', 'ratio', 'tsx MB', 'node MB', 'ratio']));
for (const r of rows) {
  process.stdout.write(
    line(r.name, [
      r.tsx.startMs.toFixed(0),
      r.node.startMs.toFixed(0),
      (r.node.startMs / r.tsx.startMs).toFixed(2),
      r.tsx.rssMb.toFixed(1),
      r.node.rssMb.toFixed(1),
      (r.node.rssMb / r.tsx.rssMb).toFixed(2),
    ]),
  );
}
const sum = (pick: (r: (typeof rows)[number]) => number) => rows.reduce((acc, r) => acc + pick(r), 0);
const tsxRss = sum((r) => r.tsx.rssMb);
const nodeRss = sum((r) => r.node.rssMb);
process.stdout.write(line(total, ['', '', '', tsxRss.toFixed(1), nodeRss.toFixed(1), (nodeRss / tsxRss).toFixed(2)]));
process.stdout.write('\nstart: spawn to the first 200 from /health/live; RSS: VmRSS 1 s later; medians; ratio = node / tsx\n');
