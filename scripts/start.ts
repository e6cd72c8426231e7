/**
 * `npm start`: runs the whole desk from one terminal. `npm start -- <service>` (or
 * `npm run start:<service>`) runs one service alone on its own default port.
 *
 * Reads `.env` when present (the shell wins over the file), prefixes every log line with its
 * service, stops everything on Ctrl-C, and exits non-zero when a service dies.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseEnv } from 'node:util';
import { formatLogLine } from './log-format.js';
import { serviceEnv, stackPortOf, type Env } from './stack-env.js';
import { STACK, type StackService } from './stack.js';

const root = path.resolve(import.meta.dirname, '..');
const COLORS = ['\x1b[36m', '\x1b[35m', '\x1b[33m', '\x1b[32m', '\x1b[34m'];
const RESET = '\x1b[0m';
/** Longer than any service's own shutdown wait at its default settings. */
const FORCE_STOP_AFTER_MS = 90_000;

function loadBaseEnv(): Env {
  const file = path.join(root, '.env');
  const fromFile = fs.existsSync(file) ? (parseEnv(fs.readFileSync(file, 'utf8')) as Env) : {};
  return { ...fromFile, ...process.env };
}

function selectServices(args: string[]): StackService[] {
  if (args.length === 0) return [...STACK];
  const unknown = args.filter((a) => !STACK.some((s) => s.name === a));
  if (unknown.length > 0) {
    process.stderr.write(`unknown service ${unknown.join(', ')}; choose from ${STACK.map((s) => s.name).join(', ')}\n`);
    process.exit(2);
  }
  return STACK.filter((s) => args.includes(s.name));
}

function pipeLines(stream: NodeJS.ReadableStream, prefix: string, out: NodeJS.WriteStream, raw: boolean): void {
  let pending = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    pending += chunk;
    let nl: number;
    while ((nl = pending.indexOf('\n')) >= 0) {
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      out.write(`${prefix} ${raw ? line : formatLogLine(line)}\n`);
    }
  });
  stream.on('end', () => {
    if (pending) out.write(`${prefix} ${pending}\n`);
  });
}

async function waitLive(port: number, deadline: number): Promise<boolean> {
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/health/live`);
      if (res.ok) return true;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return false;
}

async function main(): Promise<void> {
  const base = loadBaseEnv();
  const services = selectServices(process.argv.slice(2));
  const alone = services.length === 1 && process.argv.length > 2;
  const raw = base.LOG_FORMAT === 'json';
  const width = Math.max(...services.map((s) => s.name.length));
  const children = new Map<string, ChildProcess>();
  const devKeys = new Set<string>();
  const notes: string[] = [];
  let stopping = false;
  let exitCode = 0;

  const killAll = () => {
    for (const child of children.values()) if (child.exitCode === null) child.kill('SIGKILL');
  };
  // Services finish what is in flight before they exit (an order in flight may take the
  // execution service's whole timeouts), so the stack waits for them; a second Ctrl-C forces.
  let stoppingSince = 0;
  const stopAll = (code: number) => {
    if (stopping) {
      // The one Ctrl-C may arrive twice (from the terminal and relayed by npm/tsx): only a later one forces.
      if (Date.now() - stoppingSince > 1000) killAll();
      return;
    }
    stopping = true;
    stoppingSince = Date.now();
    exitCode = code;
    for (const child of children.values()) if (child.exitCode === null) child.kill('SIGTERM');
    setTimeout(killAll, FORCE_STOP_AFTER_MS).unref();
  };

  services.forEach((service, i) => {
    const prepared = alone ? { env: base, devKeys: [], notes: [] } : serviceEnv(service, base);
    prepared.devKeys.forEach((k) => devKeys.add(k));
    notes.push(...prepared.notes.map((n) => `${service.name}: ${n}`));
    const color = process.stdout.isTTY ? (COLORS[i % COLORS.length] as string) : '';
    const prefix = `${color}${service.name.padEnd(width)} |${color ? RESET : ''}`;
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'services', service.name, 'src', 'server.ts')], {
      cwd: root,
      env: prepared.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.set(service.name, child);
    pipeLines(child.stdout as NodeJS.ReadableStream, prefix, process.stdout, raw);
    pipeLines(child.stderr as NodeJS.ReadableStream, prefix, process.stderr, raw);
    child.on('exit', (code, signal) => {
      if (stopping) {
        if ([...children.values()].every((c) => c.exitCode !== null || c.signalCode !== null)) process.exit(exitCode);
        return;
      }
      process.stderr.write(`${prefix} exited (${signal ?? `code ${code}`}); stopping the stack\n`);
      stopAll(code === 0 ? 1 : (code ?? 1));
    });
  });

  process.on('SIGINT', () => stopAll(0));
  process.on('SIGTERM', () => stopAll(0));

  const started = Date.now();
  const ports = services.map((s) => (alone ? Number(base.PORT ?? s.defaultPort) : stackPortOf(s, base)));
  const live = await Promise.all(ports.map((p) => waitLive(p, started + 30_000)));
  if (stopping) return;
  const lines = services.map(
    (s, i) => `  ${s.name.padEnd(width)}  http://localhost:${ports[i]}  docs http://localhost:${ports[i]}/docs${live[i] ? '' : '  (not answering yet)'}`,
  );
  process.stdout.write(`\nfxdesk is up in ${((Date.now() - started) / 1000).toFixed(1)} s\n${lines.join('\n')}\n`);
  if (devKeys.size > 0) {
    const { STACK_KEYS } = await import('./stack-env.js');
    const shown = [...devKeys].map((k) => `  ${k}=${STACK_KEYS[k as keyof typeof STACK_KEYS]}`).join('\n');
    process.stdout.write(`development keys in use (set them in .env before exposing the desk):\n${shown}\n`);
  }
  for (const note of notes) process.stdout.write(`${note}\n`);
  process.stdout.write('Ctrl-C stops everything (a second Ctrl-C does not wait for work in flight).\n\n');
}

await main();
