/**
 * One benchmark on two checkouts, in alternating runs of the same session: the figures of
 * another commit (a checkout of it with its own `npm ci`) beside this one's, and the ratio.
 *
 *   npm run bench -- compare <benchmark> <other checkout> [rounds] [-- args of the benchmark]
 *
 * e.g. `git worktree add /tmp/base main && (cd /tmp/base && npm ci)`, then
 * `npm run bench -- compare execution /tmp/base 3`. The runs alternate (other, this, this, other,
 * …), so a machine that grows busier or quieter during the session weighs on both alike. Each
 * figure line of the benchmark's output (a throughput in req/s or deliveries/s) is read by its
 * label; the table gives each one's best and median per checkout, and this checkout's median
 * over the other's. Not a test: nothing here fails on a slow machine.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const [name, otherRoot, roundsText, ...rest] = process.argv.slice(2);
const rounds = Number(roundsText ?? 3);
if (!name || !otherRoot || !(rounds >= 1)) {
  process.stderr.write('usage: npm run bench -- compare <benchmark> <other checkout> [rounds] [-- args of the benchmark]\n');
  process.exit(2);
}
const args = rest[0] === '--' ? rest.slice(1) : rest;
const thisRoot = path.resolve(import.meta.dirname, '../..');

/** label → figure, from one run's output. */
function figuresOf(output: string): Map<string, number> {
  const figures = new Map<string, number>();
  const number = (text: string) => Number(text.replace(/,/g, ''));
  let inTable = false;
  for (const line of output.split('\n')) {
    if (line.trim() === '') {
      inTable = false;
      continue;
    }
    if (/^server\s.*req\/s/.test(line)) {
      inTable = true;
      continue;
    }
    const row = /^(.+?)\s{2,}([\d,]+(?:\.\d+)?)\s+req\/s/.exec(line) ?? (inTable ? /^(.+?)\s{2,}([\d,]+(?:\.\d+)?)\s+\d/.exec(line) : null);
    if (row) {
      figures.set(`${(row[1] as string).trim()} (req/s)`, number(row[2] as string));
      continue;
    }
    const rate = /^([^:]+):.*?([\d,]+(?:\.\d+)?) deliveries\/s/.exec(line);
    if (rate) figures.set(`${(rate[1] as string).trim()} (deliveries/s)`, number(rate[2] as string));
  }
  return figures;
}

function runIn(root: string): Map<string, number> {
  const result = spawnSync(process.execPath, ['--import', 'tsx', path.join(root, 'bench', name as string, 'index.ts'), ...args], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.status !== 0) throw new Error(`bench/${name} in ${root} exited ${result.status}:\n${result.stderr}`);
  return figuresOf(result.stdout);
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};

const runs = { other: [] as Map<string, number>[], this: [] as Map<string, number>[] };
process.stdout.write(`bench/compare: ${name}, ${rounds} rounds, other = ${otherRoot}, this = ${thisRoot}\n`);
for (let round = 0; round < rounds; round++) {
  const order = round % 2 === 0 ? (['other', 'this'] as const) : (['this', 'other'] as const);
  for (const side of order) {
    const figures = runIn(side === 'other' ? path.resolve(otherRoot) : thisRoot);
    runs[side].push(figures);
    const line = [...figures].map(([label, value]) => `${label} ${Math.round(value)}`).join('; ');
    process.stdout.write(`  round ${round + 1}, ${side}: ${line}\n`);
  }
}
const labels = [...new Set([...runs.other, ...runs.this].flatMap((m) => [...m.keys()]))];
const fmt = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '-');
process.stdout.write(
  `\n${'figure'.padEnd(64)}${'other best'.padStart(12)}${'other med'.padStart(12)}${'this best'.padStart(12)}${'this med'.padStart(12)}${'this/other'.padStart(12)}\n`,
);
for (const label of labels) {
  const of = (side: 'other' | 'this') => runs[side].map((m) => m.get(label)).filter((v): v is number => v !== undefined);
  const [o, t] = [of('other'), of('this')];
  const ratio = o.length && t.length ? (median(t) / median(o)).toFixed(3) : '-';
  const best = (values: number[]) => (values.length ? Math.max(...values) : NaN);
  const med = (values: number[]) => (values.length ? median(values) : NaN);
  process.stdout.write(
    `${label.slice(0, 63).padEnd(64)}${fmt(best(o)).padStart(12)}${fmt(med(o)).padStart(12)}${fmt(best(t)).padStart(12)}${fmt(med(t)).padStart(12)}${ratio.padStart(12)}\n`,
  );
}
