import fs from 'node:fs';
import net from 'node:net';
import { Redis } from 'ioredis';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { postgresUnavailable, startPostgres, startRedis } from '../testing/engines.js';
import { runNode } from '../testing/processes.js';

function accepts(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

const unavailable = postgresUnavailable();

describe.skipIf(unavailable !== undefined)(`a PostgreSQL server of the test's own${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
  it('answers queries on its URL, in a fresh database each time, and is gone once stopped', async () => {
    const server = await startPostgres();
    const databases = [await server.createDatabase(), await server.createDatabase()];
    expect(new Set(databases).size).toBe(2);
    const client = new pg.Client({ connectionString: databases[0] });
    await client.connect();
    const { rows } = await client.query<{ answer: number; name: string }>('SELECT 6 * 7 AS answer, current_database() AS name');
    await client.end();
    expect(rows).toEqual([{ answer: 42, name: new URL(databases[0]!).pathname.slice(1) }]);
    await server.stop();
    expect(await accepts(server.url)).toBe(false);
  }, 60_000);

  it('stops the server and removes its directory when the test process exits without stopping it', async () => {
    const script = [
      `import pg from 'pg';`,
      `import { startPostgres } from ${JSON.stringify(new URL('../testing/engines.ts', import.meta.url).pathname)};`,
      `const server = await startPostgres();`,
      `const client = new pg.Client({ connectionString: server.url });`,
      `await client.connect();`,
      `const { rows } = await client.query("SELECT setting FROM pg_settings WHERE name = 'data_directory'");`,
      `await client.end();`,
      `console.log(JSON.stringify({ url: server.url, data: rows[0].setting }));`,
      `process.exit(3);`,
    ].join('\n');
    const { done } = runNode(['--import', 'tsx', '--input-type=module', '-e', script], {});
    const { code, stdout, stderr } = await done;
    expect(code, stderr).toBe(3);
    const left = JSON.parse(stdout) as { url: string; data: string };
    expect(await accepts(left.url)).toBe(false);
    expect(fs.existsSync(left.data)).toBe(false);
  }, 60_000);

  it('does not run the server as root', async () => {
    const server = await startPostgres();
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    const { rows } = await client.query<{ directory: string }>('SELECT setting AS directory FROM pg_settings WHERE name = $1', ['data_directory']);
    await client.end();
    const owner = fs.statSync(rows[0]!.directory).uid;
    if (process.getuid?.() === 0) expect(owner).not.toBe(0);
    await server.stop();
    expect(fs.existsSync(rows[0]!.directory)).toBe(false);
  }, 60_000);
});

describe("a Redis server of the test's own", () => {
  it('answers on its URL and is gone once stopped', async () => {
    const server = await startRedis();
    const redis = new Redis(server.url, { lazyConnect: true });
    await redis.connect();
    expect(await redis.ping()).toBe('PONG');
    redis.disconnect();
    await server.stop();
    expect(await accepts(server.url)).toBe(false);
  }, 60_000);
});
