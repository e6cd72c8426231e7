import http from 'node:http';
import { SseParser } from '@fxdesk/client';

export interface ReadEvent {
  event: string;
  /** `<desk>.<hub>.<n>` (event-hub.ts). */
  id: string;
  /** The id's desk position: the seq of the newest desk event up to this one. */
  desk: number;
  /** The id's place in the ring of the hub that sent it. */
  local: number;
  data: unknown;
}

/** An event as read, with its id's parts. */
function readEvent(event: string, id: string, data: string): ReadEvent {
  const [desk, , local] = id.split('.');
  return { event, id, desk: Number(desk), local: Number(local), data: JSON.parse(data) as unknown };
}

/**
 * A GET /events client over plain HTTP that keeps what it reads: the parsed events (with
 * @fxdesk/client's parser, as any EventSource reads them) and the raw text (comments such as the
 * heartbeat included). `until` waits for the stream to deliver what a test expects.
 */
export class EventReader {
  readonly events: ReadEvent[] = [];
  raw = '';
  status = 0;
  headers: http.IncomingHttpHeaders = {};
  /** Resolves when the server ends the stream or the socket closes. */
  readonly ended: Promise<void>;
  private readonly parser = new SseParser();
  private readonly waiters = new Set<() => void>();
  private request: http.ClientRequest | undefined;
  private markEnded!: () => void;

  private constructor() {
    this.ended = new Promise((resolve) => (this.markEnded = resolve));
  }

  /** Opens the stream; resolves once the answer's headers arrived (any status). */
  static open(url: string, headers: Record<string, string> = {}): Promise<EventReader> {
    const reader = new EventReader();
    return new Promise((resolve, reject) => {
      reader.request = http.get(url, { headers }, (res) => {
        reader.status = res.statusCode ?? 0;
        reader.headers = res.headers;
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          reader.raw += chunk;
          for (const e of reader.parser.push(chunk)) reader.events.push(readEvent(e.event, e.id ?? '', e.data));
          reader.notify();
        });
        res.on('close', () => {
          reader.markEnded();
          reader.notify();
        });
        resolve(reader);
      });
      reader.request.on('error', (err) => {
        reader.markEnded();
        reject(err);
      });
    });
  }

  ofType(event: string): ReadEvent[] {
    return this.events.filter((e) => e.event === event);
  }

  /** Waits until `check` holds for what was read (fails the test after `timeoutMs` of waiting). */
  until(check: (reader: EventReader) => boolean, timeoutMs = 5000): Promise<void> {
    if (check(this)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        reject(new Error(`the stream did not deliver what was expected; read: ${this.events.map((e) => `${e.event}#${e.id}`).join(' ')}`));
      }, timeoutMs);
      const waiter = () => {
        if (!check(this)) return;
        clearTimeout(timer);
        this.waiters.delete(waiter);
        resolve();
      };
      this.waiters.add(waiter);
    });
  }

  close(): void {
    this.request?.destroy();
  }

  private notify(): void {
    for (const waiter of [...this.waiters]) waiter();
  }
}
