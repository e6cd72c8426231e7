import type { RankMetric, SweepResult } from '@fxdesk/schemas';
import { isLowerBetter, metricPivot } from './metrics.js';
import { RULE_KEYS, ruleValue, type RuleKey } from './rules.js';

/**
 * A sweep's ranking as a heat map: two rules on the axes, the rank metric as colour. Pure, so the
 * grid the page draws is tested without a browser.
 */

/** The rules whose value differs between the results, in the contract's order. */
export function varyingRules(results: readonly SweepResult[]): RuleKey[] {
  return RULE_KEYS.filter((key) => new Set(results.map((r) => ruleValue(r.rules, key))).size > 1);
}

/** Whether result `a` ranks before `b` by `metric`: the better value first, a null last, else the service's rank. */
export function isBetter(a: SweepResult, b: SweepResult, metric: RankMetric): boolean {
  if (a.metric !== null && b.metric !== null && a.metric !== b.metric) return isLowerBetter(metric) ? a.metric < b.metric : a.metric > b.metric;
  if ((a.metric === null) !== (b.metric === null)) return a.metric !== null;
  return (a.rank ?? Infinity) < (b.rank ?? Infinity);
}

export interface HeatCell {
  x: number;
  y: number;
  /** The best result with these two values (over the other rules, when more vary); null when the sweep has none. */
  result: SweepResult | null;
  /** How many results share the cell. */
  settings: number;
  /** 0 worst to 1 best, 0.5 where the metric turns from bad to good; null without a value. */
  tone: number | null;
}

export interface HeatMap {
  x: RuleKey;
  y: RuleKey;
  /** The x axis left to right (ascending). */
  xs: number[];
  /** The y axis top to bottom (descending, as a chart's). */
  ys: number[];
  /** One row per y, one cell per x. */
  rows: HeatCell[][];
  /** The most results one cell holds: above 1, each cell shows the best over the other rules. */
  depth: number;
}

/**
 * Maps values to tones. Metrics with a point where bad turns good (a profit of 0, a profit
 * factor of 1) diverge from it: values below it spread over 0–0.45 (reds), values above it over
 * 0.55–1 (greens), each side from its worst to its best value, so settings that all lose still
 * read apart. The others spread linearly from the worst (0) to the best (1).
 */
export function toneScale(values: readonly number[], metric: RankMetric): (value: number) => number {
  if (values.length === 0) return () => 0.5;
  const min = Math.min(...values);
  const max = Math.max(...values);
  const pivot = metricPivot(metric);
  if (pivot !== null) {
    const top = Math.min(max, pivot);
    const bottom = Math.max(min, pivot);
    return (v) => {
      if (v === pivot) return 0.5;
      if (v < pivot) return top === min ? 0.25 : (0.45 * (v - min)) / (top - min);
      return max === bottom ? 0.75 : 0.55 + (0.45 * (v - bottom)) / (max - bottom);
    };
  }
  if (max === min) return () => 0.5;
  return (v) => (isLowerBetter(metric) ? (max - v) / (max - min) : (v - min) / (max - min));
}

/** The heat map of `results` over rules `x` and `y`, ranked by `metric`. */
export function heatMap(results: readonly SweepResult[], x: RuleKey, y: RuleKey, metric: RankMetric): HeatMap {
  const xs = [...new Set(results.map((r) => ruleValue(r.rules, x)))].sort((a, b) => a - b);
  const ys = [...new Set(results.map((r) => ruleValue(r.rules, y)))].sort((a, b) => b - a);
  const groups = new Map<string, SweepResult[]>();
  for (const r of results) {
    const key = `${ruleValue(r.rules, x)}|${ruleValue(r.rules, y)}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  const best = (group: SweepResult[]) => group.reduce((b, r) => (isBetter(r, b, metric) ? r : b));
  const shown = [...groups.values()].map(best);
  const tone = toneScale(
    shown.flatMap((r) => (r.metric === null ? [] : [r.metric])),
    metric,
  );
  const rows = ys.map((yv) =>
    xs.map((xv): HeatCell => {
      const group = groups.get(`${xv}|${yv}`) ?? [];
      const result = group.length > 0 ? best(group) : null;
      return { x: xv, y: yv, result, settings: group.length, tone: result?.metric === null || !result ? null : tone(result.metric) };
    }),
  );
  return { x, y, xs, ys, rows, depth: Math.max(0, ...[...groups.values()].map((g) => g.length)) };
}

/** The axes the heat map uses: the ones asked for when they vary, else the first two varying rules. */
export function heatAxes(varying: readonly RuleKey[], x: RuleKey | null, y: RuleKey | null): { x: RuleKey; y: RuleKey } | null {
  if (varying.length < 2) return null;
  const pickX = x && varying.includes(x) ? x : (varying.find((k) => k !== y) as RuleKey);
  const pickY = y && varying.includes(y) && y !== pickX ? y : (varying.find((k) => k !== pickX) as RuleKey);
  return { x: pickX, y: pickY };
}

/** A cell's background: red below the pivot, green above, stronger further from it; grey without a value. */
export function toneColour(tone: number | null): string {
  if (tone === null) return 'transparent';
  const strength = Math.min(1, Math.abs(tone - 0.5) * 2);
  const alpha = (0.12 + 0.78 * strength).toFixed(2);
  return tone >= 0.5 ? `rgba(38, 166, 154, ${alpha})` : `rgba(239, 83, 80, ${alpha})`;
}
