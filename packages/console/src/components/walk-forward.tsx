import type { RankMetric, WalkForwardResult } from '@fxdesk/schemas';
import { formatDateTime, formatMoney } from '../format.js';
import { formatMetric, metricLabel } from '../lab/metrics.js';
import { formatRuleValue, ruleSpec, type RuleKey } from '../lab/rules.js';
import { Link } from '../router.js';
import { backtestHref } from '../routes.js';

function day(iso: string): string {
  return formatDateTime(iso).slice(0, 10);
}

/**
 * A walk-forward: per window, the settings chosen on its in-sample part and the metric they had
 * there beside the one they had on the out-of-sample part after it; then the out-of-sample total.
 */
export function WalkForwardTable({
  result,
  metric,
  currency,
  varying,
}: {
  result: WalkForwardResult;
  metric: RankMetric;
  currency: string;
  varying: RuleKey[];
}) {
  const label = metricLabel(metric);
  const total = result.out_of_sample_total;
  return (
    <>
      <table class="grid cards walk-forward" aria-label="Walk-forward windows">
        <thead>
          <tr>
            <th scope="col">Window</th>
            <th scope="col">In-sample</th>
            <th scope="col">Out-of-sample</th>
            <th scope="col">Chosen</th>
            <th scope="col">{label} in-sample</th>
            <th scope="col">{label} out-of-sample</th>
          </tr>
        </thead>
        <tbody>
          {result.windows.map((w) => (
            <tr key={w.index} data-window={w.index}>
              <th scope="row">{w.index + 1}</th>
              <td data-label="In-sample">
                {day(w.in_sample.from)} – {day(w.in_sample.to)}
              </td>
              <td data-label="Out-of-sample">
                {day(w.out_of_sample.from)} – {day(w.out_of_sample.to)}
              </td>
              <td data-label="Chosen">
                {w.chosen ? (
                  varying.map((k) => `${ruleSpec(k).label} ${formatRuleValue(ruleSpec(k), w.chosen?.rules[k])}`).join(' · ') || 'the base settings'
                ) : (
                  <span class="muted">not yet</span>
                )}
              </td>
              <td data-label={`${label} in-sample`} class="num" data-value={w.chosen?.in_sample_metric ?? undefined}>
                {w.chosen ? formatMetric(metric, w.chosen.in_sample_metric, currency) : '—'}
              </td>
              <td data-label={`${label} out-of-sample`} class="num" data-value={w.chosen?.out_of_sample_metric ?? undefined}>
                {w.chosen?.backtest_id ? (
                  <Link href={backtestHref(w.chosen.backtest_id)}>{formatMetric(metric, w.chosen.out_of_sample_metric, currency)}</Link>
                ) : w.chosen ? (
                  formatMetric(metric, w.chosen.out_of_sample_metric, currency)
                ) : (
                  '—'
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {total && (
        <p class="wf-total">
          Out-of-sample over every window: {label} <strong>{formatMetric(metric, total.metric, currency)}</strong>
          {metric === 'net_profit' ? '' : `, net profit ${formatMoney(total.net_profit, currency)}`} from {total.trade_count} trades.
        </p>
      )}
    </>
  );
}
