import fs from 'node:fs';
import path from 'node:path';
import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';

/**
 * One `npm test` over every workspace, in three groups run one after the other (CI has two cores):
 * 1. the in-process tests of each package and service, two files at a time, in workers that keep
 *    their loaded modules from one file to the next (none of these files mocks a module or leaves
 *    a global changed);
 * 2. the tests of a package or service that start real processes, servers or a browser
 *    (`*.process.test.ts`, `*.browser.test.ts`), two files at a time: most of their time is spent
 *    waiting on a lease, a candle or a child process;
 * 3. the tests of the whole stack (the root `test/` folder: the five services together, the build,
 *    the lab in a browser, the soak), one file at a time: each loads both cores on its own. The
 *    console's browser tests run in group 2 instead: they start one or two services, not the
 *    stack, and most of their minutes are spent waiting for an M1 candle to close or a page to
 *    settle. So do the whole-stack tests of each venue (venues.process.test.ts): past their start,
 *    they wait for the strategy's M1 candle.
 */
const SPAWNING = ['**/*.process.test.ts', '**/*.browser.test.ts'];
const WAITING = ['console.browser.test.ts', 'console-desk.browser.test.ts', 'console-polish.browser.test.ts', 'venues.process.test.ts'];
const ALL = ['**/*.test.ts'];

/**
 * What a test and a hook get unless they set their own, per group. Vitest's defaults (5 s a test,
 * 10 s a hook) are met by every in-process test on a quiet machine, but CI shares its two cores:
 * with another process keeping both busy, a test that loads a week of candles or builds every
 * service's OpenAPI document took over 5 s. A test that waits on something slower (a lease, a
 * candle, a child process) still sets its own, longer timeout.
 */
const TIMEOUT_MS: Record<1 | 2 | 3, number> = { 1: 30_000, 2: 120_000, 3: 180_000 };

const workspaces = ['packages', 'services']
  .flatMap((dir) => fs.readdirSync(dir).map((name) => path.join(dir, name)))
  .filter((dir) => fs.existsSync(path.join(dir, 'test')))
  .map((dir) => ({ root: dir, name: (JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name: string }).name }));

function project(name: string, root: string, group: 1 | 2 | 3, include: string[], exclude: string[] = []): TestProjectInlineConfiguration {
  return {
    test: {
      name,
      root,
      include: include.map((glob) => `test/${glob}`),
      exclude: ['**/node_modules/**', ...exclude.map((glob) => `test/${glob}`)],
      maxWorkers: group === 3 ? 1 : 2,
      testTimeout: TIMEOUT_MS[group],
      hookTimeout: TIMEOUT_MS[group],
      isolate: group !== 1,
      sequence: { groupOrder: group },
    },
  };
}

export default defineConfig({
  test: {
    projects: [
      ...workspaces.flatMap((ws) => [project(ws.name, ws.root, 1, ALL, SPAWNING), project(`${ws.name} processes`, ws.root, 2, SPAWNING)]),
      project('stack', '.', 1, ALL, SPAWNING),
      project('stack processes', '.', 3, SPAWNING, WAITING),
      project('stack waits', '.', 2, WAITING),
    ],
  },
});
