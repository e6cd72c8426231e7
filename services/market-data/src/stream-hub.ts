import type { ServerResponse } from 'node:http';
import { commentFrame, eventFrame, retryFrame } from '@fxdesk/core';
import type { Clock, TimerHandle } from '@fxdesk/primitives';
import type { Tick } from '@fxdesk/schemas';
import type { Logger } from 'pino';
import { StreamClient } from './stream-client.js';
import type { StreamStatus } from './status.js';
import { compareStreamIds } from './tick-log.js';

export interface StreamHubOptions {
  clock: Clock;
  logger: Logger;
  heartbeatMs: number;
  retryMs: number;
  stuckMs: number;
  queueMax: number;
  /** The connection state every status event reports. */
  currentStatus: () => StreamStatus;
  /**
   * Tick ids are the Redis stream's (replicas): status events then carry no id, so a client's
   * last event id is always a tick's, a point it can resume from on any replica.
   */
  idsFromStream?: boolean;
}

/** How a client that came back with a Last-Event-ID joins: the ticks it missed, or why they are gone. */
export type Resume = { ticks: Array<{ id: string; tick: Tick }>; lastId: string } | { missedReason: string };

interface Joining {
  /** Live ticks held while the missed ones are read. */
  held: Array<{ id: string; symbol: string; frame: string }>;
  /**
   * Set once the missed ticks were sent: the last id among them. Until this hub has published
   * up to it (its reader may lag the read), later ticks go to the client one by one, and none
   * at or before it.
   */
  after?: string;
}

/** Counters of the hub, for /metrics and the benchmark. */
export interface StreamHubStats {
  clients: number;
  ticksPublished: number;
  dropped: number;
  stuckDisconnects: number;
}

/**
 * Fans ticks and status events out to every open SSE stream. Each tick is framed once, with a
 * hub-wide id, and the same frame goes to every client that wants its symbol; the last frame of
 * each symbol is kept for the replay on connect. Slow clients are each handled by their own
 * StreamClient, so one of them never holds up the others.
 */
export class StreamHub {
  private readonly options: StreamHubOptions;
  private readonly clients = new Set<StreamClient>();
  private readonly bySymbol = new Map<string, Set<StreamClient>>();
  private readonly everySymbol = new Set<StreamClient>();
  /** The last frame of each symbol, and its place in the order ticks arrived. */
  private readonly lastFrames = new Map<string, { order: number; frame: string }>();
  /** Clients waiting for their missed ticks, and the live ticks held for them meanwhile. */
  private readonly joining = new Map<StreamClient, Joining>();
  /** The id of the last stream entry handed to the hub. */
  private position = '0-0';
  private readonly heartbeat: TimerHandle;
  private nextId = 1;
  private order = 0;
  private ticksPublished = 0;
  private droppedByClosed = 0;
  private stuckDisconnects = 0;

  constructor(options: StreamHubOptions) {
    this.options = options;
    this.heartbeat = options.clock.setInterval(() => this.sendHeartbeat(), options.heartbeatMs).unref();
  }

  get size(): number {
    return this.clients.size;
  }

  stats(): StreamHubStats {
    let dropped = this.droppedByClosed;
    for (const client of this.clients) dropped += client.dropped;
    return { clients: this.clients.size, ticksPublished: this.ticksPublished, dropped, stuckDisconnects: this.stuckDisconnects };
  }

  /** Every open client (tests and metrics read their queues). */
  openClients(): readonly StreamClient[] {
    return [...this.clients];
  }

  /** Sends a tick to every client that wants it, with `id` (the stream's) or the hub's next one. */
  publishTick(tick: Tick, id?: string): void {
    const frame = eventFrame('tick', id ?? this.nextId++, JSON.stringify(tick));
    this.lastFrames.set(tick.symbol, { order: this.order++, frame });
    this.ticksPublished++;
    for (const client of this.everySymbol) client.sendTick(tick.symbol, frame);
    const subscribers = this.bySymbol.get(tick.symbol);
    if (subscribers) for (const client of subscribers) client.sendTick(tick.symbol, frame);
    // After the live ones: a client made live here must not get this tick twice.
    if (id !== undefined) this.feedJoining(tick.symbol, id, frame);
  }

  /** Tells every client the connection state changed (a joining one hears it when it joins). */
  publishStatus(): void {
    for (const client of this.clients) {
      const joining = this.joining.get(client);
      if (!joining || joining.after !== undefined) client.sendStatus();
    }
  }

  /**
   * Starts streaming on a response whose headers are written: the retry hint, the last tick of
   * each requested symbol once (in the order they arrived, so ids only ever grow), the current
   * status, then live events.
   */
  open(res: ServerResponse, symbols: ReadonlySet<string> | null): StreamClient {
    const client = this.admit(res, symbols);
    this.replayLastTicks(client);
    this.subscribe(client);
    client.sendStatus();
    return client;
  }

  /**
   * Starts a stream whose client resumes from a Last-Event-ID: the retry hint now; live ticks
   * are held for it until join() has sent the ones it missed.
   */
  openResuming(res: ServerResponse, symbols: ReadonlySet<string> | null): StreamClient {
    const client = this.admit(res, symbols);
    this.joining.set(client, { held: [] });
    return client;
  }

