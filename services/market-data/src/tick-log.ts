import type { FeedStateChange, FeedSymbol } from '@fxdesk/broker';
import type { Tick } from '@fxdesk/schemas';
import type { Redis } from 'ioredis';

/** The catalog the ingesting replica loaded: every replica serves it. */
export interface ReplicatedCatalog {
  symbols: FeedSymbol[];
  /** The symbols subscribed with live quotes. */
  subscribed: string[];
}

/** One entry of the stream; `id` is Redis's, the same on every replica. */
export type LogEntry =
  | { id: string; kind: 'tick'; tick: Tick }
  | { id: string; kind: 'state'; change: FeedStateChange }
  | { id: string; kind: 'catalog'; catalog: ReplicatedCatalog };

/** Where a replica starts reading: the newest state of things, and the id they are as of. */
export interface LogSnapshot {
  /** The last tick of each symbol, oldest first, with its stream id. */
  ticks: Array<{ id: string; tick: Tick }>;
  change: FeedStateChange | undefined;
  catalog: ReplicatedCatalog | undefined;
  /** The newest id of the stream then ('0-0' when empty): reading continues after it. */
  lastId: string;
}

/** The entries after an id, or why they cannot all be given. */
export type Missed = { isComplete: true; entries: LogEntry[]; lastId: string } | { isComplete: false; reason: string };

