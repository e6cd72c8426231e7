import type { BacktestMetrics } from '@fxdesk/schemas';
import { pairLabel } from '../format.js';
import { formatMetric, METRICS } from '../lab/metrics.js';

/**
 * A backtest's metrics, overall and per pair: a metric a row, a column each. Each cell carries
 * its value as the API gave it (`data-value`), what a script or a test compares.
 */
export function MetricsTable({ metrics, currency }: { metrics: BacktestMetrics; currency: string }) {
  const pairs = Object.keys(metrics.per_pair).sort();
  const columns = [
    { key: 'overall', label: 'Overall', values: metrics.overall },
    ...pairs.map((p) => ({ key: p, label: pairLabel(p), values: metrics.per_pair[p] })),
  ];
  return (
    <div class="scroll-x">
      <table class="grid metrics" aria-label="Metrics">
        <thead>
          <tr>
            <th scope="col">Metric</th>
            {columns.map((c) => (
              <th key={c.key} scope="col" class="num">
                {c.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {METRICS.map((m) => (
            <tr key={m.key} data-metric={m.key}>
              <th scope="row">{m.label}</th>
              {columns.map((c) => {
                const value = c.values?.[m.key] ?? null;
                const tone = m.key === 'net_profit' && value !== null && value !== 0 ? (value > 0 ? 'up' : 'down') : '';
                return (
                  <td key={c.key} class={`num ${tone}`} data-column={c.key} data-value={value === null ? 'null' : String(value)}>
                    {formatMetric(m.key, value, currency)}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
