import { describe, expect, it } from 'vitest';
import { MetricsRegistry } from '../src/metrics.js';

describe('MetricsRegistry', () => {
  it('renders counters with sorted, escaped labels', () => {
    const m = new MetricsRegistry('t_');
    const c = m.counter('orders_total', 'Orders.');
    c.inc({ symbol: 'EURUSD', side: 'buy' });
    c.inc({ side: 'buy', symbol: 'EURUSD' }, 2);
    c.inc({ symbol: 'a"b\\c' });
    const text = m.render();
    expect(text).toContain('# TYPE t_orders_total counter');
    expect(text).toContain('t_orders_total{side="buy",symbol="EURUSD"} 3');
    expect(text).toContain('t_orders_total{symbol="a\\"b\\\\c"} 1');
  });

  it('renders histograms with cumulative buckets, sum and count', () => {
    const m = new MetricsRegistry('t_');
    const h = m.histogram('latency_seconds', 'Latency.', [0.1, 1]);
    h.observe(0.05);
    h.observe(0.5);
    h.observe(5);
    const text = m.render();
    expect(text).toContain('t_latency_seconds_bucket{le="0.1"} 1');
    expect(text).toContain('t_latency_seconds_bucket{le="1"} 2');
    expect(text).toContain('t_latency_seconds_bucket{le="+Inf"} 3');
    expect(text).toContain('t_latency_seconds_sum 5.55');
    expect(text).toContain('t_latency_seconds_count 3');
  });

  it('collects gauges at render time', () => {
    const m = new MetricsRegistry('t_');
    let v = 1;
    m.gauge('queue_depth', 'Depth.', () => v);
    v = 7;
    expect(m.render()).toContain('t_queue_depth 7');
  });

  it('returns the same metric for the same name', () => {
    const m = new MetricsRegistry();
    expect(m.counter('x', 'x')).toBe(m.counter('x', 'x'));
  });
});
