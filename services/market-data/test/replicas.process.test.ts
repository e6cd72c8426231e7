import type { ChildProcess } from 'node:child_process';
import { answers, freePort, run, startRedis, until, type RunningEngine } from '@fxdesk/core/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDIS_KEY_PREFIX } from '../src/deps.js';
import { compareStreamIds } from '../src/tick-log.js';
import { TestEventSource } from './sse-client.js';

const KEY = 'replicas-process-key';
const STREAM = `${REDIS_KEY_PREFIX}:ticks`;

interface Replica {
  port: number;
  child: ChildProcess;
}

// Real processes on a shared machine: each test waits on real ticks, so each gets 30 s.
describe('two market-data replicas on one Redis', { timeout: 30_000 }, () => {
  let server: RunningEngine;
  let redis: Redis;
  const replicas: Replica[] = [];
  const sources: TestEventSource[] = [];

  async function start(): Promise<Replica> {
    const port = await freePort();
    const { child } = run('services/market-data/src/server.ts', {
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      API_KEY: KEY,
      REDIS_URL: server.url,
      RATE_LIMIT_PER_MINUTE: '0',
      SIM_TICK_INTERVAL_MS: '50',
      SIM_MARKET_HOURS: 'false',
      SYMBOLS: 'EURUSD,USDJPY',
    });
    return { port, child };
  }

  const base = (r: Replica) => `http://127.0.0.1:${r.port}`;
  const stream = (r: Replica, headers: Record<string, string> = {}) => {
    const source = new TestEventSource(`${base(r)}/v1/stream/ticks`, KEY, headers);
    sources.push(source);
    return source;
  };
  const tickIds = (source: TestEventSource) => source.ofType('tick').map((e) => e.id);
  const role = async (r: Replica) => {
    const body = (await (await fetch(`${base(r)}/health/ready`)).json()) as { checks: Record<string, { detail: string }> };
    return body.checks.replica?.detail ?? '';
  };
  /** The ids of the tick entries of the stream in (after, upTo]. */
  const ticksInRedis = async (after: string, upTo: string) =>
    (await redis.xrange(STREAM, `(${after}`, upTo)).filter(([, fields]) => fields[0] === 'tick').map(([id]) => id);

  beforeAll(async () => {
    server = await startRedis();
    redis = new Redis(server.url);
    replicas.push(await start(), await start());
    for (const r of replicas) await until(() => answers(`${base(r)}/health/live`), 30_000);
    await until(async () => (await redis.xlen(STREAM)) > 10, 30_000);
  }, 300_000);

  afterAll(async () => {
    for (const source of sources) source.close();
    for (const r of replicas) r.child.kill('SIGKILL');
    redis?.disconnect();
    await server?.stop();
  });

  it('elects one leader; the other replica follows', async () => {
    const roles = await Promise.all(replicas.map(role));
    expect(roles.filter((r) => r.startsWith('leader:'))).toHaveLength(1);
    expect(roles.filter((r) => r.startsWith('follower:'))).toHaveLength(1);
  });

  it('a client that moves to the other replica with Last-Event-ID gets exactly the ticks it missed, then the live ones', async () => {
    const [a, b] = replicas as [Replica, Replica];
    const first = stream(a);
    await first.waitFor(() => first.ofType('tick').length >= 20);
    first.close();
    const lastSeen = tickIds(first).at(-1) as string;
    // The client is away while ticks go on.
    await until(async () => (await ticksInRedis(lastSeen, '+')).length >= 30, 10_000);

    const second = stream(b, { 'last-event-id': lastSeen });
    await second.waitFor(() => second.ofType('tick').length >= 60);
    const received = tickIds(second);
    expect(received).toEqual(await ticksInRedis(lastSeen, received.at(-1) as string));
    // The status after the missed ticks carries no id: the client's resume point stays a tick's.
    expect(second.raw).not.toMatch(/event: status\nid:/);
  });

  it('a Last-Event-ID the stream cannot resume from gets the last tick of each symbol and a status saying ticks were missed', async () => {
    const source = stream(replicas[1] as Replica, { 'last-event-id': 'not-an-id' });
    await source.waitFor(() => source.ofType('status').length > 0);
    const replayed = source.events.slice(
      0,
      source.events.findIndex((e) => e.type === 'status'),
    );
    expect(replayed.map((e) => (e.data as { symbol: string }).symbol).sort()).toEqual(['EURUSD', 'USDJPY']);
    expect(source.ofType('status')[0]?.data).toMatchObject({
      reason: expect.stringMatching(/^ticks were missed: Last-Event-ID "not-an-id" is not an id of this stream/),
    });
  });

  it('takes the venue over on the other replica when the leader is killed: ticks resume within 10 s', async () => {
    const roles = await Promise.all(replicas.map(role));
    const leader = replicas[roles.findIndex((r) => r.startsWith('leader:'))] as Replica;
    const follower = replicas[roles.findIndex((r) => r.startsWith('follower:'))] as Replica;
    const client = stream(follower);
    await client.waitFor(() => client.ofType('tick').length > 0);

    leader.child.kill('SIGKILL');
    const killedAt = Date.now();
    await new Promise((resolve) => leader.child.once('exit', resolve));
    const [[lastBeforeKill] = ['0-0']] = await redis.xrevrange(STREAM, '+', '-', 'COUNT', 1);

    await client.waitFor(() => tickIds(client).some((id) => compareStreamIds(id, lastBeforeKill) > 0));
    const resumedAfterMs = Date.now() - killedAt;
    expect(resumedAfterMs).toBeLessThan(10_000);
    expect(await role(follower)).toMatch(/^leader:/);
    // One writer at a time: the ids a client sees only grow.
    const ids = tickIds(client);
    for (let i = 1; i < ids.length; i++) expect(compareStreamIds(ids[i] as string, ids[i - 1] as string)).toBe(1);
  });
});
