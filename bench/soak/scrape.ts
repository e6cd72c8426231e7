/** What the soak reads of a service's /metrics (the kit's Prometheus text). */
export interface Scrape {
  /** fxdesk_http_requests_total by `METHOD route status`, the bench's own /metrics scrapes left out. */
  requests: Map<string, number>;
  rssBytes: number;
  /** fxdesk_process_heap_live_bytes: the V8 heap right after the latest full collection. */
  liveHeapBytes: number;
  /** fxdesk_process_event_loop_delay_seconds: over the last 30 to 60 s. */
  loopDelay: { p50Seconds: number; p99Seconds: number; maxSeconds: number };
}

const SAMPLE = /^(\w+)(?:\{(.*)\})? (\S+)$/;
const LABEL = /(\w+)="((?:[^"\\]|\\.)*)"/g;

function labelsOf(text: string | undefined): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const [, name, value] of (text ?? '').matchAll(LABEL))
    labels[name as string] = (value as string).replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
  return labels;
}

export function parseMetrics(text: string): Scrape {
  const scrape: Scrape = { requests: new Map(), rssBytes: NaN, liveHeapBytes: NaN, loopDelay: { p50Seconds: NaN, p99Seconds: NaN, maxSeconds: NaN } };
  for (const line of text.split('\n')) {
    const match = SAMPLE.exec(line);
    if (!match) continue;
    const [, name, labelText, valueText] = match;
    const value = Number(valueText);
    const labels = labelsOf(labelText);
    if (name === 'fxdesk_http_requests_total' && labels.route !== '/metrics') {
      scrape.requests.set(`${labels.method} ${labels.route} ${labels.status}`, value);
    } else if (name === 'fxdesk_process_resident_memory_bytes') {
      scrape.rssBytes = value;
    } else if (name === 'fxdesk_process_heap_live_bytes') {
      scrape.liveHeapBytes = value;
    } else if (name === 'fxdesk_process_event_loop_delay_seconds') {
      if (labels.quantile === '0.5') scrape.loopDelay.p50Seconds = value;
      if (labels.quantile === '0.99') scrape.loopDelay.p99Seconds = value;
      if (labels.quantile === '1') scrape.loopDelay.maxSeconds = value;
    }
  }
  return scrape;
}

export interface RequestDelta {
  /** `METHOD route status` → requests answered between the two scrapes. */
  byKey: Map<string, number>;
  total: number;
  status4xx: number;
  status5xx: number;
}

/** Requests a service answered between two scrapes. */
export function requestDelta(before: Scrape, after: Scrape): RequestDelta {
  const delta: RequestDelta = { byKey: new Map(), total: 0, status4xx: 0, status5xx: 0 };
  for (const [key, count] of after.requests) {
    const n = count - (before.requests.get(key) ?? 0);
    if (n <= 0) continue;
    delta.byKey.set(key, n);
    delta.total += n;
    const status = Number(key.slice(key.lastIndexOf(' ') + 1));
    if (status >= 500) delta.status5xx += n;
    else if (status >= 400) delta.status4xx += n;
  }
  return delta;
}
