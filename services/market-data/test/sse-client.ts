import { EventSource, type FetchLikeResponse } from 'eventsource';

export interface ReceivedEvent {
  type: string;
  id: string;
  data: unknown;
}

/**
 * A real EventSource (the `eventsource` package) with a tap on its fetch: the test sees the
 * parsed events as any client would, and also the raw bytes and headers (comments such as the
 * heartbeat never reach an EventSource listener).
 */
export class TestEventSource {
  readonly events: ReceivedEvent[] = [];
  raw = '';
  headers: Headers | undefined;
  status: number | undefined;
  readonly source: EventSource;
  private waiters: Array<() => void> = [];

  /** `headers` go with the first request only (say a Last-Event-ID to resume from). */
  constructor(url: string, apiKey: string | undefined, headers: Record<string, string> = {}) {
    let firstHeaders: Record<string, string> | undefined = headers;
    this.source = new EventSource(url, {
      fetch: async (input, init) => {
        const extra = { ...firstHeaders, ...(apiKey ? { 'x-api-key': apiKey } : {}) };
        firstHeaders = undefined;
        const headers = { ...init.headers, ...extra };
        const response = await fetch(input, { ...init, headers });
        this.headers = response.headers;
        this.status = response.status;
        return this.tap(response);
      },
    });
    for (const type of ['tick', 'status']) {
      this.source.addEventListener(type, (event) => {
        const message = event;
        this.events.push({ type, id: message.lastEventId, data: JSON.parse(message.data as string) });
        this.notify();
      });
    }
    this.source.addEventListener('error', () => this.notify());
  }

  ofType(type: string): ReceivedEvent[] {
    return this.events.filter((e) => e.type === type);
  }

  /** Resolves once `predicate` holds (checked after every event, byte and error). */
  async waitFor(predicate: () => boolean): Promise<void> {
    while (!predicate()) await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  close(): void {
    this.source.close();
  }

  private notify(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }

  private tap(response: Response): FetchLikeResponse {
    if (!response.body) return response;
    const decoder = new TextDecoder();
    const body = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform: (chunk, controller) => {
          this.raw += decoder.decode(chunk, { stream: true });
          controller.enqueue(chunk);
          // Let the EventSource parse the chunk before waiters re-check.
          setImmediate(() => this.notify());
        },
      }),
    );
    return { body, url: response.url, status: response.status, redirected: response.redirected, headers: response.headers };
  }
}
