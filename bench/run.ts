/**
 * `npm run bench -- <name>` runs bench/<name>/index.ts; with no name, lists the benchmarks.
 * Each benchmark prints its figures beside a baseline measured in the same run, and the ratio.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const here = import.meta.dirname;
const available = fs
  .readdirSync(here, { withFileTypes: true })
  .filter((d) => d.isDirectory() && fs.existsSync(path.join(here, d.name, 'index.ts')))
  .map((d) => d.name);
const [name, ...args] = process.argv.slice(2);
if (!name || !available.includes(name)) {
  process.stdout.write(`usage: npm run bench -- <name> [args]\nbenchmarks: ${available.join(', ') || '(none yet)'}\n`);
  process.exit(name ? 2 : 0);
}
const result = spawnSync(process.execPath, ['--import', 'tsx', path.join(here, name, 'index.ts'), ...args], { stdio: 'inherit' });
process.exit(result.status ?? 1);
