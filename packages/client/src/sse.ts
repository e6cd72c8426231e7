import { backoffDelayMs, systemClock, type Clock, type TimerHandle } from '@fxdesk/primitives';
import { request } from 'undici';
import { ServiceError } from './errors.js';
import type { HttpClient, Query } from './http.js';

/** One dispatched server-sent event. */
export interface SseEvent {
  /** The `event:` field, `message` when the event named none. */
  event: string;
  data: string;
  /** The last event id seen on the stream (the `id:` field of this or an earlier event). */
  id: string | undefined;
}

/**
 * An incremental parser of `text/event-stream`, as WHATWG HTML §9.2.6 "Interpreting an event
 * stream" defines it: lines end with CRLF, LF or CR; a blank line dispatches the event; a line
 * starting with `:` is a comment; `data` lines accumulate joined by LF; `id` (without NUL) sets
 * the last event id; `retry` (digits only) sets the reconnection time.
 */
export class SseParser {
  lastEventId: string | undefined;
  retryMs: number | undefined;
  private buffer = '';
  private data: string[] = [];
  private eventType = '';
  private isFirstChunk = true;
  private endsWithCr = false;

  /** Feeds decoded text; returns the events it completed. */
  push(text: string): SseEvent[] {
    let chunk = text;
    if (this.isFirstChunk && chunk.length > 0) {
      this.isFirstChunk = false;
      if (chunk.charCodeAt(0) === 0xfeff) chunk = chunk.slice(1);
    }
    // A CR that ended the previous chunk already ended its line: drop the LF of its CRLF.
    if (this.endsWithCr && chunk.startsWith('\n')) chunk = chunk.slice(1);
    this.endsWithCr = chunk.endsWith('\r');
    this.buffer += chunk;
    const events: SseEvent[] = [];
    const lineEnd = /\r\n|\r|\n/g;
    let start = 0;
    let match: RegExpExecArray | null;
    while ((match = lineEnd.exec(this.buffer)) !== null) {
      // A lone CR at the very end may be the first half of a CRLF split across chunks; it is
      // still a complete line end, and `endsWithCr` drops the LF that may follow.
      const line = this.buffer.slice(start, match.index);
      start = match.index + match[0].length;
      const event = this.line(line);
      if (event) events.push(event);
    }
    this.buffer = this.buffer.slice(start);
    return events;
  }

  private line(line: string): SseEvent | undefined {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'event':
        this.eventType = value;
        break;
      case 'data':
        this.data.push(value);
        break;
      case 'id':
        if (!value.includes('\u0000')) this.lastEventId = value;
        break;
      case 'retry':
        if (/^\d+$/.test(value)) this.retryMs = Number(value);
        break;
      default:
        break;
    }
    return undefined;
  }

  private dispatch(): SseEvent | undefined {
    const type = this.eventType;
    this.eventType = '';
    if (this.data.length === 0) return undefined;
    const data = this.data.join('\n');
    this.data = [];
    return { event: type === '' ? 'message' : type, data, id: this.lastEventId };
  }
}

export interface EventStreamOptions {
  path: string;
  query?: Query;
  onEvent: (event: SseEvent) => void;
  /** The stream is open (HTTP 200); called again after each reconnection. */
  onOpen?: () => void;
  /** A connection attempt failed or an open stream ended; the next attempt comes after `delayMs`. */
  onDisconnect?: (error: ServiceError, delayMs: number) => void;
  /** Receives what onEvent throws; the stream goes on. */
  onListenerError?: (err: unknown) => void;
  /** First reconnection delay when the server sent no `retry:` hint (default 1000 ms). */
  minDelayMs?: number;
  /** Longest delay between attempts; the delay doubles on each failure up to it (default 30 000 ms). */
  maxDelayMs?: number;
  /** An open stream that delivers nothing, not even a heartbeat comment, for this long is reconnected (default 45 000 ms). */
  idleTimeoutMs?: number;
  /** The timers reconnections are scheduled on (default: the system clock's). */
  timers?: Pick<Clock, 'setTimeout' | 'clearTimer'>;
}

export interface EventStream {
  /** Whether a connection is open right now. */
  readonly isOpen: boolean;
  /** Ends the stream for good: no more events, no reconnection. */
  close(): void;
}

/**
 * Reads a server-sent event stream with undici and keeps it open: when it cannot connect, when
 * the server answers an error, when the stream ends or stays silent past `idleTimeoutMs`, it
 * reconnects after a delay that starts at the server's `retry:` hint (else `minDelayMs`) and
 * doubles up to `maxDelayMs`, sending `Last-Event-ID` as EventSource does.
 */
export function openEventStream(http: HttpClient, options: EventStreamOptions): EventStream {
  const timers = options.timers ?? systemClock;
  const minDelayMs = options.minDelayMs ?? 1000;
  const maxDelayMs = options.maxDelayMs ?? 30_000;
  const idleTimeoutMs = options.idleTimeoutMs ?? 45_000;
  let closed = false;
  let open = false;
  let failures = 0;
  let retryMs: number | undefined;
  let lastEventId: string | undefined;
  let controller: AbortController | undefined;
  let timer: TimerHandle | undefined;

  const deliver = (event: SseEvent) => {
    try {
      options.onEvent(event);
    } catch (err) {
      options.onListenerError?.(err);
    }
  };

  const scheduleReconnect = (error: ServiceError) => {
    failures++;
    const delayMs = backoffDelayMs({ baseMs: retryMs ?? minDelayMs, capMs: maxDelayMs }, failures - 1);
    options.onDisconnect?.(error, delayMs);
    timer = timers.setTimeout(() => void connect(), delayMs).unref();
  };

  const connect = async (): Promise<void> => {
    timer = undefined;
    if (closed) return;
    controller = new AbortController();
    const headers: Record<string, string> = { ...http.defaultHeaders, accept: 'text/event-stream', 'cache-control': 'no-cache' };
    if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
    try {
      const res = await request(http.url(options.path, options.query), {
        method: 'GET',
        headers,
        dispatcher: http.agent,
        headersTimeout: idleTimeoutMs,
        bodyTimeout: idleTimeoutMs,
        signal: controller.signal,
      });
      if (res.statusCode !== 200) throw http.httpError(res.statusCode, res.headers, await res.body.text());
      open = true;
      failures = 0;
      options.onOpen?.();
      const parser = new SseParser();
      const decoder = new TextDecoder();
      for await (const chunk of res.body) {
        if (closed) return;
        for (const event of parser.push(decoder.decode(chunk as Uint8Array, { stream: true }))) {
          if (closed) return;
          deliver(event);
        }
        retryMs = parser.retryMs ?? retryMs;
        lastEventId = parser.lastEventId ?? lastEventId;
      }
      throw new ServiceError({ service: http.service, kind: 'network', code: 'stream_ended', message: `GET ${options.path}: the event stream ended` });
    } catch (err) {
      open = false;
      if (closed) return;
      scheduleReconnect(err instanceof ServiceError ? err : http.transportError(err, `GET ${options.path}`));
    }
  };

  void connect();
  return {
    get isOpen() {
      return open && !closed;
    },
    close() {
      if (closed) return;
      closed = true;
      open = false;
      if (timer !== undefined) timers.clearTimer(timer);
      controller?.abort();
    },
  };
}
