/**
 * Import throughput: rows per second of `npm run data -- import` (services/market-data's
 * importFile into a fresh SQLite candle store: the file streamed, parsed, inserted by the db
 * port's prepared multi-row statements in one transaction, committed and checkpointed) over a
 * generated file of M1 rows, beside the ceiling of reading the same file's lines (the importer's
 * own line reader, counting them) in the same run, and the ratio of the two. Then the same file
 * again, which must add nothing.
 *
 *   npm run bench -- import [rows] [histdata|csv]        (default 5,000,000 histdata)
 *
 * The file is written to a temporary folder first (not timed) and removed at the end, with the
 * store. Each figure is the best of RUNS passes, the baseline's interleaved with the import's (a
 * busy machine only slows passes down); the median is printed beside it.
 * Not a test: nothing here fails on a slow machine.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import v8 from 'node:v8';
import { openCandleStore } from '../../services/market-data/src/deps.js';
import { importFile, type ImportReport } from '../../services/market-data/src/import/importer.js';
import { readLines } from '../../services/market-data/src/import/read-lines.js';

// As `npm run data` runs (tsx --max-semi-space-size=64): the parse's short-lived garbage is collected in fewer scavenges.
v8.setFlagsFromString('--max-semi-space-size=64');

const ROWS = Number(process.argv[2] ?? 5_000_000);
const FORMAT = (process.argv[3] ?? 'histdata') as 'histdata' | 'csv';
const RUNS = 3;
const TARGET = 500_000;
const MINUTE = 60_000;

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

/** A random walk of M1 bars from Monday 6 January 2020, every minute of the week (the importer keeps weekend bars a file holds). */
async function writeFile(file: string): Promise<void> {
  const out = fs.createWriteStream(file);
  const pad = (n: number) => String(n).padStart(2, '0');
  let price = 1.1;
  let seed = 42;
  const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
  let text = FORMAT === 'csv' ? 'time,open,high,low,close,volume\n' : '';
  const start = Date.UTC(2020, 0, 6);
  for (let i = 0; i < ROWS; i++) {
    const open = price;
    price = Math.max(0.5, price + (random() - 0.5) * 0.0004);
    const high = Math.max(open, price) + random() * 0.0002;
    const low = Math.min(open, price) - random() * 0.0002;
    const prices = [open, high, low, price].map((p) => p.toFixed(FORMAT === 'csv' ? 5 : 6));
    if (FORMAT === 'csv') {
      text += `${(start + i * MINUTE) / 1000},${prices.join(',')},${Math.floor(random() * 100)}\n`;
    } else {
      const d = new Date(start + i * MINUTE - 5 * 3_600_000); // HistData writes EST, UTC−5
      text += `${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())} ${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}00;${prices.join(';')};0\n`;
    }
    if (text.length > 1 << 20) {
      if (!out.write(text)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
      text = '';
    }
  }
  await new Promise<void>((resolve) => out.end(text, resolve));
}

async function countLines(file: string): Promise<number> {
  let lines = 0;
  for await (const batch of readLines(file)) lines += batch.lines.length;
  return lines;
}

async function importInto(dataDir: string, file: string): Promise<{ seconds: number; report: ImportReport; again: ImportReport; againSeconds: number }> {
  fs.rmSync(dataDir, { recursive: true, force: true });
  const store = await openCandleStore({ DATA_DIR: dataDir, DATABASE_URL: undefined });
  try {
    let started = performance.now();
    const report = await importFile(store, { file, symbol: 'EUR_USD' });
    const seconds = (performance.now() - started) / 1000;
    started = performance.now();
    const again = await importFile(store, { file, symbol: 'EUR_USD' });
    return { seconds, report, again, againSeconds: (performance.now() - started) / 1000 };
  } finally {
    await store.close();
  }
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fxdesk-bench-import-'));
try {
  const file = path.join(dir, FORMAT === 'csv' ? 'EUR_USD_M1.csv' : 'DAT_ASCII_EURUSD_M1.csv');
  console.log(`Writing ${fmt(ROWS)} M1 rows (${FORMAT}) to ${file}...`);
  await writeFile(file);
  console.log(`  ${(fs.statSync(file).size / 1e6).toFixed(0)} MB; ${os.cpus()[0]?.model ?? 'unknown CPU'}, ${os.cpus().length} cores, Node ${process.version}`);

  const baseline: number[] = [];
  const imports: number[] = [];
  const reimports: number[] = [];
  let last: Awaited<ReturnType<typeof importInto>> | undefined;
  for (let run = 0; run < RUNS; run++) {
    const started = performance.now();
    const lines = await countLines(file);
    baseline.push(lines / ((performance.now() - started) / 1000));
    last = await importInto(path.join(dir, 'data'), file);
    imports.push(last.report.rowsRead / last.seconds);
    reimports.push(last.again.rowsRead / last.againSeconds);
    console.log(
      `  pass ${run + 1}: lines ${fmt(baseline[run] as number)}/s, import ${fmt(imports[run] as number)} rows/s, re-import ${fmt(reimports[run] as number)} rows/s`,
    );
  }
  const { report, again } = last as NonNullable<typeof last>;
  const best = Math.max(...imports);
  const ceiling = Math.max(...baseline);
  console.log('');
  console.log(`read the lines (baseline):   ${fmt(ceiling)} lines/s (median ${fmt(median(baseline))})`);
  console.log(
    `import into SQLite:          ${fmt(best)} rows/s (median ${fmt(median(imports))}; target ${fmt(TARGET)}): ${best >= TARGET ? 'met' : 'NOT met'}`,
  );
  console.log(`ratio import / baseline:     ${(best / ceiling).toFixed(3)}`);
  console.log(`re-import of the same file:  ${fmt(Math.max(...reimports))} rows/s, ${again.imported} added (${again.alreadyHeld} already held)`);
  console.log(`(rows read ${fmt(report.rowsRead)}, imported ${fmt(report.imported)}, skipped ${report.rejects.length})`);
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
