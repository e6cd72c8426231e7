/**
 * `npm run start:scale`: the scaled desk as processes on this machine, the topology of
 * docker-compose.yml's `scale` profile. PostgreSQL and Redis servers of the Debian packages
 * (their files under DATA_DIR/scale, kept between runs), two replicas of each service, and nginx
 * in front of each pair on the stack's ports (8000, 8001, 3000, 8010, 3010), so the desk answers
 * where `npm start` has it. Ctrl-C stops nginx and the replicas, then the two servers.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { postgresBin, postgresServerUser } from '@fxdesk/core/testing';
import { venueMixProblem } from '@fxdesk/core';
import { Launcher, loadBaseEnv, serviceCommand, waitAnswers } from './launcher.js';
import { describeDevKeys, serviceEnv, stackPortOf, type Env } from './stack-env.js';
import { DATABASE_SERVICES, databaseName, nginxConfig, replicaNames, REPLICAS, type BalancedService } from './scale.js';
import { STACK } from './stack.js';

const INSTALL = 'apt-get install postgresql redis-server nginx-light';
const REPLICA_PORT_STEP = 10_000;

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(2);
}

/** The programs the desk runs on, or a message saying how to install what is missing. */
function programs(): { postgres: string; initdb: string; redis: string; nginx: string } {
  const find = (name: string) => ['/usr/sbin', '/usr/bin', '/sbin', '/bin'].map((d) => path.join(d, name)).find((p) => fs.existsSync(p));
  const bin = postgresBin();
  const redis = find('redis-server');
  const nginx = find('nginx');
  const missing = [!bin && 'PostgreSQL', !redis && 'Redis', !nginx && 'nginx'].filter(Boolean);
  if (missing.length > 0 || !bin || !redis || !nginx) {
    fail(`npm run start:scale runs PostgreSQL, Redis and nginx from the Debian packages; missing: ${missing.join(', ')}.\nInstall them with: sudo ${INSTALL}`);
  }
  return { postgres: path.join(bin, 'postgres'), initdb: path.join(bin, 'initdb'), redis, nginx };
}

function portSetting(base: Env, name: string, fallback: number): number {
  const value = base[name];
  if (value === undefined || value === '') return fallback;
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 65535) fail(`${name} must be a port (1 to 65535), not ${value}`);
  return Number(value);
}

/** A new cluster the first time (superuser fxdesk, trust on 127.0.0.1 only), owned by `postgres` when run as root. */
function initPostgres(initdb: string, dir: string, user: { uid: number; gid: number } | undefined): void {
  if (fs.existsSync(path.join(dir, 'PG_VERSION'))) return;
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  fs.mkdirSync(dir, { mode: 0o700 });
  if (user) fs.chownSync(dir, user.uid, user.gid);
  try {
    execFileSync(initdb, ['-D', dir, '-U', 'fxdesk', '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-instructions'], { ...user, stdio: 'pipe', cwd: '/' });
  } catch (err) {
    fs.rmSync(dir, { recursive: true, force: true });
    const why = (err as { stderr?: Buffer }).stderr?.toString().trim().split('\n').at(-1) ?? String(err);
    fail(
      `initdb could not create the database cluster in ${dir}: ${why}${user ? ' (it runs as the postgres user: every folder above DATA_DIR must let it through)' : ''}`,
    );
  }
}

/** Polls until a TCP connection to the port opens. */
async function waitPort(port: number, deadline: number): Promise<boolean> {
  while (Date.now() < deadline) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => resolve(true)).on('error', () => resolve(false));
      socket.setTimeout(1000, () => resolve(false));
      setTimeout(() => socket.destroy(), 1000);
    });
    if (open) return true;
    await new Promise((r) => setTimeout(r, 200));
  }
  return false;
}

/** Each stateful service's database, created when missing. */
async function createDatabases(url: string, deadline: number): Promise<void> {
  for (;;) {
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      for (const service of DATABASE_SERVICES) {
        const name = databaseName(service);
        const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
        if (rowCount === 0) await client.query(`CREATE DATABASE ${name}`);
      }
      return;
    } catch (err) {
      // The server refuses connections while it starts up.
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 250));
    } finally {
      await client.end().catch(() => undefined);
    }
  }
}