// One script appends and is the fence: only the lease's owner writes, checked in the same atomic
// step (a replica that lost the lease without noticing yet has its writes refused). A tick also
// goes into the hash of each symbol's last tick, a state or catalog into its key, so a replica
// that starts reads the current picture in one step. MAXLEN ~ trims whole radix-tree nodes
// (redis.io XADD: "~" keeps at least the asked length, and trimming is cheaper).
const APPEND = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return false end
local id = redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[2], '*', ARGV[3], ARGV[4])
if ARGV[3] == 'tick' then redis.call('HSET', KEYS[3], ARGV[5], id .. ' ' .. ARGV[4]) else redis.call('SET', KEYS[3], ARGV[4]) end
return id`;

const ID = /^(\d+)-(\d+)$/;

/** Orders two stream ids (`<ms>-<seq>`): negative, zero or positive. */
export function compareStreamIds(a: string, b: string): number {
  const [, aMs, aSeq] = ID.exec(a) as RegExpExecArray;
  const [, bMs, bSeq] = ID.exec(b) as RegExpExecArray;
  const byMs = BigInt(aMs as string) - BigInt(bMs as string);
  const order = byMs !== 0n ? byMs : BigInt(aSeq as string) - BigInt(bSeq as string);
  return order === 0n ? 0 : order < 0n ? -1 : 1;
}

export function isStreamId(value: string): boolean {
  return ID.test(value);
}

export interface TickLogOptions {
  redis: Redis;
  /** Prefix of the keys: `<prefix>:ticks` (the stream), `:last` (hash), `:state`, `:catalog`, `:leader` (the lease). */
  prefix: string;
  /** Entries the stream keeps at least (XADD MAXLEN ~). */
  retention: number;
}

/**
 * The market data of every replica, in one Redis Stream: ticks, the feed's state changes and
 * its catalog, written by the replica holding the lease and read by all of them. Stream ids are
 * the SSE event ids, so a client can resume on any replica.
 */
export class TickLog {
  readonly streamKey: string;
  readonly leaseKey: string;
  private readonly redis: Redis;
  private readonly keys: { last: string; state: string; catalog: string };
  private readonly retention: number;

  constructor(options: TickLogOptions) {
    this.redis = options.redis;
    this.retention = options.retention;
    this.streamKey = `${options.prefix}:ticks`;
    this.leaseKey = `${options.prefix}:leader`;
    this.keys = { last: `${options.prefix}:last`, state: `${options.prefix}:state`, catalog: `${options.prefix}:catalog` };
  }

  /** Appends a tick as `owner`; null when `owner` does not hold the lease (nothing written). */
  appendTick(owner: string, tick: Tick): Promise<string | null> {
    return this.append(owner, 'tick', JSON.stringify(tick), this.keys.last, tick.symbol);
  }

  appendState(owner: string, change: FeedStateChange): Promise<string | null> {
    return this.append(owner, 'state', JSON.stringify(change), this.keys.state);
  }

  appendCatalog(owner: string, catalog: ReplicatedCatalog): Promise<string | null> {
    return this.append(owner, 'catalog', JSON.stringify(catalog), this.keys.catalog);
  }

  /** The current picture and the id it is as of, read atomically (MULTI). */
  async snapshot(): Promise<LogSnapshot> {
    const results = await this.redis
      .multi()
      .hgetall(this.keys.last)
      .get(this.keys.state)
      .get(this.keys.catalog)
      .xrevrange(this.streamKey, '+', '-', 'COUNT', 1)
      .exec();
    const [last, state, catalog, newest] = (results ?? []).map(([err, value]) => {
      if (err) throw err;
      return value;
    }) as [Record<string, string>, string | null, string | null, Array<[string, string[]]>];
    const ticks = Object.values(last)
      .map((value) => {
        const space = value.indexOf(' ');
        return { id: value.slice(0, space), tick: JSON.parse(value.slice(space + 1)) as Tick };
      })
      .sort((a, b) => compareStreamIds(a.id, b.id));
    return {
      ticks,
      change: state === null ? undefined : (JSON.parse(state) as FeedStateChange),
      catalog: catalog === null ? undefined : (JSON.parse(catalog) as ReplicatedCatalog),
      lastId: newest[0]?.[0] ?? '0-0',
    };
  }

  /**
   * Every entry after `id`, when the stream still holds them all: XRANGE from `(id` (exclusive,
   * Redis 6.2+) and XINFO STREAM (`entries-added`, `recorded-first-entry-id`: Redis 7.0+), read
   * in one MULTI so no trim falls between them. Trimming removes the oldest entries only, so
   * none after `id` is gone while `id` is at or after the first entry kept (or nothing was ever
   * trimmed). Not complete otherwise, nor when `id` is not one this stream has reached
   * (another stream's, or not an id at all).
   */
  async after(id: string): Promise<Missed> {
    if (!isStreamId(id)) return { isComplete: false, reason: `Last-Event-ID ${JSON.stringify(id.slice(0, 40))} is not an id of this stream` };
    const results = await this.redis.multi().xinfo('STREAM', this.streamKey).xrange(this.streamKey, `(${id}`, '+').exec();
    const [[infoErr, info], [rangeErr, range]] = results as [[Error | null, unknown[]], [Error | null, Array<[string, string[]]>]];
    if (infoErr?.message.includes('no such key')) return { isComplete: false, reason: 'the tick stream is empty' };
    const err = infoErr ?? rangeErr;
    if (err) throw err;
    const field = (name: string) => String(info[info.indexOf(name) + 1]);
    const lastGenerated = field('last-generated-id');
    if (compareStreamIds(id, lastGenerated) > 0) return { isComplete: false, reason: `Last-Event-ID ${id} is newer than this stream's last entry` };
    const isTrimmed = Number(field('entries-added')) > Number(field('length'));
    if (isTrimmed && compareStreamIds(id, field('recorded-first-entry-id')) < 0) {
      return { isComplete: false, reason: `Last-Event-ID ${id} is older than the ticks kept (TICK_STREAM_RETENTION=${this.retention})` };
    }
    const entries = range.map(([entryId, fields]) => toEntry(entryId, fields));
    return { isComplete: true, entries, lastId: entries.at(-1)?.id ?? id };
  }

  /** Entries after `id`, waiting up to `blockMs` for one (XREAD BLOCK: call it on a connection of its own). */
  async read(redis: Redis, id: string, blockMs: number): Promise<LogEntry[]> {
    const reply = await redis.xread('COUNT', 1000, 'BLOCK', blockMs, 'STREAMS', this.streamKey, id);
    return (reply?.[0]?.[1] ?? []).map(([entryId, fields]) => toEntry(entryId, fields));
  }

  private async append(owner: string, kind: LogEntry['kind'], json: string, key: string, symbol = ''): Promise<string | null> {
    const id = await this.redis.eval(APPEND, 3, this.leaseKey, this.streamKey, key, owner, String(this.retention), kind, json, symbol);
    return typeof id === 'string' ? id : null;
  }
}

function toEntry(id: string, fields: string[]): LogEntry {
  const [kind, json] = fields as [string, string];
  if (kind === 'tick') return { id, kind, tick: JSON.parse(json) as Tick };
  if (kind === 'state') return { id, kind, change: JSON.parse(json) as FeedStateChange };
  return { id, kind: 'catalog', catalog: JSON.parse(json) as ReplicatedCatalog };
}
