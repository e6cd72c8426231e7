import type { LabMetrics, RankMetric } from '@fxdesk/schemas';
import { formatMoney } from '../format.js';

/** How a metric reads: money in the account currency, a count, a 0..1 share or 0..100 percent as %, a ratio, R multiples. */
type Kind = 'money' | 'count' | 'share' | 'percent' | 'ratio' | 'r';

export type MetricKey = keyof LabMetrics;

interface MetricSpec {
  key: MetricKey;
  label: string;
  kind: Kind;
  /** What a null means for this metric. */
  none?: string;
}

/** The rows of a metrics table, in the order a trader reads them. */
export const METRICS: readonly MetricSpec[] = [
  { key: 'net_profit', label: 'Net profit', kind: 'money' },
  { key: 'final_equity', label: 'Final equity', kind: 'money' },
  { key: 'trade_count', label: 'Trades', kind: 'count' },
  { key: 'win_rate', label: 'Win rate', kind: 'share' },
  { key: 'profit_factor', label: 'Profit factor', kind: 'ratio', none: 'no loss' },
  { key: 'expectancy', label: 'Expectancy', kind: 'money' },
  { key: 'average_r', label: 'Average R', kind: 'r' },
  { key: 'max_drawdown', label: 'Max drawdown', kind: 'money' },
  { key: 'max_drawdown_percent', label: 'Max drawdown %', kind: 'percent' },
  { key: 'sharpe', label: 'Sharpe', kind: 'ratio', none: 'under 2 days' },
  { key: 'sortino', label: 'Sortino', kind: 'ratio', none: 'no losing day' },
  { key: 'cagr', label: 'CAGR', kind: 'share', none: '—' },
  { key: 'exposure', label: 'Exposure', kind: 'share' },
  { key: 'longest_losing_streak', label: 'Longest losing streak', kind: 'count' },
  { key: 'gross_profit', label: 'Gross profit', kind: 'money' },
  { key: 'gross_loss', label: 'Gross loss', kind: 'money' },
];

export function metricLabel(key: MetricKey): string {
  return METRICS.find((m) => m.key === key)?.label ?? key;
}

/** A metric as the page shows it: `1,234.56 USD`, `54.2 %`, `1.35`, `0.42 R`; a null says why it has no value. */
export function formatMetric(key: MetricKey, value: number | null, currency = ''): string {
  const spec = METRICS.find((m) => m.key === key);
  if (value === null) return spec?.none ?? '—';
  switch (spec?.kind) {
    case 'money':
      return formatMoney(value, currency);
    case 'count':
      return String(value);
    case 'share':
      return `${(value * 100).toFixed(1)} %`;
    case 'percent':
      return `${value.toFixed(2)} %`;
    case 'r':
      return `${value.toFixed(2)} R`;
    default:
      return value.toFixed(2);
  }
}

/** What a sweep can rank by, as the contract lists them (RANK_METRICS, held equal by test/lab-metrics.test.ts). */
export const RANK_METRICS = [
  'net_profit',
  'sharpe',
  'sortino',
  'profit_factor',
  'expectancy',
  'average_r',
  'win_rate',
  'cagr',
  'max_drawdown',
  'max_drawdown_percent',
] as const satisfies readonly RankMetric[];

/** Drawdowns rank lower-is-better; every other metric higher-is-better. */
export function isLowerBetter(metric: RankMetric): boolean {
  return metric === 'max_drawdown' || metric === 'max_drawdown_percent';
}

/**
 * Where a metric turns from bad to good, for a diverging colour scale: a profit of 0, a profit
 * factor of 1. Null for the metrics that have no such point (shares, drawdowns).
 */
export function metricPivot(metric: RankMetric): number | null {
  switch (metric) {
    case 'net_profit':
    case 'expectancy':
    case 'average_r':
    case 'sharpe':
    case 'sortino':
    case 'cagr':
      return 0;
    case 'profit_factor':
      return 1;
    default:
      return null;
  }
}
