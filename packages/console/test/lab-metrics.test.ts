import { LabMetricsSchema, RANK_METRICS as CONTRACT_RANK_METRICS } from '@fxdesk/schemas';
import { describe, expect, it } from 'vitest';
import { formatMetric, isLowerBetter, METRICS, metricPivot, RANK_METRICS } from '../src/lab/metrics.js';

describe('the metrics table', () => {
  it('has a row for every metric of the contract, once', () => {
    expect(METRICS.map((m) => m.key).sort()).toEqual(Object.keys(LabMetricsSchema.shape).sort());
  });

  it('offers to rank by exactly the contract’s rank metrics', () => {
    expect([...RANK_METRICS]).toEqual([...CONTRACT_RANK_METRICS]);
  });

  it('writes money with its currency, shares and percentages as %, ratios and R with two decimals', () => {
    expect(formatMetric('net_profit', 1234.5, 'USD')).toBe('1,234.50 USD');
    expect(formatMetric('trade_count', 42)).toBe('42');
    expect(formatMetric('win_rate', 0.5423)).toBe('54.2 %');
    expect(formatMetric('exposure', 0.1)).toBe('10.0 %');
    expect(formatMetric('max_drawdown_percent', 12.345)).toBe('12.35 %');
    expect(formatMetric('sharpe', 1.2345)).toBe('1.23');
    expect(formatMetric('average_r', -0.25)).toBe('-0.25 R');
  });

  it('says why a metric has no value', () => {
    expect(formatMetric('profit_factor', null)).toBe('no loss');
    expect(formatMetric('sharpe', null)).toBe('under 2 days');
    expect(formatMetric('cagr', null)).toBe('—');
  });

  it('ranks the drawdowns lower-is-better and diverges profits at 0, the profit factor at 1', () => {
    expect(isLowerBetter('max_drawdown_percent')).toBe(true);
    expect(isLowerBetter('net_profit')).toBe(false);
    expect(metricPivot('net_profit')).toBe(0);
    expect(metricPivot('profit_factor')).toBe(1);
    expect(metricPivot('win_rate')).toBeNull();
  });
});
