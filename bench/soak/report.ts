import os from 'node:os';
import type { Tally } from './load.js';
import type { TurnFigures } from './probe.js';
import { requestDelta, type Scrape } from './scrape.js';
import type { ServiceName } from './stack.js';
import type { StreamClients } from './streams.js';

/** Everything the soak measured of one service. */
export interface ServiceFigures {
  name: ServiceName;
  before: Scrape;
  after: Scrape;
  /** RSS at the start of the load, at the baseline mark (minute 2) and at the end. */
  rssStart: number;
  rssMark: number;
  rssEnd: number;
  /** The live heap (after the latest full collection) at the mark and at the end. */
  liveHeapMark: number;
  liveHeapEnd: number;
  /** fxdesk_process_event_loop_delay_seconds read at each sample once its window holds only the load. */
  loopSamples: Scrape['loopDelay'][];
  /** CPU time over the load, in seconds (NaN where /proc cannot tell). */
  cpuSeconds: number;
  /** What the load sent it (absent for a service the load does not call directly). */
  tally: Tally | undefined;
}

export interface ServiceRow {
  name: ServiceName;
  served: number;
  status5xx: number;
  /** 4xx answers to the deliberately bad input, and the rest. */
  badInput4xx: number;
  other4xx: number;
  growthPercent: number;
  liveHeapGrowthPercent: number;
  /** `route status` → count, for the answers that are neither 2xx/3xx nor deliberate. */
  errorsByRoute: Map<string, number>;
}

export function rowOf(f: ServiceFigures): ServiceRow {
  const delta = requestDelta(f.before, f.after);
  const badInput4xx = Math.min(delta.status4xx, f.tally?.badRefused ?? 0);
  const errorsByRoute = new Map<string, number>();
  for (const [key, n] of delta.byKey) if (Number(key.slice(key.lastIndexOf(' ') + 1)) >= 400) errorsByRoute.set(key, n);
  return {
    name: f.name,
    served: delta.total,
    status5xx: delta.status5xx,
    badInput4xx,
    other4xx: delta.status4xx - badInput4xx,
    growthPercent: ((f.rssEnd - f.rssMark) / f.rssMark) * 100,
    liveHeapGrowthPercent: ((f.liveHeapEnd - f.liveHeapMark) / f.liveHeapMark) * 100,
    errorsByRoute,
  };
}

const mb = (bytes: number) => (bytes / 1048576).toFixed(1);
const percent = (value: number) => (Number.isFinite(value) ? `${value >= 0 ? '+' : ''}${value.toFixed(1)}%` : '-');
const ms = (seconds: number | undefined) => (seconds === undefined || Number.isNaN(seconds) ? '-' : (seconds * 1000).toFixed(1));

function median(values: number[]): number | undefined {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)];
}

/** The per-service table: requests, errors, RSS, event-loop delay and CPU. */
export function table(figures: ServiceFigures[], loadSeconds: number, markLabel: string): string {
  const header = [
    'service',
    'served',
    '5xx',
    '4xx bad in',
    '4xx other',
    'RSS start',
    `RSS ${markLabel}`,
    'RSS end',
    'growth',
    `heap ${markLabel}`,
    'heap end',
    'growth',
    'p99 med',
    'p99 worst',
    'max',
    'CPU',
  ];
  const rows = figures.map((f) => {
    const row = rowOf(f);
    const p99s = f.loopSamples.map((s) => s.p99Seconds);
    return [
      f.name,
      String(row.served),
      String(row.status5xx),
      String(row.badInput4xx),
      String(row.other4xx),
      `${mb(f.rssStart)} MB`,
      `${mb(f.rssMark)} MB`,
      `${mb(f.rssEnd)} MB`,
      percent(row.growthPercent),
      `${mb(f.liveHeapMark)} MB`,
      `${mb(f.liveHeapEnd)} MB`,
      percent(row.liveHeapGrowthPercent),
      `${ms(median(p99s))} ms`,
      `${ms(p99s.length > 0 ? Math.max(...p99s) : undefined)} ms`,
      `${ms(f.loopSamples.length > 0 ? Math.max(...f.loopSamples.map((s) => s.maxSeconds)) : undefined)} ms`,
      Number.isNaN(f.cpuSeconds) ? '-' : `${((f.cpuSeconds / loadSeconds) * 100).toFixed(0)}%`,
    ];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] as number) : c.padStart(widths[i] as number))).join('  ');
  return [line(header), ...rows.map(line)].join('\n');
}

