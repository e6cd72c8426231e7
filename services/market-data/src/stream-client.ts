import type { ServerResponse } from 'node:http';
import type { Clock, TimerHandle } from '@fxdesk/primitives';

/** Queue key of the pending status event; no symbol can be spelled with a NUL. */
const STATUS_KEY = '\u0000status';

export interface StreamClientOptions {
  res: ServerResponse;
  /** Symbols the client asked for; null means every symbol. */
  symbols: ReadonlySet<string> | null;
  clock: Clock;
  /** Continuous backpressure longer than this disconnects the client. */
  stuckMs: number;
  /** Most events held while the socket does not accept writes. */
  queueMax: number;
  /** Builds a status event frame carrying the client's current `dropped` counter. */
  statusFrame: (dropped: number) => string;
  onStuck: (client: StreamClient) => void;
}

/**
 * One SSE client. Writes go straight to the socket while it accepts them (`res.write` returns
 * true). Once it reports backpressure, nothing more is written until 'drain': events wait in a
 * queue that holds at most one tick per symbol (a newer tick replaces the queued one, and
 * every tick discarded that way counts in `dropped`) and at most `queueMax` events in all.
 * On 'drain' the queue is written in one piece, followed by a status event when `dropped`
 * rose since the client last heard it. Memory per client is therefore bounded by the socket's
 * high-water mark plus the queue, however slow the reader.
 */
export class StreamClient {
  readonly symbols: ReadonlySet<string> | null;
  /** Ticks discarded for this client since it connected. */
  dropped = 0;
  /** Events handed to the socket. */
  delivered = 0;
  private reportedDropped = 0;
  /** Tick frames by symbol (and the pending status), in the order they must be written. */
  private readonly queue = new Map<string, string | null>();
  private isBackpressured = false;
  private isClosed = false;
  private stuckTimer: TimerHandle | undefined;
  private readonly res: ServerResponse;
  private readonly options: StreamClientOptions;

  constructor(options: StreamClientOptions) {
    this.options = options;
    this.res = options.res;
    this.symbols = options.symbols;
    this.res.on('drain', () => this.flush());
  }

  /** Events waiting for the socket (bounded by one per symbol and by queueMax). */
  get queuedEvents(): number {
    return this.queue.size;
  }

  /** Bytes the socket holds that the peer has not taken yet. */
  get socketWritableLength(): number {
    return this.res.socket?.writableLength ?? 0;
  }

  get backpressured(): boolean {
    return this.isBackpressured;
  }

  get closed(): boolean {
    return this.isClosed;
  }

  wants(symbol: string): boolean {
    return this.symbols === null || this.symbols.has(symbol);
  }

  /** Sends a tick frame, or queues it (replacing an older queued tick of the same symbol). */
  sendTick(symbol: string, frame: string): void {
    if (this.isClosed) return;
    if (!this.isBackpressured) {
      this.write(frame);
      return;
    }
    if (this.queue.delete(symbol)) this.dropped++;
    else if (this.queue.size >= this.options.queueMax) this.evictOldestTick();
    this.queue.set(symbol, frame);
  }

  /** Sends a status event now, or marks one pending (built with the counter when written). */
  sendStatus(): void {
    if (this.isClosed) return;
    if (!this.isBackpressured) {
      this.write(this.statusFrame());
      return;
    }
    this.queue.delete(STATUS_KEY);
    this.queue.set(STATUS_KEY, null);
  }

  /**
   * Writes `events` missed ticks in one piece, whatever the socket's backpressure: a resuming
   * client gets every one (bounded by the stream's retention), none coalesced away.
   */
  sendBacklog(batch: string, events: number): void {
    if (this.isClosed || events === 0) return;
    if (!this.isBackpressured) {
      this.write(batch, events);
      return;
    }
    this.delivered += events;
    this.res.write(batch);
  }

  /** Writes a frame that is not a tick (heartbeat, retry hint), skipped while backpressured. */
  sendRaw(frame: string): void {
    if (this.isClosed || this.isBackpressured) return;
    this.write(frame);
  }

  /**
   * Ends the stream: a writable socket gets the final chunk and a FIN once it is flushed; a
   * stuck one is destroyed, since its buffer would never flush.
   */
  close(): void {
    if (this.isClosed) return;
    this.markClosed();
    if (this.isBackpressured) {
      this.res.destroy();
      return;
    }
    this.res.end();
    this.res.socket?.destroySoon();
  }

  /** Drops the connection at once (stuck client). */
  destroy(): void {
    if (this.isClosed) return;
    this.markClosed();
    this.res.destroy();
  }

  /** Called when the peer went away. */
  markClosed(): void {
    this.isClosed = true;
    this.queue.clear();
    this.clearStuckTimer();
  }

  /** Writes `events` events in one piece; a false return starts the backpressure episode. */
  private write(frame: string, events = 1): void {
    this.delivered += events;
    if (this.res.write(frame)) return;
    this.isBackpressured = true;
    this.stuckTimer = this.options.clock.setTimeout(() => this.options.onStuck(this), this.options.stuckMs).unref();
  }

  private flush(): void {
    if (this.isClosed) return;
    this.isBackpressured = false;
    this.clearStuckTimer();
    let batch = '';
    let events = 0;
    for (const frame of this.queue.values()) {
      batch += frame ?? this.statusFrame();
      events++;
    }
    this.queue.clear();
    if (this.dropped > this.reportedDropped) {
      batch += this.statusFrame();
      events++;
    }
    if (events > 0) this.write(batch, events);
  }

  private statusFrame(): string {
    this.reportedDropped = this.dropped;
    return this.options.statusFrame(this.dropped);
  }

  private evictOldestTick(): void {
    for (const key of this.queue.keys()) {
      if (key === STATUS_KEY) continue;
      this.queue.delete(key);
      this.dropped++;
      return;
    }
  }

  private clearStuckTimer(): void {
    if (this.stuckTimer) this.options.clock.clearTimer(this.stuckTimer);
    this.stuckTimer = undefined;
  }
}
