/** Helpers for the tests that run real processes (`*.process.test.ts`) from any workspace. */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';

/** The repository's root folder. */
export const root = path.resolve(import.meta.dirname, '../../..');

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a TypeScript entry point in a real node process, as `npm start` would. */
export function run(entry: string, env: Record<string, string>, args: string[] = []) {
  return runNode(['--import', 'tsx', path.join(root, entry), ...args], env);
}

/** Runs `node <args>` from the repository root with only `env` (and PATH, HOME) set. */
export function runNode(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out = { stdout: '', stderr: '' };
  child.stdout.on('data', (d: Buffer) => (out.stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out.stderr += d.toString()));
  // 'exit' can come before the last of the child's output is read: wait for its pipes to close
  // too, but not for ever (a grandchild may hold them after a SIGKILL of the child).
  const drained = Promise.all([child.stdout, child.stderr].map((stream) => new Promise((r) => stream.once('close', r))));
  const done = new Promise<Run>((resolve) =>
    child.once('exit', (code) => {
      const grace = new Promise((r) => setTimeout(r, 2_000).unref());
      void Promise.race([drained, grace]).then(() => resolve({ code, ...out }));
    }),
  );
  return { child, out, done };
}

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Polls `check` until it holds (real time: the test drives a real process); a check that throws,
 * say a fetch to a process still starting, counts as not yet.
 */
export async function until(check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (
    !(await Promise.resolve()
      .then(check)
      .catch(() => false))
  ) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Whether something answers 200 at `url`. */
export async function answers(url: string): Promise<boolean> {
  try {
    return (await fetch(url)).ok;
  } catch {
    return false;
  }
}

/**
 * The CPU time (user and system, in ms) the main thread of process `pid` has used so far, read
 * from /proc (Linux; in steps of 10 ms). What a turn of that thread's event loop costs in it does
 * not depend on how busy the machine is, unlike the wall time the turn takes.
 */
export function mainThreadCpuMs(pid: number = process.pid): number {
  const stat = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8');
  // utime and stime: fields 14 and 15 of proc(5), counted from the state (field 3) after the name, in 1/100 s.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** What a {@link probeTurns} saw: its answers, and the most server CPU one of them waited behind. */
export interface TurnProbe {
  /** How many answers it got. */
  answers(): number;
  /** The most CPU time (ms) the server's main thread used between sending one request and receiving its answer. */
  worstCpuMs(): number;
  /** Stops asking; rejects with the first failed request, if one failed. */
  stop(): Promise<void>;
}

/**
 * Asks `url` (e.g. /health/live) again and again until stopped, one request in flight and
 * `gapMs` between them, noting for each answer the CPU time the main thread of process `pid`
 * used between sending it and receiving it. The worst of those bounds the longest turn of that
 * thread's event loop a request waited behind, in CPU time: unlike the wall time, it does not grow
 * while the server waits for a core on a busy machine.
 */
export function probeTurns(url: string, pid: number, gapMs = 20): TurnProbe {
  let answered = 0;
  let worstMs = 0;
  let isProbing = true;
  const probing = (async () => {
    while (isProbing) {
      const startedCpuMs = mainThreadCpuMs(pid);
      const response = await fetch(url);
      worstMs = Math.max(worstMs, mainThreadCpuMs(pid) - startedCpuMs);
      await response.arrayBuffer();
      answered++;
      await new Promise((resolve) => setTimeout(resolve, gapMs));
    }
  })();
  // Held until stop() is awaited, so a failed request is not an unhandled rejection meanwhile.
  probing.catch(() => (isProbing = false));
  return {
    answers: () => answered,
    worstCpuMs: () => worstMs,
    stop: async () => {
      isProbing = false;
      await probing;
    },
  };
}