  /**
   * Sends a resuming client the ticks it missed in one write (so none is coalesced away), then
   * the live ticks held meanwhile that came after them, then the status, and makes it live.
   * When they are gone, it gets the replay of the last ticks and a status saying so.
   */
  join(client: StreamClient, resume: Resume): void {
    const joining = this.joining.get(client);
    if (!joining) return;
    if ('missedReason' in resume) {
      this.joining.delete(client);
      this.replayLastTicks(client);
      client.sendRaw(this.statusFrame(0, `ticks were missed: ${resume.missedReason}; the last tick of each symbol was replayed`));
      this.subscribe(client);
      return;
    }
    const wanted = resume.ticks.filter(({ tick }) => client.wants(tick.symbol));
    client.sendBacklog(wanted.map(({ id, tick }) => eventFrame('tick', id, JSON.stringify(tick))).join(''), wanted.length);
    for (const h of joining.held) if (client.wants(h.symbol) && compareStreamIds(h.id, resume.lastId) > 0) client.sendTick(h.symbol, h.frame);
    joining.held = [];
    joining.after = resume.lastId;
    client.sendStatus();
    this.promoteJoined();
  }

  /** Notes a stream entry that is not a tick (a state or catalog change): the hub has read up to it. */
  notePosition(id: string): void {
    this.position = id;
    this.promoteJoined();
  }

  private feedJoining(symbol: string, id: string, frame: string): void {
    this.position = id;
    if (this.joining.size === 0) return;
    for (const [client, joining] of this.joining) {
      if (joining.after === undefined) joining.held.push({ id, symbol, frame });
      else if (client.wants(symbol) && compareStreamIds(id, joining.after) > 0) client.sendTick(symbol, frame);
    }
    this.promoteJoined();
  }

  /** Makes live the joined clients whose missed ticks this hub has itself published by now. */
  private promoteJoined(): void {
    for (const [client, joining] of this.joining) {
      if (joining.after === undefined || compareStreamIds(this.position, joining.after) < 0) continue;
      this.joining.delete(client);
      this.subscribe(client);
    }
  }

  private admit(res: ServerResponse, symbols: ReadonlySet<string> | null): StreamClient {
    const client = new StreamClient({
      res,
      symbols,
      clock: this.options.clock,
      stuckMs: this.options.stuckMs,
      queueMax: this.options.queueMax,
      statusFrame: (dropped) => this.statusFrame(dropped),
      onStuck: (stuck) => this.disconnectStuck(stuck),
    });
    this.clients.add(client);
    res.once('close', () => this.remove(client));
    // A failed socket write surfaces here; the client is gone either way.
    res.on('error', () => this.remove(client));
    client.sendRaw(retryFrame(this.options.retryMs));
    return client;
  }

  private subscribe(client: StreamClient): void {
    if (client.closed) return;
    if (client.symbols === null) this.everySymbol.add(client);
    else for (const symbol of client.symbols) this.subscribersOf(symbol).add(client);
  }

  /** The last tick of each symbol the client wants, once, in the order they arrived. */
  private replayLastTicks(client: StreamClient): void {
    const replay = [...this.lastFrames].filter(([symbol]) => client.wants(symbol)).sort(([, a], [, b]) => a.order - b.order);
    for (const [symbol, { frame }] of replay) client.sendTick(symbol, frame);
  }

  /** Ends every stream (service shutdown) and stops the heartbeat. */
  closeAll(): void {
    this.options.clock.clearTimer(this.heartbeat);
    for (const client of [...this.clients]) {
      client.close();
      this.remove(client);
    }
  }

  private statusFrame(dropped: number, reason?: string): string {
    const status = this.options.currentStatus();
    const id = this.options.idsFromStream ? null : this.nextId++;
    return eventFrame('status', id, JSON.stringify({ ...status, ...(reason === undefined ? {} : { reason }), dropped }));
  }

  private sendHeartbeat(): void {
    const frame = commentFrame('heartbeat');
    for (const client of this.clients) client.sendRaw(frame);
  }

  private disconnectStuck(client: StreamClient): void {
    this.stuckDisconnects++;
    this.options.logger.warn(
      { queuedEvents: client.queuedEvents, socketBytes: client.socketWritableLength, dropped: client.dropped },
      'disconnecting an SSE client whose socket accepted nothing for STREAM_STUCK_SECONDS',
    );
    client.destroy();
    this.remove(client);
  }

  private remove(client: StreamClient): void {
    if (!this.clients.delete(client)) return;
    this.joining.delete(client);
    client.markClosed();
    this.droppedByClosed += client.dropped;
    this.everySymbol.delete(client);
    if (client.symbols) for (const symbol of client.symbols) this.bySymbol.get(symbol)?.delete(client);
  }

  private subscribersOf(symbol: string): Set<StreamClient> {
    let set = this.bySymbol.get(symbol);
    if (!set) {
      set = new Set();
      this.bySymbol.set(symbol, set);
    }
    return set;
  }
}