async function main(): Promise<void> {
  const base = loadBaseEnv();
  // As npm start: a mixed desk is refused before anything starts.
  const mixed = venueMixProblem(base);
  if (mixed) fail(`fxdesk: ${mixed}`);
  const bin = programs();
  const dir = path.resolve(base.DATA_DIR ?? './data', 'scale');
  const postgresPort = portSetting(base, 'SCALE_POSTGRES_PORT', 15432);
  const redisPort = portSetting(base, 'SCALE_REDIS_PORT', 16379);
  const postgresUrl = (database: string) => `postgres://fxdesk@127.0.0.1:${postgresPort}/${database}`;
  const redisUrl = `redis://127.0.0.1:${redisPort}`;
  const replicas = STACK.flatMap((service) =>
    replicaNames(service.name).map((name, i) => {
      const port = stackPortOf(service, base) + REPLICA_PORT_STEP * (i + 1);
      if (port > 65535) fail(`${name} would listen on ${port}: set ${service.name}'s stack port below ${65535 - REPLICA_PORT_STEP * REPLICAS}`);
      return { service, name, port };
    }),
  );

  const launcher = new Launcher({ names: ['postgres', 'redis', 'nginx', ...replicas.map((r) => r.name)], rawLogs: base.LOG_FORMAT === 'json' });
  const started = Date.now();

  const user = postgresServerUser();
  const pgData = path.join(dir, 'postgres');
  initPostgres(bin.initdb, pgData, user);
  launcher.spawn({
    name: 'postgres',
    command: bin.postgres,
    args: ['-D', pgData, '-p', String(postgresPort), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=200'],
    user,
    cwd: '/',
    rawLogs: true,
    engine: true,
    // SIGINT is PostgreSQL's fast shutdown: it does not wait for clients to hang up.
    stopSignal: 'SIGINT',
  });
  const redisDir = path.join(dir, 'redis');
  fs.mkdirSync(redisDir, { recursive: true });
  launcher.spawn({
    name: 'redis',
    command: bin.redis,
    args: ['--port', String(redisPort), '--bind', '127.0.0.1', '--dir', redisDir, '--appendonly', 'yes', '--save', ''],
    rawLogs: true,
    engine: true,
  });
  await createDatabases(postgresUrl('postgres'), started + 60_000);
  if (!(await waitPort(redisPort, started + 60_000))) fail(`Redis did not open port ${redisPort}`);
  if (launcher.isStopping) return;

  const devKeys = new Set<string>();
  for (const { service, name, port } of replicas) {
    const prepared = serviceEnv(service, base);
    prepared.devKeys.forEach((k) => devKeys.add(k));
    const env: Env = {
      ...prepared.env,
      HOST: '127.0.0.1',
      PORT: String(port),
      DATA_DIR: path.join(dir, name),
      // One cTrader token file for every replica of the account (they renew one at a time, under its lock).
      CTRADER_TOKEN_FILE: base.CTRADER_TOKEN_FILE ?? path.join(dir, 'ctrader-tokens.json'),
      REPLICA_ID: name,
      REDIS_URL: redisUrl,
      // nginx on this machine names the client in X-Forwarded-For.
      TRUST_PROXY: 'loopback',
      ...(DATABASE_SERVICES.includes(service.name) ? { DATABASE_URL: postgresUrl(databaseName(service.name)) } : {}),
      ...(service.name === 'market-data' ? { REPLICA_URL: `http://127.0.0.1:${port}` } : {}),
    };
    launcher.spawn({ name, ...serviceCommand(service.name), env });
  }

  const nginxDir = path.join(dir, 'nginx');
  fs.mkdirSync(path.join(nginxDir, 'temp'), { recursive: true });
  const balanced: BalancedService[] = STACK.map((service) => ({
    service: service.name,
    listen: `127.0.0.1:${stackPortOf(service, base)}`,
    servers: replicas.filter((r) => r.service === service).map((r) => `127.0.0.1:${r.port}`),
  }));
  fs.writeFileSync(path.join(nginxDir, 'nginx.conf'), nginxConfig(balanced, { tempDir: path.join(nginxDir, 'temp') }));
  launcher.spawn({
    name: 'nginx',
    command: bin.nginx,
    args: ['-p', nginxDir, '-c', path.join(nginxDir, 'nginx.conf'), '-e', 'stderr', '-g', `daemon off; pid ${path.join(nginxDir, 'nginx.pid')};`],
    rawLogs: true,
  });

  const live = await Promise.all(replicas.map((r) => waitAnswers(`http://127.0.0.1:${r.port}/health/live`, started + 60_000)));
  if (launcher.isStopping) return;
  const width = Math.max(...replicas.map((r) => r.name.length));
  const lines = STACK.map((service) => {
    const own = replicas.filter((r) => r.service === service);
    const ports = own.map((r) => `${r.name} :${r.port}${live[replicas.indexOf(r)] ? '' : ' (not answering yet)'}`).join(', ');
    return `  ${service.name.padEnd(width)}  http://localhost:${stackPortOf(service, base)}  (nginx → ${ports})`;
  });
  process.stdout.write(
    `\nfxdesk (scaled) is up in ${((Date.now() - started) / 1000).toFixed(1)} s\n${lines.join('\n')}\n` +
      `  PostgreSQL ${postgresUrl('fxdesk_<service>')}, Redis ${redisUrl}, files in ${dir}\n`,
  );
  process.stdout.write(describeDevKeys(devKeys));
  process.stdout.write('Ctrl-C stops everything (a second Ctrl-C does not wait for work in flight).\n\n');
}

await main();
