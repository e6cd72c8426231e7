import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildServices, serviceEntries } from '../scripts/build-services.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fxdesk-build-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const manifest = (fields: Record<string, unknown>) => JSON.stringify({ type: 'module', version: '1.2.3', ...fields });

/**
 * A small monorepo: workspace `@demo/lib` (packages/lib) and service `@demo/svc` (services/svc),
 * linked in node_modules as npm links workspaces. `files` adds to or replaces its files.
 */
function monorepo(files: Record<string, string>): string {
  const root = fs.mkdtempSync(path.join(tmp, 'repo-'));
  const all: Record<string, string> = {
    'package.json': manifest({ name: 'demo', workspaces: ['packages/*', 'services/*'] }),
    'packages/lib/package.json': manifest({ name: '@demo/lib', exports: { '.': './src/index.ts' } }),
    'packages/lib/src/index.ts': "export const greeting: string = 'hello from lib';\n",
    'services/svc/package.json': manifest({ name: '@demo/svc', dependencies: { '@demo/lib': '1.2.3' } }),
    'services/svc/src/server.ts': "import { greeting } from '@demo/lib';\nconsole.log(greeting);\n",
    ...files,
  };
  for (const [file, text] of Object.entries(all)) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
  }
  fs.mkdirSync(path.join(root, 'node_modules/@demo'), { recursive: true });
  fs.symlinkSync('../../packages/lib', path.join(root, 'node_modules/@demo/lib'));
  fs.symlinkSync('../../services/svc', path.join(root, 'node_modules/@demo/svc'));
  return root;
}

const runBuilt = (root: string) => execFileSync(process.execPath, [path.join(root, 'services/svc/dist/server.js')], { encoding: 'utf8' }).trim();

describe('serviceEntries', () => {
  it('takes every workspace with a src/server.ts as a service, bundled to its dist/server.js', () => {
    const root = monorepo({ 'services/other/package.json': manifest({ name: '@demo/other' }) });
    expect(serviceEntries(root)).toEqual([
      { name: 'svc', entry: path.join(root, 'services/svc/src/server.ts'), outfile: path.join(root, 'services/svc/dist/server.js'), workers: [] },
    ]);
  });

  it("takes a service's src/<folder>/worker.ts as a worker thread, bundled beside the server as dist/<folder>-worker.js", () => {
    const root = monorepo({ 'services/svc/src/lab/worker.ts': '', 'services/svc/src/lab/other.ts': '', 'services/svc/src/worker.ts': '' });
    expect(serviceEntries(root)[0]?.workers).toEqual([
      { entry: path.join(root, 'services/svc/src/lab/worker.ts'), outfile: path.join(root, 'services/svc/dist/lab-worker.js') },
    ]);
  });
});

