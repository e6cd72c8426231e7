/**
 * Soak of the whole desk: the stack as `npm start` runs it (scripts/start.ts: five real
 * processes through tsx, free ports, a temporary DATA_DIR), the console open in headless
 * Chromium (/ui/, or /docs/ while the console is not built), and a bounded mixed load on
 * loopback for the given time, from a minute after the stack is up (a run shorter than a minute
 * waits its own length):
 *
 *   npm run bench -- soak [minutes]     (default 10; fractions allowed, e.g. 0.1 for a smoke run)
 *
 * The load (LOAD in mix.ts): 50 SSE clients on market-data's tick stream, and 5 on the
 * strategy's /events when it has one; 10 signal submissions a second to execution (one in five
 * deliberately bad, one in ten an identical retry; calls.ts) and 2 reads; 5 notification posts a
 * second (one in five bad, one in ten a repeated idempotency key) and 1 read; 5 polls a second
 * each of the strategy's routes (its /console read-through routes too, when it has them) and the
 * account's; 2 reads a second of market-data. The heavy calls that once froze a service
 * (attacks.ts): a read of 1,000 D1 candles every 2 s on each of market-data and execution, a 1 MB
 * nested body every 2 s to each service (in turn to an unknown route and to a real one), and a
 * three-year lab backtest posted at the start. Each stream of calls keeps at most 8 waiting for
 * an answer (a tick with 8 waiting is skipped and counted), so a slow service never gets more
 * than it answers; a call unanswered after 60 s counts as an error (a guard against a hang: on a
 * busy machine a D1 read takes seconds of wall time). The simulated market runs around the clock (SIM_MARKET_HOURS=false) and the
 * strategy's spec limits (60 GETs, 10 POSTs a minute per client) are raised, since every client
 * here shares loopback; everything else is the stack's default, the strategy trading on its own.
 *
 * Figures per service: requests served (fxdesk_http_requests_total before and after, without the
 * bench's own /metrics scrapes; a stream counts once it ends, so the soak's own open ones do
 * not); 5xx; 4xx split into the answers to the deliberately bad input and the rest; RSS at the
 * start of the load, at minute 2 (a fifth of a shorter run) and at the end, with the growth from
 * minute 2 to the end, and the same of the live heap (fxdesk_process_heap_live_bytes, the V8 heap
 * right after the latest full collection: RSS swings by tens of MB with the collector's phase, so
 * a single RSS sample can read high without anything retained); the event-loop delay p99 (fxdesk_process_event_loop_delay_seconds, a
 * 30–60 s window, read every 10 s from the load's second minute on: the median and the worst
 * window) and its maximum; CPU time over the load (100% = one core). Then each service's worst
 * event-loop delay from the load's start, two ways: in wall time (every sample's maximum, its
 * first minute included), which holds the time the service waited for a core and so grows on a
 * busy machine; and its worst turn in its main thread's CPU time, which does not: a probe
 * (probe.ts, a process of its own) asks each service's /health/live, one request in flight, 20 ms
 * apart, and notes the service's main-thread CPU time used between sending each and its answer,
 * which bounds the longest turn the request waited behind (Linux /proc, in steps of 10 ms). The
 * issue's bound, no turn over 100 ms, is checked on that figure (test/soak.process.test.ts).
 * Then what the load itself saw, the streams, the browser and the stack's WARN/ERROR log lines,
 * and a verdict: no errors but the deliberate ones, RSS growth under 10%.
 * Not a test: it exits 1 only when it saw errors other than the deliberate ones.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Browser } from 'playwright-core';
import { answers, launchBrowser } from '@fxdesk/core/testing';
import { openConsolePage } from './console-page.js';
import { startTurnProbe } from './probe.js';
import { describeLoad, startLoad } from './mix.js';
import { loopLines, printVerdict, table, type ServiceFigures } from './report.js';
import type { Scrape } from './scrape.js';
import { cpuSeconds } from '../proc.js';
import { SoakStack, type ServiceName } from './stack.js';

const MINUTES = Number(process.argv[2] ?? 10);
if (!(MINUTES > 0)) {
  process.stderr.write('usage: npm run bench -- soak [minutes]   (default 10)\n');
  process.exit(2);
}
const durationMs = MINUTES * 60_000;
const markMs = Math.min(120_000, durationMs / 5);
const markLabel = markMs === 120_000 ? '2 min' : `${(markMs / 1000).toFixed(0)} s`;
const sampleMs = Math.min(10_000, durationMs / 20);
/** The delay window reaches 60 s back: samples before then would include the start-up. */
const loopFromMs = Math.min(60_000, durationMs / 2);

/** How far back a service's event-loop delay reaches at most: the load starts once it holds no start-up. */
const LOOP_WINDOW_MS = 60_000;
/**
 * How long after the stack is up the load starts (the browser opens meanwhile): the delay window,
 * or the run's own length when that is shorter. A run that short (0.1 min, the test's) is a check
 * that every part works, not a measure: it says that its wall-time delays hold the start-up.
 */
