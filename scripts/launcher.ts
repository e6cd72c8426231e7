/**
 * Runs a desk's processes from one terminal: each child's output line by line behind its name,
 * everything stopped on Ctrl-C, and the whole desk stopped with a non-zero exit when a child
 * dies. `npm start` (start.ts) runs the five services with it; `npm run start:scale`
 * (start-scale.ts) runs PostgreSQL, Redis, two replicas of each service and nginx.
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseEnv } from 'node:util';
import { formatLogLine } from './log-format.js';
import type { Env } from './stack-env.js';

export const root = path.resolve(import.meta.dirname, '..');
const COLORS = ['\x1b[36m', '\x1b[35m', '\x1b[33m', '\x1b[32m', '\x1b[34m'];
const RESET = '\x1b[0m';
/** Longer than any service's own shutdown wait at its default settings. */
const FORCE_STOP_AFTER_MS = 90_000;

/** `.env` when present, under the shell's environment (the shell wins). */
export function loadBaseEnv(): Env {
  const file = path.join(root, '.env');
  const fromFile = fs.existsSync(file) ? (parseEnv(fs.readFileSync(file, 'utf8')) as Env) : {};
  return { ...fromFile, ...process.env };
}

/** One process of the desk. */
export interface ProcessSpec {
  /** Its log prefix. */
  name: string;
  command: string;
  args: string[];
  env?: Env;
  /** uid and gid to run as (PostgreSQL refuses to run as root). */
  user?: { uid: number; gid: number };
  /** Its working directory (default the repository root). */
  cwd?: string;
  /** Passed through as is when the child does not log pino JSON. */
  rawLogs?: boolean;
  /**
   * What stops it (default SIGTERM). Engines (`engine: true`) get theirs only once every other
   * process has exited, so the services finish their work against a database that still answers.
   */
  stopSignal?: NodeJS.Signals;
  engine?: boolean;
}

/** Spawns and watches the desk's processes; Ctrl-C (or a child's death) stops them all. */
export class Launcher {
  private readonly children = new Map<string, { child: ChildProcess; spec: ProcessSpec }>();
  private readonly width: number;
  private readonly raw: boolean;
  private stopping = false;
  private stoppingSince = 0;
  private exitCode = 0;

  constructor(options: { names: string[]; rawLogs: boolean }) {
    this.width = Math.max(...options.names.map((n) => n.length));
    this.raw = options.rawLogs;
    process.on('SIGINT', () => this.stopAll(0));
    process.on('SIGTERM', () => this.stopAll(0));
  }

  get isStopping(): boolean {
    return this.stopping;
  }

  spawn(spec: ProcessSpec): ChildProcess {
    const color = process.stdout.isTTY ? (COLORS[this.children.size % COLORS.length] as string) : '';
    const prefix = `${color}${spec.name.padEnd(this.width)} |${color ? RESET : ''}`;
    const options: SpawnOptions = { cwd: spec.cwd ?? root, env: spec.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'], ...spec.user };
    const child = spawn(spec.command, spec.args, options);
    this.children.set(spec.name, { child, spec });
    const raw = this.raw || spec.rawLogs === true;
    pipeLines(child.stdout as NodeJS.ReadableStream, prefix, process.stdout, raw);
    pipeLines(child.stderr as NodeJS.ReadableStream, prefix, process.stderr, raw);
    child.on('error', (err) => process.stderr.write(`${prefix} could not start: ${err.message}\n`));
    child.on('exit', (code, signal) => {
      if (this.stopping) {
        this.stopEnginesWhenAlone();
        if (this.all().every(isGone)) process.exit(this.exitCode);
        return;
      }
      process.stderr.write(`${prefix} exited (${signal ?? `code ${code}`}); stopping the stack\n`);
      this.stopAll(code === 0 ? 1 : (code ?? 1));
    });
    return child;
  }

  /**
   * Stops every process: the services first (they finish what is in flight, an order included,
   * so the desk waits for them), the engines after them; a second Ctrl-C forces.
   */
  stopAll(code: number): void {
    if (this.stopping) {
      // The one Ctrl-C may arrive twice (from the terminal and relayed by npm/tsx): only a later one forces.
      if (Date.now() - this.stoppingSince > 1000) this.killAll();
      return;
    }
    this.stopping = true;
    this.stoppingSince = Date.now();
    this.exitCode = code;
    for (const { child, spec } of this.children.values()) if (!spec.engine && !isGone(child)) child.kill(spec.stopSignal ?? 'SIGTERM');
    this.stopEnginesWhenAlone();
    if (this.all().every(isGone)) process.exit(code);
    setTimeout(() => this.killAll(), FORCE_STOP_AFTER_MS).unref();
  }

  private stopEnginesWhenAlone(): void {
    const entries = [...this.children.values()];
    if (entries.some(({ child, spec }) => !spec.engine && !isGone(child))) return;
    for (const { child, spec } of entries) if (spec.engine && !isGone(child)) child.kill(spec.stopSignal ?? 'SIGTERM');
  }

  private killAll(): void {
    for (const child of this.all()) if (!isGone(child)) child.kill('SIGKILL');
  }

  private all(): ChildProcess[] {
    return [...this.children.values()].map((e) => e.child);
  }
}

function isGone(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
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

/** What a service's readiness probe (`/health/ready`) answered: ready, or why not, in a few words. */
export type Readiness = { ready: true } | { ready: false; detail: string };

export async function readinessOf(url: string): Promise<Readiness> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
    if (res.ok) return { ready: true };
    const body = (await res.json().catch(() => null)) as { checks?: Record<string, { ok: boolean; detail?: string }> } | null;
    const failing = Object.entries(body?.checks ?? {})
      .filter(([, check]) => !check.ok)
      .map(([name, check]) => `${name}: ${check.detail ?? 'failing'}`);
    return { ready: false, detail: `not ready: ${failing.join('; ') || `HTTP ${res.status}`}` };
  } catch {
    return { ready: false, detail: 'not answering yet' };
  }
}

/**
 * Waits until every service's readiness probe answers 200, polling every 200 ms, however long it
 * takes: the desk is up only then. Every `slowEveryMs` it tells `onSlow` the services still not
 * ready, and why. False when `isStopping` says the desk is stopping meanwhile.
 */
export async function untilReady(
  probes: Record<string, string>,
  options: { slowEveryMs: number; onSlow: (pending: [name: string, detail: string][]) => void; isStopping: () => boolean },
): Promise<boolean> {
  const pending = new Map(Object.entries(probes));
  let slowAt = Date.now() + options.slowEveryMs;
  while (!options.isStopping()) {
    const answers = await Promise.all([...pending].map(async ([name, url]) => [name, await readinessOf(url)] as const));
    const notReady: [string, string][] = [];
    for (const [name, readiness] of answers) {
      if (readiness.ready) pending.delete(name);
      else notReady.push([name, readiness.detail]);
    }
    if (notReady.length === 0) return true;
    if (Date.now() >= slowAt) {
      options.onSlow(notReady);
      slowAt = Date.now() + options.slowEveryMs;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return false;
}

/** Whether `url` answers 200 before `deadline` (epoch ms), polling every 200 ms. */
export async function waitAnswers(url: string, deadline: number): Promise<boolean> {
  while (Date.now() < deadline) {
    try {
      const res = await fetch(url);
      if (res.ok) return true;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return false;
}

/** The command that runs a service from its TypeScript source, as `npm start` does. */
export function serviceCommand(name: string): { command: string; args: string[] } {
  return { command: process.execPath, args: ['--import', 'tsx', path.join(root, 'services', name, 'src', 'server.ts')] };
}
