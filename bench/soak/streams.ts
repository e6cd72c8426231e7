import http from 'node:http';

const RECONNECT_MS = 1000;

/**
 * Server-sent-event clients on raw http connections (one each), counting the events they get.
 * A stream that ends while the soak runs is a drop (counted, then opened again after a second);
 * a refused one is counted by its status.
 */
export class StreamClients {
  events = 0;
  drops = 0;
  readonly refused = new Map<string, number>();
  private readonly requests = new Set<http.ClientRequest>();
  private closing = false;

  constructor(
    private readonly base: string,
    private readonly headers: Record<string, string>,
  ) {}

  /** Opens a stream on each path (awaits their first answer). */
  async open(paths: string[]): Promise<void> {
    await Promise.all(paths.map((p) => this.connect(p)));
  }

  close(): void {
    this.closing = true;
    for (const request of this.requests) request.destroy();
    this.requests.clear();
  }

  private connect(path: string): Promise<void> {
    return new Promise((resolve) => {
      const request = http.get(new URL(path, this.base), { headers: { accept: 'text/event-stream', ...this.headers }, agent: false }, (res) => {
        resolve();
        if (res.statusCode !== 200) {
          this.refuse(`${path} answered ${res.statusCode}`);
          res.resume();
          res.on('close', () => this.lost(request, path, false));
          return;
        }
        res.setEncoding('utf8');
        let carry = '';
        res.on('data', (chunk: string) => {
          const text = carry + chunk;
          const end = text.lastIndexOf('\n\n');
          if (end < 0) {
            carry = text;
            return;
          }
          carry = text.slice(end + 2);
          for (let at = text.indexOf('data:'); at !== -1 && at < end; at = text.indexOf('data:', at + 5)) this.events++;
        });
        res.on('error', () => {});
        res.on('close', () => this.lost(request, path, true));
      });
      request.on('error', (err) => {
        resolve();
        if (!this.closing) this.refuse(`${path}: ${err.message}`);
        this.lost(request, path, false);
      });
      this.requests.add(request);
    });
  }

  /** Opens the stream again, a second later; `dropped`: it had been answered 200. */
  private lost(request: http.ClientRequest, path: string, dropped: boolean): void {
    if (!this.requests.delete(request) || this.closing) return;
    if (dropped) this.drops++;
    setTimeout(() => {
      if (!this.closing) void this.connect(path);
    }, RECONNECT_MS);
  }

  private refuse(reason: string): void {
    this.refused.set(reason, (this.refused.get(reason) ?? 0) + 1);
  }
}
