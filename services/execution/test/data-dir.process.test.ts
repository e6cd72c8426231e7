/**
 * The real server process on a data directory that lost or damaged its database (issue 21): it
 * refuses to start with one line rather than trade as a fresh account, unless `--reset` says so;
 * a database from before identity markers is adopted with its signals.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { freePort, run } from '@fxdesk/core/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { openExecutionFile } from '../src/schema.js';
import { killAll, marketBuy, PROCESS_KEY, SERVER, startServer, type ServerProcess } from './server-process.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'fxdesk-exec-datadir-'));
const started: ServerProcess[] = [];

afterAll(async () => {
  await killAll(started);
  fs.rmSync(root, { recursive: true, force: true });
});

/** A data directory holding an execution.db made by the store, with its marker. */
async function dataDirWithDatabase(): Promise<{ dataDir: string; file: string; marker: string }> {
  const dataDir = fs.mkdtempSync(path.join(root, 'data-'));
  const file = path.join(dataDir, 'execution.db');
  await openExecutionFile(file).close();
  return { dataDir, file, marker: `${file}.id` };
}

/** The server's exit when it refuses to start: code and the lines it wrote on stderr; one that starts instead is killed after 40 s. */
async function refusal(dataDir: string, args: string[] = []): Promise<{ code: number | null; lines: string[] }> {
  const server = run(SERVER, { DATA_DIR: dataDir, PORT: String(await freePort()), API_KEY: PROCESS_KEY, LOG_LEVEL: 'warn' }, args);
  const timer = setTimeout(() => server.child.kill('SIGKILL'), 40_000);
  const result = await server.done;
  clearTimeout(timer);
  return { code: result.code, lines: result.stderr.trim().split('\n') };
}

async function start(dataDir: string, args: string[] = []): Promise<ServerProcess> {
  const server = await startServer({ DATA_DIR: dataDir }, undefined, args);
  started.push(server);
  return server;
}

async function stop(server: ServerProcess): Promise<void> {
  server.child.kill('SIGTERM');
  expect((await server.done).code).toBe(0);
}

// Each starts a real process through tsx: seconds on a busy machine.
describe('execution server on a data directory that lost its database', { timeout: 90_000 }, () => {
  it('refuses a damaged execution.db with one line naming the file, exit 1', async () => {
    const { dataDir, file } = await dataDirWithDatabase();
    const fd = fs.openSync(file, 'r+');
    for (let page = 1; page < 9; page++) fs.writeSync(fd, Buffer.alloc(4096, 0xab), 0, 4096, page * 4096);
    fs.closeSync(fd);

    const { code, lines } = await refusal(dataDir);
    expect(code).toBe(1);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^execution: ${file} is damaged \\(.*\\): restore it from a backup, or move it aside`));
  });

  it('refuses a 0-byte execution.db beside its marker with one line, exit 1', async () => {
    const { dataDir, file, marker } = await dataDirWithDatabase();
    fs.truncateSync(file, 0);
    const id = fs.readFileSync(marker, 'utf8').trim();

    const { code, lines } = await refusal(dataDir);
    expect(code).toBe(1);
    expect(lines).toEqual([
      `execution: ${file} is empty, but ${marker} says this data directory held database ${id}: put that database back (from a backup), or start once with --reset to go on with an empty one`,
    ]);
    expect(fs.statSync(file).size).toBe(0);
  });

  it('refuses a deleted execution.db beside its marker with one line, exit 1, and creates no file', async () => {
    const { dataDir, file } = await dataDirWithDatabase();
    fs.rmSync(file);

    const { code, lines } = await refusal(dataDir);
    expect(code).toBe(1);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^execution: ${file} is missing, but ${file}\\.id says`));
    expect(fs.existsSync(file)).toBe(false);
  });

  it('with --reset, starts on an empty database with a new identity and trades', async () => {
    const { dataDir, file, marker } = await dataDirWithDatabase();
    const before = fs.readFileSync(marker, 'utf8');
    fs.truncateSync(file, 0);

    const server = await start(dataDir, ['--reset']);
    expect((await server.submit(marketBuy())).status).toBe(200);
    expect(fs.readFileSync(marker, 'utf8')).not.toBe(before);
    await stop(server);
  });

  it('adopts a database from before identity markers, with its signals', async () => {
    const dataDir = fs.mkdtempSync(path.join(root, 'old-'));
    const file = path.join(dataDir, 'execution.db');
    const first = await start(dataDir);
    const body = marketBuy();
    expect((await first.submit(body)).status).toBe(200);
    await stop(first);
    // As this build's predecessor left it: no identity inside, no marker beside.
    const db = new Database(file);
    db.exec('DROP TABLE fxdesk_meta');
    db.close();
    fs.rmSync(`${file}.id`);

    const second = await start(dataDir);
    expect(await (await second.getSignal(body.signal_id)).json()).toMatchObject({ signal_id: body.signal_id, state: 'filled' });
    expect(fs.readFileSync(`${file}.id`, 'utf8')).toMatch(/^[0-9a-f-]{36}\n$/);
    await stop(second);
  });
});
