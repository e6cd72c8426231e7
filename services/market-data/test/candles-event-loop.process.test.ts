import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { answers, freePort, mainThreadCpuMs, probeTurns, run } from '@fxdesk/core/testing';
import { afterEach, describe, expect, it } from 'vitest';

const API_KEY = 'process-test-key';
const TICK_INTERVAL_MS = 50;
/** Five majors: each one's thousand D1 bars are built apart (the bar cache is per symbol). */
const SYMBOLS = ['EURUSD', 'GBPUSD', 'USDJPY', 'AUDUSD', 'USDCAD'];

type Server = ReturnType<typeof run>;
const servers: Server[] = [];
const dirs: string[] = [];

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.child.kill('SIGKILL');
    await server.done;
  }
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** The real market-data server on the simulated feed, ticking every 50 ms round the clock, once ready. */
async function startServer(): Promise<{ base: string; pid: number }> {
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'md-loop-'));
  dirs.push(dataDir);
  const server = run('services/market-data/src/server.ts', {
    HOST: '127.0.0.1',
    PORT: String(port),
    API_KEY,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    SIM_TICK_INTERVAL_MS: String(TICK_INTERVAL_MS),
    SIM_MARKET_HOURS: 'false',
  });
  servers.push(server);
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  while (!(await answers(`${base}/health/ready`))) {
    if (server.child.exitCode !== null) throw new Error(`the server exited ${server.child.exitCode}: ${server.out.stderr}`);
    if (Date.now() > deadline) throw new Error(`the server was not ready within 60 s: ${server.out.stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { base, pid: server.child.pid! };
}

/** An instant seen from the test: the wall clock, and the CPU time the server's main thread has used. */
interface Instant {
  wallMs: number;
  serverCpuMs: number;
}

/** Reads the tick stream of every symbol (one tick every 50 ms at least), noting when each chunk with a tick arrives. */
function readTicks(base: string, pid: number) {
  const arrivals: Instant[] = [];
  const controller = new AbortController();
  const reading = (async () => {
    const response = await fetch(`${base}/v1/stream/ticks`, { headers: { 'x-api-key': API_KEY }, signal: controller.signal });
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      if (decoder.decode(value, { stream: true }).includes('event: tick')) arrivals.push({ wallMs: performance.now(), serverCpuMs: mainThreadCpuMs(pid) });
    }
  })().catch((err: unknown) => {
    if (!controller.signal.aborted) throw err;
  });
  return { arrivals, stop: () => controller.abort(), reading };
}

/**
 * The most CPU time the server's main thread used between two tick arrivals within [from, to]
 * (from the start and up to the end). A loop that ticks every 50 ms writes a tick after a few
 * milliseconds of it; counted in the server's CPU time rather than the wall's, the gap does not
 * grow when the machine is busy and the server waits for a core.
 */
function longestGap(arrivals: readonly Instant[], from: Instant, to: Instant): number {
  const within = [from, ...arrivals.filter((a) => a.wallMs > from.wallMs && a.wallMs < to.wallMs), to];
  let longest = 0;
  for (let i = 1; i < within.length; i++) longest = Math.max(longest, within[i]!.serverCpuMs - within[i - 1]!.serverCpuMs);
  return longest;
}

describe('the market-data service building a long history', () => {
  it('keeps its tick stream flowing and its health fast while five D1 pages of 1000 candles are built at once (in its main thread’s CPU time)', async () => {
    const { base, pid } = await startServer();
    const now = (): Instant => ({ wallMs: performance.now(), serverCpuMs: mainThreadCpuMs(pid) });
    const stream = readTicks(base, pid);
    while (stream.arrivals.length < 20) await new Promise((resolve) => setTimeout(resolve, 50));
    const health = probeTurns(`${base}/health/live`, pid);
    await new Promise((resolve) => setTimeout(resolve, 200));

    const started = now();
    const pages = await Promise.all(
      SYMBOLS.map(async (symbol) => {
        const response = await fetch(`${base}/v1/market-data/candles?symbol=${symbol}&timeframe=D1&count=1000`, { headers: { 'x-api-key': API_KEY } });
        return { status: response.status, body: (await response.json()) as { candles: unknown[] } };
      }),
    );
    const ended = now();
    await health.stop();
    stream.stop();
    await stream.reading;

    for (const page of pages) {
      expect(page.status).toBe(200);
      expect(page.body.candles).toHaveLength(1000);
    }
    // Ticks come every 50 ms; a loop held for a D1 page (about a second of CPU) would leave a gap that long.
    const gapMs = longestGap(stream.arrivals, started, ended);
    const healthMs = health.worstCpuMs();
    const serverCpuMs = ended.serverCpuMs - started.serverCpuMs;
    const seen = `longest gap ${gapMs} ms, slowest /health/live ${healthMs} ms (server CPU); the builds took ${serverCpuMs} ms of CPU, ${(ended.wallMs - started.wallMs).toFixed(0)} ms of wall time`;
    expect(gapMs, seen).toBeLessThan(250);
    expect(healthMs, seen).toBeLessThan(250);
  }, 120_000);
});
