/**
 * The production build: each service's src/server.ts bundled by esbuild into
 * `<service>/dist/server.js`, which plain `node` runs (development keeps tsx).
 *
 * The workspace packages are bundled in; every npm package stays external and loads from
 * node_modules as installed, so the native SQLite driver and packages that read their own files
 * (redoc, @fastify/swagger-ui) work unchanged. Nothing is listed by hand: the services are the
 * workspaces that have a src/server.ts, and whatever they import is followed from there. A
 * service's worker threads, `src/<folder>/worker.ts`, are bundled beside it as
 * `dist/<folder>-worker.js`, where the bundled server finds them (`new URL('./<folder>-worker.js',
 * import.meta.url)`).
 */
import fs from 'node:fs';
import { isBuiltin } from 'node:module';
import path from 'node:path';
import * as esbuild from 'esbuild';

export interface ServiceEntry {
  /** The workspace folder's name, e.g. `strategy`. */
  name: string;
  /** src/server.ts, absolute. */
  entry: string;
  /** dist/server.js, absolute: what `node` runs in production. */
  outfile: string;
  /** Worker thread entries: src/<folder>/worker.ts → dist/<folder>-worker.js, absolute. */
  workers: Array<{ entry: string; outfile: string }>;
}

export interface BuiltService extends ServiceEntry {
  /** The external imports of its bundles (server and workers): npm packages (with any subpath) and node builtins. */
  imports: string[];
}

interface PackageJson {
  name?: string;
  workspaces?: string[];
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

function readPackageJson(file: string): PackageJson {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as PackageJson;
}

/** The root's workspace folders, from its `workspaces` patterns (`dir` or `dir/*`). */
function workspaceDirs(root: string): string[] {
  const patterns = readPackageJson(path.join(root, 'package.json')).workspaces ?? [];
  return patterns.flatMap((pattern) => {
    if (!pattern.endsWith('/*')) return [path.join(root, pattern)];
    const parent = path.join(root, pattern.slice(0, -2));
    if (!fs.existsSync(parent)) return [];
    return fs
      .readdirSync(parent, { withFileTypes: true })
      .filter((d) => d.isDirectory() && fs.existsSync(path.join(parent, d.name, 'package.json')))
      .map((d) => path.join(parent, d.name));
  });
}

/** A service's src/<folder>/worker.ts files and their bundles, dist/<folder>-worker.js. */
function workerEntries(dir: string): ServiceEntry['workers'] {
  return fs
    .readdirSync(path.join(dir, 'src'), { withFileTypes: true })
    .filter((d) => d.isDirectory() && fs.existsSync(path.join(dir, 'src', d.name, 'worker.ts')))
    .map((d) => ({ entry: path.join(dir, 'src', d.name, 'worker.ts'), outfile: path.join(dir, 'dist', `${d.name}-worker.js`) }))
    .sort((a, b) => a.entry.localeCompare(b.entry));
}

/** Every workspace with a src/server.ts, and where its bundles go. */
export function serviceEntries(root: string): ServiceEntry[] {
  return workspaceDirs(root)
    .filter((dir) => fs.existsSync(path.join(dir, 'src', 'server.ts')))
    .map((dir) => ({
      name: path.basename(dir),
      entry: path.join(dir, 'src', 'server.ts'),
      outfile: path.join(dir, 'dist', 'server.js'),
      workers: workerEntries(dir),
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** `@scope/name/sub` → `@scope/name`, `name/sub` → `name`. */
function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return (specifier.startsWith('@') ? parts.slice(0, 2) : parts.slice(0, 1)).join('/');
}

function nearestPackageJson(from: string): string {
  for (let dir = path.dirname(from); ; dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (fs.existsSync(file)) return file;
    if (path.dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

/**
 * Bundles the workspace packages and leaves every other package external, provided the importing
 * workspace lists it in its dependencies: a production install (`npm ci --omit=dev`) holds only
 * those, so an import that works in development through a dev dependency or hoisting fails here
 * instead of in production.
 */
function externalPackages(root: string, workspaceNames: Set<string>): esbuild.Plugin {
  const declared = new Map<string, Set<string>>();
  const declaredBy = (packageJson: string) => {
    let names = declared.get(packageJson);
    if (!names) {
      const pkg = readPackageJson(packageJson);
      names = new Set(Object.keys({ ...pkg.dependencies, ...pkg.optionalDependencies, ...pkg.peerDependencies }));
      declared.set(packageJson, names);
    }
    return names;
  };
  return {
    name: 'external-packages',
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, (args) => {
        if (isBuiltin(args.path) || path.isAbsolute(args.path)) return undefined;
        const name = packageName(args.path);
        if (workspaceNames.has(name)) return undefined;
        const packageJson = nearestPackageJson(args.importer);
        if (!declaredBy(packageJson).has(name)) {
          const where = (file: string) => path.relative(root, file);
          return { errors: [{ text: `${where(args.importer)} imports ${name}, which ${where(packageJson)} does not list in its dependencies` }] };
        }
        return { path: args.path, external: true };
      });
    },
  };
}

/**
 * Bundles the named services (all when none is named) into their dist/server.js and
 * dist/server.js.map. Each file is written whole and renamed into place, so a process starting
 * a service while another build runs never reads half a file.
 */
export async function buildServices(root: string, names: string[] = []): Promise<BuiltService[]> {
  const all = serviceEntries(root);
  const unknown = names.filter((n) => !all.some((s) => s.name === n));
  if (unknown.length > 0) throw new Error(`unknown service ${unknown.join(', ')}; choose from ${all.map((s) => s.name).join(', ')}`);
  const services = names.length === 0 ? all : all.filter((s) => names.includes(s.name));
  const workspaceNames = new Set(workspaceDirs(root).map((dir) => readPackageJson(path.join(dir, 'package.json')).name ?? ''));

  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: services.flatMap((s) => [s, ...s.workers]).map((s) => ({ in: s.entry, out: path.relative(root, s.outfile).replace(/\.js$/, '') })),
    outdir: root,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // Bundling renames clashing top-level names (a second `Thing` becomes `Thing2`); keep every
    // function's and class's `.name` as in the sources (pino logs an error's type by it).
    keepNames: true,
    sourcemap: 'linked',
    sourcesContent: false,
    metafile: true,
    write: false,
    logLevel: 'silent',
    plugins: [externalPackages(root, workspaceNames)],
  });

  for (const file of result.outputFiles) {
    fs.mkdirSync(path.dirname(file.path), { recursive: true });
    const partial = `${file.path}.${process.pid}.partial`;
    fs.writeFileSync(partial, file.contents);
    fs.renameSync(partial, file.path);
  }

  return services.map((service) => {
    const imports = [service, ...service.workers].flatMap(({ outfile }) => {
      const output = result.metafile.outputs[path.relative(root, outfile)];
      if (!output) throw new Error(`esbuild wrote no ${outfile}`);
      return output.imports.map((i) => i.path);
    });
    return { ...service, imports: [...new Set(imports)].sort() };
  });
}
