import { EventEmitter } from 'node:events';

/**
 * A server response for stream tests (SSE hubs write to it): its socket accepts writes only while
 * `accepting` is true, and `drain()` plays the peer reading everything.
 */
export class FakeResponse extends EventEmitter {
  accepting = true;
  written: string[] = [];
  destroyed = false;
  ended = false;
  socket = { writableLength: 0, destroySoon: () => {} };
  write(chunk: string): boolean {
    this.written.push(chunk);
    return this.accepting;
  }
  end(): void {
    this.ended = true;
  }
  destroy(): void {
    this.destroyed = true;
  }
  /** The peer read everything: the socket drains. */
  drain(): void {
    this.accepting = true;
    this.emit('drain');
  }
}
