import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { answers, freePort, run } from '@fxdesk/core/testing';
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
async function startServer(): Promise<string> {
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
  return base;
}

/** Reads the tick stream of every symbol (one tick every 50 ms at least), noting when each chunk with a tick arrives. */
function readTicks(base: string) {
  const arrivals: number[] = [];
  const controller = new AbortController();
  const reading = (async () => {
    const response = await fetch(`${base}/v1/stream/ticks`, { headers: { 'x-api-key': API_KEY }, signal: controller.signal });
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      if (decoder.decode(value, { stream: true }).includes('event: tick')) arrivals.push(performance.now());
    }
  })().catch((err: unknown) => {
    if (!controller.signal.aborted) throw err;
  });
  return { arrivals, stop: () => controller.abort(), reading };
}

/** Asks /health/live again and again until stopped, noting each answer's latency. */
function pollHealth(base: string) {
  const latencies: number[] = [];
  let isPolling = true;
  const polling = (async () => {
    while (isPolling) {
      const started = performance.now();
      const response = await fetch(`${base}/health/live`);
      await response.arrayBuffer();
      latencies.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  return {
    latencies,
    stop: async () => {
      isPolling = false;
      await polling;
    },
  };
}

/** The longest wait between two tick arrivals within [fromMs, toMs], counting from fromMs and up to toMs. */
function longestGap(arrivals: readonly number[], fromMs: number, toMs: number): number {
  const within = [fromMs, ...arrivals.filter((t) => t > fromMs && t < toMs), toMs];
  let longest = 0;
  for (let i = 1; i < within.length; i++) longest = Math.max(longest, within[i]! - within[i - 1]!);
  return longest;
}

describe('the market-data service building a long history', () => {
  it('keeps its tick stream flowing and its health fast while five D1 pages of 1000 candles are built at once', async () => {
    const base = await startServer();
    const stream = readTicks(base);
    while (stream.arrivals.length < 20) await new Promise((resolve) => setTimeout(resolve, 50));
    const health = pollHealth(base);
    await new Promise((resolve) => setTimeout(resolve, 200));

    const startedMs = performance.now();
    const pages = await Promise.all(
      SYMBOLS.map(async (symbol) => {
        const response = await fetch(`${base}/v1/market-data/candles?symbol=${symbol}&timeframe=D1&count=1000`, { headers: { 'x-api-key': API_KEY } });
        return { status: response.status, body: (await response.json()) as { candles: unknown[] } };
      }),
    );
    const endedMs = performance.now();
    await health.stop();
    stream.stop();
    await stream.reading;

    for (const page of pages) {
      expect(page.status).toBe(200);
      expect(page.body.candles).toHaveLength(1000);
    }
    // Ticks come every 50 ms; a loop held for a D1 page (about a second) would leave a gap that long.
    const gapMs = longestGap(stream.arrivals, startedMs, endedMs);
    const healthMs = Math.max(...health.latencies);
    const seen = `longest gap ${gapMs.toFixed(0)} ms, slowest /health/live ${healthMs.toFixed(0)} ms over ${(endedMs - startedMs).toFixed(0)} ms`;
    expect(gapMs, seen).toBeLessThan(250);
    expect(healthMs, seen).toBeLessThan(250);
  }, 120_000);
});
