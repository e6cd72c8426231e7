/**
 * Real database engines for tests: a PostgreSQL server and a Redis server of the Debian packages,
 * each in a temporary directory on a free port, started by the test file that needs it and stopped
 * by it (and at exit should the file fail first). No mocks of either engine.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { installDebianPackage, ensureDebianPackage } from './debian.js';
import { freePort } from './processes.js';

export interface RunningEngine {
  /** postgres://… or redis://… on 127.0.0.1. */
  url: string;
  /** Stops the server and removes its directory; safe to call twice. */
  stop(): Promise<void>;
}

export interface RunningPostgres extends RunningEngine {
  /**
   * A new, empty database on this server and its URL: one per test keeps tests apart. With
   * `icuLocale` (say en-US), text sorts by that ICU collation rather than the cluster's C order.
   */
  createDatabase(options?: { icuLocale?: string }): Promise<string>;
}

const POSTGRES_ROOT = '/usr/lib/postgresql';

/** The bin folder of the newest PostgreSQL of the Debian packages (they keep initdb and pg_ctl off PATH). */
export function postgresBin(): string | undefined {
  if (!fs.existsSync(POSTGRES_ROOT)) return undefined;
  const versions = fs
    .readdirSync(POSTGRES_ROOT)
    .filter((v) => fs.existsSync(path.join(POSTGRES_ROOT, v, 'bin', 'pg_ctl')) && fs.existsSync(path.join(POSTGRES_ROOT, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : path.join(POSTGRES_ROOT, versions[0], 'bin');
}

/**
 * Why PostgreSQL cannot run here, or undefined when it can: installs the `postgresql` package
 * first when it is missing and this is root. A test file skips with the reason it gets.
 */
export function postgresUnavailable(): string | undefined {
  if (postgresBin()) return undefined;
  try {
    installDebianPackage('postgresql', `ls ${POSTGRES_ROOT}/*/bin/pg_ctl >/dev/null 2>&1`);
  } catch (err) {
    return `PostgreSQL is not installed (${(err as Error).message})`;
  }
  return postgresBin() ? undefined : 'installing postgresql gave no initdb and pg_ctl under /usr/lib/postgresql';
}

/** The user the server runs as: PostgreSQL refuses to run as root, so root hands it to `postgres` (made by the package). */
export function postgresServerUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const line = fs
    .readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('postgres:'));
  if (!line) throw new Error('running as root and there is no postgres user to run PostgreSQL as (apt-get install postgresql makes it)');
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

function runAs(user: { uid: number; gid: number } | undefined, file: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { ...user, cwd: '/', stdio: ['ignore', 'ignore', 'pipe'], env: { PATH: process.env.PATH ?? '', LC_ALL: 'C' } });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${path.basename(file)} exited ${code}: ${stderr.trim()}`))));
  });
}

/** Stops a server and removes its directory at exit, in case the test file ends before it does. */
function onExit(cleanup: () => void): () => void {
  const listener = () => {
    try {
      cleanup();
    } catch {
      // exiting anyway
    }
  };
  process.once('exit', listener);
  return () => process.removeListener('exit', listener);
}

export interface StartPostgresOptions {
  /**
   * fsync and synchronous_commit as in production. Off by default: a test needs a server that
   * loses nothing while it runs, not one that survives a power cut, and fsyncs cost seconds a file.
   */
  durable?: boolean;
}

/**
 * A PostgreSQL server of its own: initdb in a temporary directory (owned by the `postgres` user
 * when run as root), then pg_ctl start on a free port of 127.0.0.1, TCP only, trust auth for the
 * superuser `fxdesk`. Throws the reason when PostgreSQL is missing and cannot be installed.
 */
export async function startPostgres(options: StartPostgresOptions = {}): Promise<RunningPostgres> {
  const missing = postgresUnavailable();
  if (missing) throw new Error(missing);
  const bin = postgresBin() as string;
  const user = postgresServerUser();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fxdesk-pg-'));
  if (user) fs.chownSync(dir, user.uid, user.gid);
  const data = path.join(dir, 'data');
  const port = await freePort();
  const settings = [
    `-p ${port}`,
    `-c listen_addresses=127.0.0.1`,
    `-c unix_socket_directories=''`,
    `-c max_connections=200`,
    ...(options.durable ? [] : ['-c fsync=off', '-c synchronous_commit=off', '-c full_page_writes=off']),
  ];
  const pgCtl = path.join(bin, 'pg_ctl');
  const stopNow = () => {
    if (fs.existsSync(path.join(data, 'postmaster.pid'))) {
      execFileSync(pgCtl, ['-D', data, '-m', 'immediate', '-w', 'stop'], { ...user, stdio: 'ignore', timeout: 30_000 });
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };
  const forget = onExit(stopNow);
  try {
    await runAs(user, path.join(bin, 'initdb'), ['-D', data, '-U', 'fxdesk', '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync', '--no-instructions']);
    await runAs(user, pgCtl, ['-D', data, '-l', path.join(dir, 'server.log'), '-w', '-t', '60', '-o', settings.join(' '), 'start']);
  } catch (err) {
    forget();
    stopNow();
    throw err;
  }
  const url = `postgres://fxdesk@127.0.0.1:${port}/postgres`;
  let databases = 0;
  let stopped = false;
  return {
    url,
    async createDatabase({ icuLocale }: { icuLocale?: string } = {}) {
      const name = `test_${++databases}`;
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const locale = icuLocale === undefined ? '' : ` TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE '${icuLocale.replace(/[^A-Za-z0-9_-]/g, '')}'`;
        await client.query(`CREATE DATABASE ${name}${locale}`);
      } finally {
        await client.end();
      }
      return `postgres://fxdesk@127.0.0.1:${port}/${name}`;
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      forget();
      await runAs(user, pgCtl, ['-D', data, '-m', 'fast', '-w', 'stop']).catch(() => undefined);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A Redis server of its own (the `redis-server` package, installed when missing and root) on a
 * free port of 127.0.0.1, with no persistence: `--save '' --appendonly no`, in a temporary directory.
 */
export async function startRedis(): Promise<RunningEngine> {
  const binary = ensureDebianPackage('redis-server');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fxdesk-redis-'));
  const port = await freePort();
  const child = spawn(binary, ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const forget = onExit(() => {
    child.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  });
  try {
    await new Promise<void>((resolve, reject) => {
      let output = '';
      child.stdout.on('data', (d: Buffer) => {
        output += d.toString();
        if (output.includes('Ready to accept connections')) resolve();
      });
      child.on('error', reject);
      child.on('exit', (code) => reject(new Error(`redis-server exited ${code}: ${output.trim().split('\n').at(-1) ?? ''}`)));
    });
  } catch (err) {
    forget();
    fs.rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  let stopped = false;
  return {
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      if (stopped) return;
      stopped = true;
      forget();
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
