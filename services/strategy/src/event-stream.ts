import type { ServerResponse } from 'node:http';
import type { Clock, TimerHandle } from '@fxdesk/primitives';

/** One event as the hub framed it once for every client. */
export interface FramedEvent {
  id: number;
  frame: string;
}

/** Where a stream reads the events it has not written yet. */
export interface EventLog {
  /** The events after `id`, oldest first; undefined when some of them are no longer kept. */
  after(id: number): readonly FramedEvent[] | undefined;
}

export interface EventStreamOptions {
  res: ServerResponse;
  events: EventLog;
  /** The id the client already has: the stream writes what follows it. */
  lastSentId: number;
  clock: Clock;
  /** Continuous backpressure longer than this drops the client. */
  stuckMs: number;
  /** The stream cannot go on: its socket took nothing for stuckMs, or it fell behind the events kept. */
  onGone: (stream: EventStream, why: 'stuck' | 'behind') => void;
}

/**
 * One client of GET /events. It holds no queue: it remembers the id of the last event it wrote
 * and reads what follows from the hub's ring of recent events. While the socket accepts writes,
 * each new event is written at once; once it pushes back, nothing more is written until 'drain',
 * when the stream catches up from the ring one event at a time, stopping again at the next
 * push-back. A client that falls further behind than the ring keeps is ended (it resumes with
 * Last-Event-ID and is told to `reset`), one whose socket takes nothing for stuckMs is dropped.
 * So a slow reader costs the socket's buffer and a few numbers, never a growing queue, and never
 * sees a gap or a duplicate.
 */
export class EventStream {
  /** Events handed to the socket. */
  delivered = 0;
  private sentId: number;
  private isBackpressured = false;
  private isClosed = false;
  private stuckTimer: TimerHandle | undefined;
  private readonly res: ServerResponse;

  constructor(private readonly o: EventStreamOptions) {
    this.res = o.res;
    this.sentId = o.lastSentId;
    this.res.on('drain', () => this.catchUp());
  }

  /** The id of the last event written. */
  get lastSentId(): number {
    return this.sentId;
  }

  get backpressured(): boolean {
    return this.isBackpressured;
  }

  get closed(): boolean {
    return this.isClosed;
  }

  /** Bytes the socket holds that the peer has not taken yet. */
  get socketWritableLength(): number {
    return this.res.socket?.writableLength ?? 0;
  }

  /** A new event: written now when the stream is caught up and writable, else read from the ring at the next drain. */
  offer(event: FramedEvent): void {
    if (this.isClosed || this.isBackpressured) return;
    if (event.id === this.sentId + 1) this.write(event);
    else this.catchUp();
  }

  /** Writes a frame that is no event (a comment, the retry hint, a `reset`); skipped while the socket pushes back. */
  sendRaw(frame: string, id?: number): void {
    if (this.isClosed || this.isBackpressured) return;
    if (id !== undefined) this.sentId = id;
    if (!this.res.write(frame)) this.pushedBack();
  }

  /**
   * Writes frames the ring does not hold (the desk events a resume read from the log, the pairs
   * as they are), every one whatever the socket says: there are at most EVENTS_REPLAY of them.
   */
  sendAll(frames: readonly string[]): void {
    if (this.isClosed) return;
    let isWritable = true;
    for (const frame of frames) isWritable = this.res.write(frame);
    if (!isWritable) this.pushedBack();
  }

  /** Writes every kept event after the last one written, until the socket pushes back. */
  catchUp(): void {
    if (this.isClosed) return;
    this.isBackpressured = false;
    this.clearStuckTimer();
    const pending = this.o.events.after(this.sentId);
    if (pending === undefined) {
      this.o.onGone(this, 'behind');
      return;
    }
    for (const event of pending) if (!this.write(event)) return;
  }

  /** Ends the stream: a writable socket is flushed and closed, one that pushes back is destroyed (it would never flush). */
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

  /** Called when the peer went away. */
  markClosed(): void {
    this.isClosed = true;
    this.clearStuckTimer();
  }

  /** Writes one event; false when the socket pushed back (the event is in its buffer all the same). */
  private write(event: FramedEvent): boolean {
    this.sentId = event.id;
    this.delivered++;
    if (this.res.write(event.frame)) return true;
    this.pushedBack();
    return false;
  }

  private pushedBack(): void {
    this.isBackpressured = true;
    this.stuckTimer ??= this.o.clock.setTimeout(() => this.o.onGone(this, 'stuck'), this.o.stuckMs).unref();
  }

  private clearStuckTimer(): void {
    if (this.stuckTimer) this.o.clock.clearTimer(this.stuckTimer);
    this.stuckTimer = undefined;
  }
}
