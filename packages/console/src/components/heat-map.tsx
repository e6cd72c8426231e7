import type { RankMetric, SweepResult } from '@fxdesk/schemas';
import { heatAxes, heatMap, toneColour, varyingRules } from '../lab/heat-map.js';
import { formatMetric, metricLabel } from '../lab/metrics.js';
import { formatRuleValue, ruleSpec, ruleValue, type RuleKey } from '../lab/rules.js';
import { Link } from '../router.js';
import { backtestHref } from '../routes.js';
import { StatusBadge } from './signal-table.js';

interface RankingProps {
  results: SweepResult[];
  metric: RankMetric;
  currency: string;
  x: RuleKey | null;
  y: RuleKey | null;
  onAxes: (x: RuleKey, y: RuleKey) => void;
}

/** What a cell or row shows: the metric, or why there is none yet. */
function value(result: SweepResult, metric: RankMetric, currency: string): string {
  if (result.status !== 'done') return result.status;
  return formatMetric(metric, result.metric, currency);
}

/**
 * A sweep's ranking: with two rules or more varying, a heat map (two rules on the axes, the rank
 * metric as colour, each cell opening its backtest); with one, a table by its values.
 */
export function SweepRanking({ results, metric, currency, x, y, onAxes }: RankingProps) {
  const varying = varyingRules(results);
  const axes = heatAxes(varying, x, y);
  if (!axes) return <RankTable results={results} metric={metric} currency={currency} by={varying[0] ?? null} />;

  const map = heatMap(results, axes.x, axes.y, metric);
  const xLabel = ruleSpec(map.x).label;
  const yLabel = ruleSpec(map.y).label;
  const axisSelect = (which: 'x' | 'y', current: RuleKey) => (
    <label class="filter">
      {which === 'x' ? 'Across' : 'Down'}{' '}
      <select
        value={current}
        onChange={(e) => {
          const picked = e.currentTarget.value as RuleKey;
          const other = which === 'x' ? map.y : map.x;
          const swapped = picked === other ? current : other;
          if (which === 'x') onAxes(picked, swapped);
          else onAxes(swapped, picked);
        }}
      >
        {varying.map((k) => (
          <option key={k} value={k}>
            {ruleSpec(k).label}
          </option>
        ))}
      </select>
    </label>
  );
  return (
    <div class="heat">
      {varying.length > 2 && (
        <div class="controls">
          {axisSelect('x', map.x)} {axisSelect('y', map.y)}
        </div>
      )}
      {map.depth > 1 && <p class="note">Each cell shows the best of its {map.depth} settings over the other rules.</p>}
      <div class="scroll-x">
        <table class="heat-map" aria-label={`${metricLabel(metric)} by ${yLabel} and ${xLabel}`} data-x={map.x} data-y={map.y}>
          <thead>
            <tr>
              <th scope="col" class="corner">
                {yLabel} ↓ · {xLabel} →
              </th>
              {map.xs.map((xv) => (
                <th key={xv} scope="col" class="num">
                  {xv}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {map.rows.map((row, i) => (
              <tr key={map.ys[i]}>
                <th scope="row" class="num">
                  {map.ys[i]}
                </th>
                {row.map((cell) => (
                  <td key={cell.x} style={{ background: toneColour(cell.tone) }} data-tone={cell.tone === null ? undefined : cell.tone.toFixed(3)}>
                    {cell.result ? (
                      <Link
                        href={backtestHref(cell.result.backtest_id)}
                        aria-label={`${yLabel} ${cell.y}, ${xLabel} ${cell.x}: ${metricLabel(metric)} ${value(cell.result, metric, currency)}${cell.result.rank ? `, rank ${cell.result.rank}` : ''}`}
                      >
                        {value(cell.result, metric, currency)}
                      </Link>
                    ) : (
                      <span class="muted">—</span>
                    )}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p class="note">Colour: {metricLabel(metric)}, red worse, green better; each cell opens its backtest.</p>
    </div>
  );
}

/** The results in a table: by one rule's values, or (`by` null) by rank. */
export function RankTable({ results, metric, currency, by }: { results: SweepResult[]; metric: RankMetric; currency: string; by: RuleKey | null }) {
  const varying = varyingRules(results);
  const rows = by
    ? [...results].sort((a, b) => ruleValue(a.rules, by) - ruleValue(b.rules, by))
    : [...results].sort((a, b) => (a.rank ?? Infinity) - (b.rank ?? Infinity));
  return (
    <div class="scroll-x">
      <table class="grid ranking" aria-label={by ? `${metricLabel(metric)} by ${ruleSpec(by).label}` : 'Settings ranked'}>
        <thead>
          <tr>
            <th scope="col">Rank</th>
            {varying.map((k) => (
              <th key={k} scope="col" class="num">
                {ruleSpec(k).label}
              </th>
            ))}
            <th scope="col" class="num">
              {metricLabel(metric)}
            </th>
            <th scope="col">Backtest</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.backtest_id} data-backtest-id={r.backtest_id}>
              <td class="num">{r.rank ?? '—'}</td>
              {varying.map((k) => (
                <td key={k} class="num">
                  {formatRuleValue(ruleSpec(k), r.rules[k])}
                </td>
              ))}
              <td class="num">{value(r, metric, currency)}</td>
              <td>{r.status === 'done' ? <Link href={backtestHref(r.backtest_id)}>Open</Link> : <StatusBadge status={r.status} />}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
