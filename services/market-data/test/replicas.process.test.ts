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
      REPLICA_URL: `http://127.0.0.1:${port}`,
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
  const byRole = async () => {
    const roles = await Promise.all(replicas.map(role));
    return {
      leader: replicas[roles.findIndex((r) => r.startsWith('leader:'))] as Replica,
      follower: replicas[roles.findIndex((r) => r.startsWith('follower:'))] as Replica,
    };
  };
  const get = async (r: Replica, path: string, requestId = 'replicas-test') => {
    const res = await fetch(`${base(r)}${path}`, { headers: { 'x-api-key': KEY, 'x-request-id': requestId } });
    return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as Record<string, unknown> };
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

  it('answers /v1/symbols and /v1/market-data/tick on the follower from the catalog and ticks the leader published', async () => {
    const { leader, follower } = await byRole();
    const symbols = await get(follower, '/v1/symbols');
    expect(symbols).toMatchObject({ status: 200, body: { symbols: [{ symbol: 'EURUSD' }, { symbol: 'USDJPY' }] } });
    expect(symbols.body).toEqual((await get(leader, '/v1/symbols')).body);
    const tick = await get(follower, '/v1/market-data/tick?symbol=USDJPY');
    expect(tick).toMatchObject({ status: 200, body: { symbol: 'USDJPY', provider: 'simulated' } });
    // The follower's quote is one the leader published to the stream.
    const published = (await redis.hget(`${REDIS_KEY_PREFIX}:last`, 'USDJPY')) as string;
    const [latestId] = published.split(' ');
    const entries = await redis.xrange(STREAM, '-', latestId as string);
    expect(entries.some(([, fields]) => fields[0] === 'tick' && JSON.stringify(tick.body) === fields[1])).toBe(true);
  });

  it('says in readiness where the follower forwards candle requests', async () => {
    const { leader, follower } = await byRole();
    expect(await role(follower)).toMatch(new RegExp(`; candle requests forwarded to it at http://127\\.0\\.0\\.1:${leader.port}$`));
    expect(await role(leader)).toMatch(new RegExp(`; the other replicas forward candle requests to http://127\\.0\\.0\\.1:${leader.port}$`));
  });

  it('answers candles on the follower with what the leader answers: the newest by count, and history by date page by page', async () => {
    const { leader, follower } = await byRole();
    // The newest closed D1 candles change only at midnight UTC: the follower's answer is the leader's just before or after.
    const newest = '/v1/market-data/candles?symbol=EURUSD&timeframe=D1&count=3';
    const before = await get(leader, newest);
    const relayed = await get(follower, newest);
    const after = await get(leader, newest);
    expect(relayed.status).toBe(200);
    expect([before.body, after.body]).toContainEqual(relayed.body);

    // A day of M5 candles, 288, in pages of 100.
    const pages: number[] = [];
    for (let from: string | null = '2026-01-05T00:00:00.000Z'; from !== null;) {
      const path = `/v1/market-data/candles?symbol=EURUSD&timeframe=M5&from=${from}&to=2026-01-06T00:00:00Z&count=100`;
      const onFollower = await get(follower, path);
      expect(onFollower.status).toBe(200);
      expect(onFollower.body).toEqual((await get(leader, path)).body);
      pages.push((onFollower.body.candles as unknown[]).length);
      from = onFollower.body.next_from as string | null;
    }
    expect(pages).toEqual([100, 100, 88]);
  });

  it("relays the leader's errors unchanged, envelope and request id included", async () => {
    const { leader, follower } = await byRole();
    for (const [path, status, code] of [
      ['/v1/market-data/candles?symbol=NOPE&timeframe=H1&count=2', 404, 'symbol_not_found'],
      ['/v1/market-data/candles?symbol=EURUSD&to=2026-01-06T00:00:00Z', 422, 'invalid_range'],
      ['/v1/market-data/candles?symbol=EURUSD&from=2026-01-06T00:00:00Z&to=2026-01-05T00:00:00Z', 422, 'invalid_range'],
      ['/v1/market-data/candles?symbol=EURUSD&count=0', 422, 'validation_error'],
    ] as const) {
      const onFollower = await get(follower, path, `relay-${code}`);
      const onLeader = await get(leader, path, `relay-${code}`);
      expect(onFollower).toMatchObject({ status, body: { error: true, code, requestId: `relay-${code}` } });
      const { timestamp: _t1, ...followerBody } = onFollower.body;
      const { timestamp: _t2, ...leaderBody } = onLeader.body;
      expect(followerBody).toEqual(leaderBody);
    }
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
    // Until the lease runs out, the dead leader is still the one named: candles there are 503 with a Retry-After.
    const candles = '/v1/market-data/candles?symbol=EURUSD&timeframe=H1&count=2';
    expect(await get(follower, candles)).toMatchObject({
      status: 503,
      retryAfter: '4',
      body: { code: 'broker_unavailable', message: expect.stringMatching(/did not answer: ECONNREFUSED$/) },
    });

    await client.waitFor(() => tickIds(client).some((id) => compareStreamIds(id, lastBeforeKill) > 0));
    const resumedAfterMs = Date.now() - killedAt;
    expect(resumedAfterMs).toBeLessThan(10_000);
    expect(await role(follower)).toMatch(/^leader:/);
    expect((await get(follower, candles)).status).toBe(200);
    // One writer at a time: the ids a client sees only grow.
    const ids = tickIds(client);
    for (let i = 1; i < ids.length; i++) expect(compareStreamIds(ids[i] as string, ids[i - 1] as string)).toBe(1);
  });
});