describe('buildServices', () => {
  it('bundles a workspace package into the service, which then runs with plain node', async () => {
    const root = monorepo({});
    const [built] = await buildServices(root);
    expect(built?.imports).toEqual([]);
    expect(runBuilt(root)).toBe('hello from lib');
  });

  it('bundles a worker thread that the bundled server starts from beside itself', async () => {
    const root = monorepo({
      'services/svc/src/lab/worker.ts':
        "import { parentPort } from 'node:worker_threads';\nimport { greeting } from '@demo/lib';\nparentPort?.postMessage(`${greeting} in a worker`);\n",
      'services/svc/src/server.ts':
        "import { Worker } from 'node:worker_threads';\nconst worker = new Worker(new URL('./lab-worker.js', import.meta.url));\nworker.once('message', (m) => { console.log(m); void worker.terminate(); });\n",
    });
    const [built] = await buildServices(root);
    expect(built?.imports).toEqual(['node:worker_threads']);
    expect(runBuilt(root)).toBe('hello from lib in a worker');
  });

  it('writes a source map beside the bundle, without the sources', async () => {
    const root = monorepo({});
    await buildServices(root);
    const map = JSON.parse(fs.readFileSync(path.join(root, 'services/svc/dist/server.js.map'), 'utf8')) as { sources: string[]; sourcesContent?: unknown };
    expect(map.sources).toEqual(['../../../packages/lib/src/index.ts', '../src/server.ts']);
    expect(map.sourcesContent).toBeUndefined();
  });

  it('leaves an npm package the service lists in its dependencies external, subpaths included', async () => {
    const root = monorepo({
      'services/svc/package.json': manifest({ name: '@demo/svc', dependencies: { 'left-pad': '1.3.0' } }),
      'services/svc/src/server.ts': "import pad from 'left-pad';\nimport more from 'left-pad/more.js';\nconsole.log(pad, more);\n",
    });
    const [built] = await buildServices(root);
    expect(built?.imports).toEqual(['left-pad', 'left-pad/more.js']);
  });

  it('leaves node builtins external', async () => {
    const root = monorepo({ 'services/svc/src/server.ts': "import os from 'node:os';\nimport fs from 'fs';\nconsole.log(os, fs);\n" });
    const [built] = await buildServices(root);
    expect(built?.imports).toEqual(['fs', 'node:os']);
  });

  it('refuses an npm package the importing workspace does not list in its dependencies', async () => {
    const root = monorepo({ 'services/svc/src/server.ts': "import pad from 'left-pad';\nconsole.log(pad);\n" });
    await expect(buildServices(root)).rejects.toThrow(
      'services/svc/src/server.ts imports left-pad, which services/svc/package.json does not list in its dependencies',
    );
  });

  it('refuses an npm package listed only in devDependencies, which a production install leaves out', async () => {
    const root = monorepo({
      'services/svc/package.json': manifest({ name: '@demo/svc', devDependencies: { 'left-pad': '1.3.0' } }),
      'services/svc/src/server.ts': "import pad from 'left-pad';\nconsole.log(pad);\n",
    });
    await expect(buildServices(root)).rejects.toThrow('services/svc/src/server.ts imports left-pad, which services/svc/package.json does not list');
  });

  it("checks a bundled workspace package's imports against its own dependencies, not the service's", async () => {
    const root = monorepo({
      'packages/lib/src/index.ts': "import pad from 'left-pad';\nexport const greeting = String(pad);\n",
      'services/svc/package.json': manifest({ name: '@demo/svc', dependencies: { '@demo/lib': '1.2.3', 'left-pad': '1.3.0' } }),
    });
    await expect(buildServices(root)).rejects.toThrow('packages/lib/src/index.ts imports left-pad, which packages/lib/package.json does not list');
  });

  it("inlines a JSON import such as the service's own package.json", async () => {
    const root = monorepo({ 'services/svc/src/server.ts': "import pkg from '../package.json' with { type: 'json' };\nconsole.log(pkg.version);\n" });
    const [built] = await buildServices(root);
    expect(built?.imports).toEqual([]);
    expect(runBuilt(root)).toBe('1.2.3');
  });

  it('keeps the name of a class that bundling renames because another module declares the same name', async () => {
    const root = monorepo({
      'packages/lib/src/index.ts': 'export class Thing {}\n',
      'services/svc/src/server.ts':
        "import { Thing as LibThing } from '@demo/lib';\nclass Thing {}\nconsole.log(new LibThing().constructor.name, new Thing().constructor.name);\n",
    });
    await buildServices(root);
    expect(runBuilt(root)).toBe('Thing Thing');
  });

  it('builds only the services it is given', async () => {
    const root = monorepo({
      'services/other/package.json': manifest({ name: '@demo/other' }),
      'services/other/src/server.ts': "console.log('other');\n",
    });
    const built = await buildServices(root, ['other']);
    expect(built.map((s) => s.name)).toEqual(['other']);
    expect(fs.existsSync(path.join(root, 'services/svc/dist/server.js'))).toBe(false);
  });

  it('refuses a service name that names no service', async () => {
    const root = monorepo({});
    await expect(buildServices(root, ['nope'])).rejects.toThrow('unknown service nope; choose from svc');
  });
});
