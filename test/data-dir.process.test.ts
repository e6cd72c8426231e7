/**
 * Every service that keeps a SQLite file refuses, as a real process, to start on a file it would
 * lose data in (issue 21): damaged, or empty while its identity marker says the data directory
 * held a database; one line on stderr naming the file, exit 1. `--reset` goes on with the file.
 * The execution service's own process tests cover each case on it in depth.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '@fxdesk/core';
import { answers, freePort, run, until } from '@fxdesk/core/testing';
import { afterAll, describe, expect, it } from 'vitest';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'fxdesk-datadir-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

/** The SQLite files of each service under DATA_DIR (the execution service's are tested beside it). */
const DATABASES: Array<{ service: string; database: string }> = [
  { service: 'notification', database: 'notification' },
  { service: 'account', database: 'account' },
  { service: 'strategy', database: 'strategy' },
  { service: 'strategy', database: 'lab' },
];

/** A fresh DATA_DIR holding `<database>.db` with rows on a few dozen pages, and its marker. */
function dataDirWith(database: string): { dataDir: string; file: string } {
  const dataDir = fs.mkdtempSync(path.join(root, `${database}-`));
  const file = path.join(dataDir, `${database}.db`);
  const db = openDatabase(file, { migrations: [] });
  db.exec('CREATE TABLE earlier (v BLOB)');
  const insert = db.prepare('INSERT INTO earlier (v) VALUES (randomblob(200))');
  db.transaction(() => {
    for (let i = 0; i < 500; i++) insert.run();
  })();
  db.close();
  return { dataDir, file };
}

async function startOn(service: string, dataDir: string, args: string[] = []) {
  return run(`services/${service}/src/server.ts`, { DATA_DIR: dataDir, PORT: String(await freePort()), LOG_LEVEL: 'warn' }, args);
}

/** The lines the service wrote on stderr as it refused to start; one that starts instead is killed after 40 s, failing the test. */
async function refusal(service: string, dataDir: string): Promise<string[]> {
  const server = await startOn(service, dataDir);
  const timer = setTimeout(() => server.child.kill('SIGKILL'), 40_000);
  const result = await server.done;
  clearTimeout(timer);
  expect(result.code).toBe(1);
  return result.stderr.trim().split('\n');
}

// Each starts a real process through tsx: seconds on a busy machine, past vitest's 5 s default.
describe('a service on a data directory that lost or damaged its database', { timeout: 60_000 }, () => {
  for (const { service, database } of DATABASES) {
    it(`${service} refuses a damaged ${database}.db with one line naming it`, async () => {
      const { dataDir, file } = dataDirWith(database);
      const fd = fs.openSync(file, 'r+');
      for (let page = 1; page < 9; page++) fs.writeSync(fd, Buffer.alloc(4096, 0xab), 0, 4096, page * 4096);
      fs.closeSync(fd);

      const lines = await refusal(service, dataDir);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(new RegExp(`^${service}: ${file} is damaged \\(.*\\): restore it from a backup`));
    });

    it(`${service} refuses a 0-byte ${database}.db beside its marker with one line naming it`, async () => {
      const { dataDir, file } = dataDirWith(database);
      fs.truncateSync(file, 0);

      const lines = await refusal(service, dataDir);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(new RegExp(`^${service}: ${file} is empty, but ${file}\\.id says this data directory held database .*--reset`));
    });
  }

  it('strategy with --reset goes on with an empty lab.db and starts', async () => {
    const { dataDir, file } = dataDirWith('lab');
    fs.truncateSync(file, 0);
    const before = fs.readFileSync(`${file}.id`, 'utf8');
    const port = await freePort();
    const server = run('services/strategy/src/server.ts', { DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'warn' }, ['--reset']);
    try {
      await until(() => answers(`http://127.0.0.1:${port}/health/ready`), 45_000);
      expect(fs.readFileSync(`${file}.id`, 'utf8')).not.toBe(before);
    } finally {
      server.child.kill('SIGTERM');
      await server.done;
    }
  });
});
