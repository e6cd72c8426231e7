import type { ServerResponse } from 'node:http';
import { commentFrame, eventFrame, retryFrame } from '@fxdesk/core';
import type { Clock, TimerHandle } from '@fxdesk/primitives';
import type { Tick } from '@fxdesk/schemas';
import type { Logger } from 'pino';
import { StreamClient } from './stream-client.js';
import type { StreamStatus } from './status.js';

export interface StreamHubOptions {
  clock: Clock;
  logger: Logger;
  heartbeatMs: number;
  retryMs: number;
  stuckMs: number;
  queueMax: number;
  /** The connection state every status event reports. */
  currentStatus: () => StreamStatus;
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
  private readonly lastFrames = new Map<string, { id: number; frame: string }>();
  private readonly heartbeat: TimerHandle;
  private nextId = 1;
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

  publishTick(tick: Tick): void {
    const id = this.nextId++;
    const frame = eventFrame('tick', id, JSON.stringify(tick));
    this.lastFrames.set(tick.symbol, { id, frame });
    this.ticksPublished++;
    for (const client of this.everySymbol) client.sendTick(tick.symbol, frame);
    const subscribers = this.bySymbol.get(tick.symbol);
    if (subscribers) for (const client of subscribers) client.sendTick(tick.symbol, frame);
  }

  /** Tells every client the connection state changed. */
  publishStatus(): void {
    for (const client of this.clients) client.sendStatus();
  }

  /**
   * Starts streaming on a response whose headers are written: the retry hint, the last tick of
   * each requested symbol once (in the order they arrived, so ids only ever grow), the current
   * status, then live events.
   */
  open(res: ServerResponse, symbols: ReadonlySet<string> | null): StreamClient {
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
    if (symbols === null) this.everySymbol.add(client);
    else for (const symbol of symbols) this.subscribersOf(symbol).add(client);
    res.once('close', () => this.remove(client));
    // A failed socket write surfaces here; the client is gone either way.
    res.on('error', () => this.remove(client));

    client.sendRaw(retryFrame(this.options.retryMs));
    const replay = [...this.lastFrames].filter(([symbol]) => client.wants(symbol)).sort(([, a], [, b]) => a.id - b.id);
    for (const [symbol, { frame }] of replay) client.sendTick(symbol, frame);
    client.sendStatus();
    return client;
  }

  /** Ends every stream (service shutdown) and stops the heartbeat. */
  closeAll(): void {
    this.options.clock.clearTimer(this.heartbeat);
    for (const client of [...this.clients]) {
      client.close();
      this.remove(client);
    }
  }

  private statusFrame(dropped: number): string {
    const status = this.options.currentStatus();
    return eventFrame('status', this.nextId++, JSON.stringify({ ...status, dropped }));
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
