import type { Redis } from 'ioredis';

// Redis's documented lock pattern (redis.io, SET command, "Patterns"): take the key with
// `SET key owner NX PX ttl`, and touch it only through a script that first checks the value is
// still ours, so a replica whose lease already expired never extends or deletes the next owner's.
// The owner's address lives beside the lease (KEYS[2], `<owner> <address>`), written by the same
// scripts with the same ttl, so it is published exactly while the lease is held.
const ACQUIRE = `
if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 0 end
if ARGV[3] == '' then redis.call('DEL', KEYS[2]) else redis.call('SET', KEYS[2], ARGV[1] .. ' ' .. ARGV[3], 'PX', ARGV[2]) end
return 1`;
const RENEW = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
if ARGV[3] ~= '' then redis.call('SET', KEYS[2], ARGV[1] .. ' ' .. ARGV[3], 'PX', ARGV[2]) end
return 1`;
const RELEASE = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1], KEYS[2])
return 1`;

export interface RedisLeaseOptions {
  redis: Redis;
  key: string;
  /** This replica's id, the value of the key while it holds the lease. */
  owner: string;
  /** The lease's life from its last renewal: an owner that stops renewing loses it after this. */
  ttlMs: number;
  /** Where other replicas reach this one (REPLICA_URL), published beside the lease while it is ours. */
  address?: string;
}

/** Who holds a lease, and the address it published with it (none when it set none). */
export interface LeaseHolder {
  owner: string;
  address: string | undefined;
}

/**
 * A lease on one Redis key: at most one owner at a time, for `ttlMs` after its last renewal.
 * Each call is one round trip; the caller decides when to call (Replication renews every third
 * of the ttl).
 */
export class RedisLease {
  readonly key: string;
  /** `<key>:address`: the owner's address, for as long as its lease. */
  readonly addressKey: string;
  readonly owner: string;
  readonly ttlMs: number;
  readonly address: string | undefined;
  private readonly redis: Redis;

  constructor(options: RedisLeaseOptions) {
    this.redis = options.redis;
    this.key = options.key;
    this.addressKey = `${options.key}:address`;
    this.owner = options.owner;
    this.ttlMs = options.ttlMs;
    this.address = options.address;
  }

  /** Takes the lease when nobody holds it; false when another owner does (or we already do). */
  async tryAcquire(): Promise<boolean> {
    return (await this.run(ACQUIRE)) === 1;
  }

  /** Extends our lease by ttlMs; false when it is no longer ours (expired, taken). */
  async renew(): Promise<boolean> {
    return (await this.run(RENEW)) === 1;
  }

  /** Gives the lease up at once when it is ours, so another replica need not wait for it to expire. */
  async release(): Promise<boolean> {
    return (await this.run(RELEASE)) === 1;
  }

  /** Who holds the lease now, if anyone, and its address (read in one step, so it is the holder's). */
  async holder(): Promise<LeaseHolder | null> {
    const [owner, published] = await this.redis.mget(this.key, this.addressKey);
    if (owner === null || owner === undefined) return null;
    const prefix = `${owner} `;
    return { owner, address: published?.startsWith(prefix) ? published.slice(prefix.length) : undefined };
  }

  private run(script: string): Promise<unknown> {
    return this.redis.eval(script, 2, this.key, this.addressKey, this.owner, String(this.ttlMs), this.address ?? '');
  }
}
