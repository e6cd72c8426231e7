import type { Redis } from 'ioredis';

// Redis's documented lock pattern (redis.io, SET command, "Patterns"): take the key with
// `SET key owner NX PX ttl`, and touch it only through a script that first checks the value is
// still ours, so a replica whose lease already expired never extends or deletes the next owner's.
const RENEW = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) else return 0 end`;
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`;

export interface RedisLeaseOptions {
  redis: Redis;
  key: string;
  /** This replica's id, the value of the key while it holds the lease. */
  owner: string;
  /** The lease's life from its last renewal: an owner that stops renewing loses it after this. */
  ttlMs: number;
}

/**
 * A lease on one Redis key: at most one owner at a time, for `ttlMs` after its last renewal.
 * Each call is one round trip; the caller decides when to call (Replication renews every third
 * of the ttl).
 */
export class RedisLease {
  readonly key: string;
  readonly owner: string;
  readonly ttlMs: number;
  private readonly redis: Redis;

  constructor(options: RedisLeaseOptions) {
    this.redis = options.redis;
    this.key = options.key;
    this.owner = options.owner;
    this.ttlMs = options.ttlMs;
  }

  /** Takes the lease when nobody holds it; false when another owner does (or we already do). */
  async tryAcquire(): Promise<boolean> {
    return (await this.redis.set(this.key, this.owner, 'PX', this.ttlMs, 'NX')) === 'OK';
  }

  /** Extends our lease by ttlMs; false when it is no longer ours (expired, taken). */
  async renew(): Promise<boolean> {
    return (await this.redis.eval(RENEW, 1, this.key, this.owner, String(this.ttlMs))) === 1;
  }

  /** Gives the lease up at once when it is ours, so another replica need not wait for it to expire. */
  async release(): Promise<boolean> {
    return (await this.redis.eval(RELEASE, 1, this.key, this.owner)) === 1;
  }

  /** Who holds the lease now, if anyone. */
  holder(): Promise<string | null> {
    return this.redis.get(this.key);
  }
}
