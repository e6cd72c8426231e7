import { setTimeout as sleep } from 'node:timers/promises';
import type { CheckResult } from '@fxdesk/core';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { LeaseHolder, RedisLease } from './redis-lease.js';
import type { LogEntry, LogSnapshot, TickLog } from './tick-log.js';

/** What the replica does as its role and the stream change. */
export interface ReplicaHandlers {
  /** This replica took the lease: open the venue connection and publish (renewals go on meanwhile). */
  lead(): Promise<void>;
  /** This replica lost the lease (or is stopping): let go of the venue connection. */
  follow(): Promise<void>;
  /** Where reading starts, once at start. */
  snapshot(snapshot: LogSnapshot): void;
  /** Each entry of the stream, in order. */
  entry(entry: LogEntry): void;
  /** Redis stopped answering the reader (`reason`), or answers again (undefined). */
  redisState(reason: string | undefined, current: LogSnapshot | undefined): void;
}

export interface ReplicationOptions {
  log: TickLog;
  lease: RedisLease;
  /** A connection of its own for the blocking XREAD (a blocked connection serves nothing else). */
  reader: Redis;
  logger: Logger;
}

const READ_BLOCK_MS = 1000;
const RETRY_MS = 500;

/**
 * One replica of several on one Redis: a lease loop (try to take the lease, or renew it, every
 * third of its ttl) that makes this replica the ingester or not, and a reader loop that hands
 * every stream entry to the service in order. Both run on real timers: the lease expires on
 * Redis's clock, not on an injected one.
 */
export class Replication {
  readonly log: TickLog;
  private readonly options: ReplicationOptions;
  private isLeading = false;
  private isStopped = false;
  private holder: LeaseHolder | null = null;
  /** When the last renewal that succeeded was sent: the lease is sure to be ours until then + ttl. */
  private renewedAt = 0;
  private redisError: string | undefined;
  /** The id of the last entry read; undefined until the snapshot was. */
  private lastId: string | undefined;
  private loops: Promise<void>[] = [];

  constructor(options: ReplicationOptions) {
    this.options = options;
    this.log = options.log;
  }

  get owner(): string {
    return this.options.lease.owner;
  }

  get isLeader(): boolean {
    return this.isLeading;
  }

  /** Runs both loops until stop(); the reader starts from a snapshot. */
  start(handlers: ReplicaHandlers): void {
    this.loops = [this.leaseLoop(handlers), this.readLoop(handlers)];
  }

  /** Stops both loops, lets go of the venue and gives the lease up at once (a kill skips this: the lease then expires). */
  async stop(handlers: Pick<ReplicaHandlers, 'follow'>): Promise<void> {
    this.isStopped = true;
    this.options.reader.disconnect();
    await Promise.all(this.loops);
    if (!this.isLeading) return;
    this.isLeading = false;
    await handlers.follow();
    await this.options.lease
      .release()
      .catch((err: unknown) => this.options.logger.warn({ err }, 'could not release the market-data lease; it expires by itself'));
  }

  /** Which replica holds the venue connection now, and its REPLICA_URL, read from Redis. */
  leader(): Promise<LeaseHolder | null> {
    return this.options.lease.holder();
  }

  /** The `replica` readiness check: Redis answers, which replica holds the venue connection, and where candle requests go. */
  check(): CheckResult {
    if (this.redisError) return { ok: false, detail: `Redis unreachable (${this.redisError}): no ticks are read or published` };
    if (this.isLeading) {
      const { address } = this.options.lease;
      const candles = address
        ? `the other replicas forward candle requests to ${address}`
        : 'no REPLICA_URL set, so the other replicas cannot forward candle requests here (they answer them 503)';
      return { ok: true, detail: `leader: replica ${this.owner} holds the venue connection and publishes to ${this.log.streamKey}; ${candles}` };
    }
    const ticks = `ticks read from ${this.log.streamKey}`;
    const holder = this.holder;
    if (holder === null) return { ok: true, detail: `follower: no replica holds the lease at the moment; ${ticks}` };
    const candles = holder.address
      ? `candle requests forwarded to it at ${holder.address}`
      : 'candle requests answer 503: it publishes no REPLICA_URL to forward them to';
    return { ok: true, detail: `follower: replica ${holder.owner} holds the venue connection; ${ticks}; ${candles}` };
  }

  private async leaseLoop(handlers: ReplicaHandlers): Promise<void> {
    const { lease, logger } = this.options;
    const intervalMs = Math.max(100, Math.floor(lease.ttlMs / 3));
    while (!this.isStopped) {
      const sentAt = Date.now();
      try {
        if (this.isLeading) {
          if (await lease.renew()) this.renewedAt = sentAt;
          else await this.lose(handlers, 'the lease was no longer ours');
        } else if (await lease.tryAcquire()) {
          this.renewedAt = sentAt;
          this.isLeading = true;
          this.holder = { owner: this.owner, address: lease.address };
          logger.info({ replica: this.owner }, 'took the market-data lease: this replica connects the venue and publishes ticks');
          // Not awaited: a venue slow to connect must not hold up the renewals.
          handlers.lead().catch((err: unknown) => logger.error({ err }, 'could not start the venue session'));
        } else {
          this.holder = await lease.holder();
        }
      } catch (err) {
        // Unsure whether the renewal landed: the lease is ours only until the last sure one expires.
        if (this.isLeading && Date.now() - this.renewedAt >= lease.ttlMs) await this.lose(handlers, `Redis did not answer: ${(err as Error).message}`);
      }
      await sleep(intervalMs);
    }
  }

  private async lose(handlers: ReplicaHandlers, why: string): Promise<void> {
    this.isLeading = false;
    this.holder = null;
    this.options.logger.warn({ replica: this.owner, why }, 'lost the market-data lease: letting go of the venue connection');
    await handlers.follow();
  }

  private async readLoop(handlers: ReplicaHandlers): Promise<void> {
    const { reader, logger } = this.options;
    while (!this.isStopped) {
      try {
        if (this.lastId === undefined) {
          const snapshot = await this.log.snapshot();
          this.lastId = snapshot.lastId;
          handlers.snapshot(snapshot);
        }
        const entries = await this.log.read(reader, this.lastId, READ_BLOCK_MS);
        if (this.redisError) {
          this.redisError = undefined;
          logger.info('Redis answers again: reading ticks from where the stream was left');
          handlers.redisState(undefined, await this.log.snapshot());
        }
        for (const entry of entries) {
          this.lastId = entry.id;
          handlers.entry(entry);
        }
      } catch (err) {
        if (this.isStopped) return;
        const message = (err as Error).message;
        if (!this.redisError) {
          logger.warn({ err }, 'Redis unreachable: the tick stream cannot be read; retrying');
          handlers.redisState(message, undefined);
        }
        this.redisError = message;
        await sleep(RETRY_MS);
      }
    }
  }
}