/**
 * Each service's worst event-loop delay from the load's start, two ways: in wall time (its
 * /metrics maximum, which includes the time the service waited for a core, so a busy machine
 * inflates it), and as the longest turn a /health/live probe waited behind, in the main thread's
 * CPU time (what a turn really holds the loop for, whatever else the machine runs).
 */
export function loopLines(wallWorstSeconds: Map<ServiceName, number>, turns: Map<string, TurnFigures>): string {
  const lines: string[] = [];
  for (const [name, seconds] of wallWorstSeconds) {
    const turn = turns.get(name);
    lines.push(
      `worst event-loop delay, wall time (waiting for a core included): ${name} ${(seconds * 1000).toFixed(1)} ms`,
      turn
        ? `worst turn, main-thread CPU time: ${name} ${turn.worstCpuMs} ms (${turn.answers} /health/live probes)`
        : `worst turn, main-thread CPU time: ${name} - (no process id)`,
    );
  }
  return lines.join('\n');
}

const GROWTH_TARGET_PERCENT = 10;

export interface Observations {
  markLabel: string;
  ticks: StreamClients;
  events: StreamClients;
  browserIssues: Map<string, number>;
  /** The stack's WARN/ERROR log lines. */
  warnings: string[];
  loadAverageMax: number;
  loadCpuPercent: number;
}

/** Prints what the load saw and the verdict; true when there were errors other than the deliberate ones. */
export function printVerdict(figures: ServiceFigures[], seen: Observations): boolean {
  const out: string[] = [];
  const problems: string[] = [];
  for (const f of figures) {
    const row = rowOf(f);
    const t = f.tally;
    if (t && t.sent > 0) {
      const skipped = t.skipped > 0 ? `; ${t.skipped} skipped (8 waiting)` : '';
      out.push(
        `${f.name}: the load sent ${t.sent} (${t.bad} deliberately bad, ${t.badRefused} of them refused 4xx); ${t.ok} valid ones answered 2xx${skipped}`,
      );
    }
    for (const [what, n] of t?.unexpected ?? []) problems.push(`${f.name}: the load got ${what} (${n}×), the first: ${t?.firstAnswers.get(what)}`);
    if (row.status5xx + row.other4xx > 0) {
      const routes = [...row.errorsByRoute].map(([key, n]) => `${key} ×${n}`).join(', ');
      problems.push(`${f.name}: ${row.status5xx} 5xx and ${row.other4xx} 4xx besides the deliberate ones (every 4xx/5xx by route: ${routes})`);
    }
  }
  out.push(
    `tick streams: ${seen.ticks.events} events, ${seen.ticks.drops} dropped; /events streams: ${seen.events.events} events, ${seen.events.drops} dropped`,
  );
  for (const clients of [seen.ticks, seen.events]) {
    if (clients.drops > 0) problems.push(`${clients.drops} streams ended while the soak ran`);
    for (const [why, n] of clients.refused) problems.push(`stream refused: ${why} (${n}×)`);
  }
  for (const [issue, n] of seen.browserIssues) problems.push(`browser: ${issue} (${n}×)`);
  // The deliberate requests without a valid key are logged as such (never the key): those are expected.
  const warnings = seen.warnings.filter((line) => !line.includes('rejected request without a valid API key'));
  out.push(
    `the stack's log: ${seen.warnings.length - warnings.length} warnings of requests without a valid key (the deliberate ones), ${warnings.length} other WARN/ERROR lines`,
  );
  if (warnings.length > 0) problems.push(`the stack logged ${warnings.length} WARN/ERROR lines, the first: ${warnings.slice(0, 5).join(' | ')}`);
  out.push(
    `machine: load average (1 min) at most ${seen.loadAverageMax.toFixed(2)} on ${os.availableParallelism()} CPUs; the load generator ${seen.loadCpuPercent.toFixed(0)}% CPU`,
  );

  const grown = figures.map(rowOf).filter((r) => r.growthPercent >= GROWTH_TARGET_PERCENT);
  out.push(
    problems.length === 0 ? 'errors: none but the deliberate bad input' : `errors besides the deliberate bad input:\n  ${problems.join('\n  ')}`,
    grown.length === 0
      ? `RSS growth from ${seen.markLabel} to the end: under ${GROWTH_TARGET_PERCENT}% for every service`
      : `RSS growth from ${seen.markLabel} to the end of ${GROWTH_TARGET_PERCENT}% or more: ${grown
          .map((r) => `${r.name} ${r.growthPercent.toFixed(1)}% (its live heap ${percent(r.liveHeapGrowthPercent)})`)
          .join(', ')}`,
  );
  process.stdout.write(`${out.join('\n')}\n`);
  return problems.length > 0;
}
