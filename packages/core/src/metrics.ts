/**
 * A small Prometheus registry: counters, gauges and histograms with labels, rendered in the
 * text exposition format 0.0.4 (https://prometheus.io/docs/instrumenting/exposition_formats/).
 */

type Labels = Record<string, string | number>;

interface Metric {
  render(): string;
}

function labelKey(labels: Labels): string {
  const keys = Object.keys(labels).sort();
  if (keys.length === 0) return '';
  return `{${keys.map((k) => `${k}="${escapeLabel(String(labels[k]))}"`).join(',')}}`;
}

function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

function header(name: string, help: string, type: string): string {
  return `# HELP ${name} ${help.replace(/\n/g, ' ')}\n# TYPE ${name} ${type}\n`;
}

export class Counter implements Metric {
  private values = new Map<string, number>();
  constructor(
    readonly name: string,
    readonly help: string,
  ) {}
  inc(labels: Labels = {}, by = 1): void {
    const key = labelKey(labels);
    this.values.set(key, (this.values.get(key) ?? 0) + by);
  }
  get(labels: Labels = {}): number {
    return this.values.get(labelKey(labels)) ?? 0;
  }
  render(): string {
    let out = header(this.name, this.help, 'counter');
    for (const [key, value] of this.values) out += `${this.name}${key} ${value}\n`;
    return out;
  }
}

export class Gauge implements Metric {
  private values = new Map<string, number>();
  constructor(
    readonly name: string,
    readonly help: string,
    private readonly collect?: () => number | Array<[Labels, number]>,
  ) {}
  set(value: number, labels: Labels = {}): void {
    this.values.set(labelKey(labels), value);
  }
  inc(labels: Labels = {}, by = 1): void {
    const key = labelKey(labels);
    this.values.set(key, (this.values.get(key) ?? 0) + by);
  }
  dec(labels: Labels = {}, by = 1): void {
    this.inc(labels, -by);
  }
  render(): string {
    if (this.collect) {
      const collected = this.collect();
      if (typeof collected === 'number') this.values.set('', collected);
      else for (const [labels, value] of collected) this.values.set(labelKey(labels), value);
    }
    let out = header(this.name, this.help, 'gauge');
    for (const [key, value] of this.values) out += `${this.name}${key} ${value}\n`;
    return out;
  }
}

const DEFAULT_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export class Histogram implements Metric {
  private series = new Map<string, { labels: Labels; counts: number[]; sum: number; count: number }>();
  constructor(
    readonly name: string,
    readonly help: string,
    readonly buckets: number[] = DEFAULT_BUCKETS,
  ) {}
  observe(value: number, labels: Labels = {}): void {
    const key = labelKey(labels);
    let s = this.series.get(key);
    if (!s) {
      s = { labels, counts: new Array<number>(this.buckets.length).fill(0), sum: 0, count: 0 };
      this.series.set(key, s);
    }
    for (let i = 0; i < this.buckets.length; i++) if (value <= (this.buckets[i] as number)) s.counts[i]! += 1;
    s.sum += value;
    s.count += 1;
  }
  render(): string {
    let out = header(this.name, this.help, 'histogram');
    for (const s of this.series.values()) {
      this.buckets.forEach((le, i) => {
        out += `${this.name}_bucket${labelKey({ ...s.labels, le })} ${s.counts[i]}\n`;
      });
      out += `${this.name}_bucket${labelKey({ ...s.labels, le: '+Inf' })} ${s.count}\n`;
      out += `${this.name}_sum${labelKey(s.labels)} ${s.sum}\n`;
      out += `${this.name}_count${labelKey(s.labels)} ${s.count}\n`;
    }
    return out;
  }
}

export class MetricsRegistry {
  private metrics = new Map<string, Metric>();

  constructor(readonly prefix = 'fxdesk_') {}

  counter(name: string, help: string): Counter {
    return this.register(new Counter(this.prefix + name, help));
  }
  gauge(name: string, help: string, collect?: () => number | Array<[Labels, number]>): Gauge {
    return this.register(new Gauge(this.prefix + name, help, collect));
  }
  histogram(name: string, help: string, buckets?: number[]): Histogram {
    return this.register(new Histogram(this.prefix + name, help, buckets));
  }
  render(): string {
    return [...this.metrics.values()].map((m) => m.render()).join('');
  }

  private register<M extends Metric & { name: string }>(metric: M): M {
    const existing = this.metrics.get(metric.name);
    if (existing) return existing as M;
    this.metrics.set(metric.name, metric);
    return metric;
  }
}
