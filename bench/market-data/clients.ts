import http from 'node:http';

const MAX_LATENCY_MS = 60_000;

/**
 * N raw HTTP SSE clients in one process: cheap enough that 1,000 of them keep up with 50
 * ticks/s each. Every tick's latency is the receive time minus the tick's `ts` (both on this
 * machine's clock), counted in 1 ms buckets since `ts` has millisecond resolution.
 */
export class ClientPool {
  received = 0;
  private readonly latencyCounts = new Uint32Array(MAX_LATENCY_MS + 1);
  private readonly requests: http.ClientRequest[] = [];

  /** Opens `count` streams, `batch` at a time, each on its own connection. */
  async connect(port: number, path: string, headers: Record<string, string>, count: number, batch = 100): Promise<void> {
    for (let opened = 0; opened < count; opened += batch) {
      const n = Math.min(batch, count - opened);
      await Promise.all(Array.from({ length: n }, () => this.open(port, path, headers)));
    }
  }

  reset(): void {
    this.received = 0;
    this.latencyCounts.fill(0);
  }

  /** Latency (ms) under which `q` of the ticks arrived. */
  percentile(q: number): number {
    const target = Math.ceil(this.received * q);
    let seen = 0;
    for (let ms = 0; ms <= MAX_LATENCY_MS; ms++) {
      seen += this.latencyCounts[ms] as number;
      if (seen >= target) return ms;
    }
    return MAX_LATENCY_MS;
  }

  close(): void {
    for (const req of this.requests) req.destroy();
    this.requests.length = 0;
  }

  private open(port: number, path: string, headers: Record<string, string>): Promise<void> {
    return new Promise((resolve, reject) => {
      const req = http.get({ host: '127.0.0.1', port, path, headers, agent: false }, (res) => {
        if (res.statusCode !== 200) {
          reject(new Error(`stream answered ${res.statusCode}`));
          res.resume();
          return;
        }
        res.setEncoding('utf8');
        let carry = '';
        res.on('data', (chunk: string) => {
          const now = Date.now();
          const text = carry + chunk;
          const end = text.lastIndexOf('\n\n');
          if (end < 0) {
            carry = text;
            return;
          }
          carry = text.slice(end + 2);
          this.count(text, end, now);
        });
        res.on('error', () => {});
        resolve();
      });
      req.on('error', reject);
      this.requests.push(req);
    });
  }

  /** Counts every tick frame in text[0, end) and its latency; status frames are skipped. */
  private count(text: string, end: number, now: number): void {
    let at = text.indexOf('data: {"symbol"');
    while (at !== -1 && at < end) {
      const ts = text.indexOf('"ts":"', at);
      const latency = now - Date.parse(text.slice(ts + 6, ts + 30));
      const bucket = Math.max(0, Math.min(MAX_LATENCY_MS, latency));
      this.latencyCounts[bucket] = (this.latencyCounts[bucket] as number) + 1;
      this.received++;
      at = text.indexOf('data: {"symbol"', ts);
    }
  }
}