const warmUpMs = Math.min(LOOP_WINDOW_MS, durationMs);

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fxdesk-soak-'));
const stack = await SoakStack.start({
  DATA_DIR: dataDir,
  LOG_LEVEL: 'warn',
  SIM_MARKET_HOURS: 'false',
  RATE_LIMIT_GET_PER_MINUTE: '6000',
  RATE_LIMIT_POST_PER_MINUTE: '600',
});
const stackUpAt = performance.now();
let browser: Browser | undefined;
try {
  browser = await launchBrowser();
  if (await soak(stack, browser)) process.exitCode = 1;
} finally {
  await browser?.close();
  const code = await stack.stop();
  if (code !== 0) {
    process.stdout.write(`the stack exited ${code} on Ctrl-C; it printed last:\n${stack.stderrTail()}\n`);
    process.exitCode = 1;
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
}
process.exit();

/** Runs the load for the soak's length, sampling every service; prints the figures; true when there were errors. */
async function soak(stack: SoakStack, browser: Browser): Promise<boolean> {
  const strategy = stack.url('strategy');
  const has = { consoleRoutes: await answers(`${strategy}/console/session`), events: await isEventStream(`${strategy}/events`) };
  const page = await openConsolePage(browser, strategy);
  process.stdout.write(
    `soak: ${MINUTES} min, Node ${process.version}, ${os.availableParallelism()} CPUs; the browser on ${page.path}` +
      `${has.consoleRoutes ? '' : ', no /console routes yet'}${has.events ? '' : ', no /events yet'}\n${describeLoad(has)}\n`,
  );
  if (warmUpMs < LOOP_WINDOW_MS) {
    process.stdout.write(
      `a run under ${LOOP_WINDOW_MS / 60_000} min: the load starts ${(warmUpMs / 1000).toFixed(0)} s after the stack is up, ` +
        `not ${LOOP_WINDOW_MS / 1000} s, so the services' event-loop delays in wall time (the p99s and the worst) hold their start-up too\n`,
    );
  }

  // A service's start-up (modules compiled, the history warmed up) is no part of the load's delays.
  await sleep(Math.max(0, warmUpMs - (performance.now() - stackUpAt)));
  const pids = stack.pids();
  const before = await scrapeAll(stack);
  const cpuBefore = new Map(stack.services.map((s) => [s.name, cpuSeconds(pids.get(s.name))]));
  const started = performance.now();
  const loadCpuBefore = process.cpuUsage();
  // Each service's longest turn in its main thread's CPU time, which a busy machine does not inflate.
  const probe = await startTurnProbe([...pids].map(([name, pid]) => ({ name, url: stack.url(name), pid })));
  const load = await startLoad(stack, has);

  const marks = new Map<ServiceName, Scrape>();
  const loopSamples = new Map<ServiceName, Scrape['loopDelay'][]>(stack.services.map((s) => [s.name, []]));
  // The longest turn of each loop from the load's start: every sample's maximum counts (the window
  // reaches 30 to 60 s back and is read at least every 10 s, so no turn is missed between reads;
  // the load starts a window after the stack did, so none of its start-up, unless the run is shorter).
  const loopWorst = new Map<ServiceName, number>(stack.services.map((s) => [s.name, 0]));
  let loadAverageMax = 0;
  let nextMinute = 60_000;
  for (let elapsed = 0; elapsed < durationMs; elapsed = performance.now() - started) {
    await sleep(Math.min(sampleMs, durationMs - elapsed));
    const at = performance.now() - started;
    const sample = await scrapeAll(stack);
    loadAverageMax = Math.max(loadAverageMax, os.loadavg()[0] as number);
    for (const [name, scrape] of sample) {
      loopWorst.set(name, Math.max(loopWorst.get(name) ?? 0, scrape.loopDelay.maxSeconds));
      if (at >= loopFromMs) loopSamples.get(name)?.push(scrape.loopDelay);
      if (at >= markMs && !marks.has(name)) marks.set(name, scrape);
    }
    if (at >= nextMinute) {
      nextMinute += 60_000;
      const rss = [...sample].map(([name, s]) => `${name} ${(s.rssBytes / 1048576).toFixed(0)}`).join(', ');
      process.stderr.write(`  minute ${Math.round(at / 60_000)}/${MINUTES}: RSS MB ${rss}; ${load.sent()} calls sent\n`);
    }
  }
  const after = await scrapeAll(stack);
  const loadSeconds = (performance.now() - started) / 1000;
  const figures: ServiceFigures[] = stack.services.map(({ name }) => ({
    name,
    before: before.get(name) as Scrape,
    after: after.get(name) as Scrape,
    rssStart: (before.get(name) as Scrape).rssBytes,
    rssMark: (marks.get(name) ?? (after.get(name) as Scrape)).rssBytes,
    rssEnd: (after.get(name) as Scrape).rssBytes,
    liveHeapMark: (marks.get(name) ?? (after.get(name) as Scrape)).liveHeapBytes,
    liveHeapEnd: (after.get(name) as Scrape).liveHeapBytes,
    loopSamples: loopSamples.get(name) ?? [],
    cpuSeconds: cpuSeconds(pids.get(name)) - (cpuBefore.get(name) as number),
    tally: load.tallies.get(name),
  }));
  const loadCpu = process.cpuUsage(loadCpuBefore);
  await page.close();
  await load.stop();
  const turns = await probe.stop();

  process.stdout.write(`\n${table(figures, loadSeconds, markLabel)}\n\n`);
  process.stdout.write(`${loopLines(loopWorst, turns)}\n\n`);
  return printVerdict(figures, {
    markLabel,
    ticks: load.ticks,
    events: load.events,
    browserIssues: page.issues,
    warnings: stack.warnings(),
    loadAverageMax,
    loadCpuPercent: ((loadCpu.user + loadCpu.system) / 1e6 / loadSeconds) * 100,
  });
}

/** Whether `url` answers 200 with an event stream (read no further). */
async function isEventStream(url: string): Promise<boolean> {
  const aborter = new AbortController();
  try {
    const res = await fetch(url, { signal: aborter.signal });
    return res.ok && (res.headers.get('content-type') ?? '').startsWith('text/event-stream');
  } catch {
    return false;
  } finally {
    aborter.abort();
  }
}

async function scrapeAll(stack: SoakStack): Promise<Map<ServiceName, Scrape>> {
  return new Map(await Promise.all(stack.services.map(async (s) => [s.name, await stack.scrape(s)] as const)));
}
