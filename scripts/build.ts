/**
 * `npm run build`: bundles every service into services/<name>/dist/server.js for production
 * (`node services/<name>/dist/server.js`); `npm run build -- <service>…` bundles only those.
 */
import fs from 'node:fs';
import path from 'node:path';
import { buildServices } from './build-services.js';

const root = path.resolve(import.meta.dirname, '..');
const started = performance.now();
try {
  const built = await buildServices(root, process.argv.slice(2));
  for (const service of built) {
    const kb = Math.round(fs.statSync(service.outfile).size / 1024);
    process.stdout.write(`${path.relative(root, service.outfile)}  ${kb} KB, ${service.imports.length} external imports\n`);
  }
  process.stdout.write(`built ${built.length} in ${Math.round(performance.now() - started)} ms\n`);
} catch (err) {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
