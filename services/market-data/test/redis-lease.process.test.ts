import { startRedis, until, type RunningEngine } from '@fxdesk/core/testing';
import type { Tick } from '@fxdesk/schemas';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RedisLease } from '../src/redis-lease.js';
import { compareStreamIds, TickLog } from '../src/tick-log.js';

let server: RunningEngine;
let redis: Redis;

beforeAll(async () => {
  server = await startRedis();
  redis = new Redis(server.url);
}, 300_000);

afterAll(async () => {
  redis?.disconnect();
  await server?.stop();
});

beforeEach(async () => {
  await redis.flushall();
});

const lease = (owner: string, ttlMs = 10_000, address?: string) => new RedisLease({ redis, key: 'test:leader', owner, ttlMs, address });

describe('RedisLease', () => {
  it('has one owner: the first to take it, until it expires', async () => {
    const a = lease('a');
    const b = lease('b');
    expect(await a.tryAcquire()).toBe(true);
    expect(await b.tryAcquire()).toBe(false);
    expect(await a.tryAcquire()).toBe(false);
    expect(await b.holder()).toEqual({ owner: 'a', address: undefined });
  });

  it('renews its own lease for another full ttl', async () => {
    const a = lease('a', 10_000);
    await a.tryAcquire();
    await redis.pexpire('test:leader', 50);
    expect(await a.renew()).toBe(true);
    expect(await redis.pttl('test:leader')).toBeGreaterThan(5_000);
  });

  it('cannot renew or release a lease another replica took after it expired', async () => {
    const a = lease('a');
    const b = lease('b');
    await a.tryAcquire();
    await redis.del('test:leader'); // as if it expired
    expect(await b.tryAcquire()).toBe(true);
    expect(await a.renew()).toBe(false);
    expect(await a.release()).toBe(false);
    expect(await b.holder()).toEqual({ owner: 'b', address: undefined });
  });

  it('is taken over once its owner stops renewing and the ttl runs out', async () => {
    const a = lease('a', 1000);
    const b = lease('b', 1000);
    await a.tryAcquire();
    expect(await b.tryAcquire()).toBe(false);
    await until(() => b.tryAcquire(), 5_000);
    expect(await a.holder()).toEqual({ owner: 'b', address: undefined });
    expect(await a.renew()).toBe(false);
  });

  it('is free at once for another replica when released', async () => {
    const a = lease('a');
    const b = lease('b');
    await a.tryAcquire();
    expect(await a.release()).toBe(true);
    expect(await b.tryAcquire()).toBe(true);
  });

  it("publishes its owner's address beside it, for the lease's life: taken, renewed and released with it", async () => {
    const a = lease('a', 10_000, 'http://127.0.0.1:18010');
    await a.tryAcquire();
    expect(await lease('b').holder()).toEqual({ owner: 'a', address: 'http://127.0.0.1:18010' });
    await redis.pexpire(a.addressKey, 50);
    expect(await a.renew()).toBe(true);
    expect(await redis.pttl(a.addressKey)).toBeGreaterThan(5_000);
    expect(await a.release()).toBe(true);
    expect(await redis.exists(a.key, a.addressKey)).toBe(0);
  });

  it("never names another owner's address: a new owner without one removes its predecessor's", async () => {
    const a = lease('a', 10_000, 'http://a:8010');
    const b = lease('b', 10_000);
    await a.tryAcquire();
    await redis.del('test:leader'); // as if it expired, its address not yet
    expect(await b.holder()).toBeNull();
    expect(await b.tryAcquire()).toBe(true);
    expect(await a.holder()).toEqual({ owner: 'b', address: undefined });
    expect(await redis.exists(a.addressKey)).toBe(0);
    // Nor does a late renewal of the old owner write it again.
    expect(await a.renew()).toBe(false);
    expect(await redis.exists(a.addressKey)).toBe(0);
  });

  it('reads an address another owner left as no address at all', async () => {
    await lease('b').tryAcquire();
    await redis.set('test:leader:address', 'a http://a:8010');
    expect(await lease('c').holder()).toEqual({ owner: 'b', address: undefined });
  });
});

const tick = (symbol: string, bid: number): Tick => ({ symbol, bid, ask: bid + 0.0001, spread: 0.0001, ts: '2026-01-05T12:00:00.000Z', provider: 'simulated' });

describe('TickLog', () => {
  const log = (retention = 1000) => new TickLog({ redis, prefix: 'test', retention });

  it('appends only for the lease owner', async () => {
    const a = lease('a');
    await a.tryAcquire();
    expect(a.key).toBe(log().leaseKey);
    expect(await log().appendTick('a', tick('EURUSD', 1.1))).toMatch(/^\d+-\d+$/);
    expect(await log().appendTick('b', tick('EURUSD', 1.2))).toBeNull();
    expect(await redis.xlen('test:ticks')).toBe(1);
  });

  it('gives every entry after an id, and the snapshot of the last tick of each symbol', async () => {
    await lease('a').tryAcquire();
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) ids.push((await log().appendTick('a', tick(i % 2 ? 'EURUSD' : 'USDJPY', 1 + i))) as string);
    const missed = await log().after(ids[3] as string);
    expect(missed).toEqual({
      isComplete: true,
      lastId: ids[9],
      entries: ids.slice(4).map((id, j) => ({ id, kind: 'tick', tick: tick(j % 2 ? 'EURUSD' : 'USDJPY', 5 + j) })),
    });
    expect(await log().after(ids[9] as string)).toEqual({ isComplete: true, entries: [], lastId: ids[9] });
    const snapshot = await log().snapshot();
    expect(snapshot.lastId).toBe(ids[9]);
    expect(snapshot.ticks.map((t) => [t.id, t.tick.symbol])).toEqual([
      [ids[8], 'USDJPY'],
      [ids[9], 'EURUSD'],
    ]);
  });

  it('says ticks are missing when the id is older than the retention, newer than the stream, or not an id, and not when it is kept', async () => {
    await lease('a').tryAcquire();
    const small = log(1000);
    const first = (await small.appendTick('a', tick('EURUSD', 1))) as string;
    const ids: string[] = [];
    for (let i = 0; i < 3000; i++) ids.push((await small.appendTick('a', tick('EURUSD', 1 + i / 1e5))) as string);
    expect(await redis.xlen('test:ticks')).toBeLessThan(3001);
    expect((await small.after(first)).isComplete).toBe(false);
    expect(await small.after(ids[2989] as string)).toMatchObject({ isComplete: true, entries: { length: 10 } });
    const newest = (await small.snapshot()).lastId;
    const [ms] = newest.split('-');
    expect(await small.after(`${Number(ms) + 1000}-0`)).toMatchObject({ isComplete: false });
    expect(await small.after('17')).toMatchObject({ isComplete: false });
    expect(compareStreamIds(first, newest)).toBe(-1);
  });
});
