/**
 * Sweeps, pure: which rule settings a sweep runs (a grid or a seeded random sample), how a
 * walk-forward splits its range, and how results rank. Running the backtests is the caller's.
 */
import { LAB_RULE_BOUNDS, LAB_SETTING_NAMES, MAX_SWEEP_SETTINGS, type RankMetric } from '@fxdesk/schemas';
import type { RuleOverrides } from '../rules.js';

export { MAX_SWEEP_SETTINGS };

type RuleApiName = keyof RuleOverrides;

/** The settings that take whole numbers (the signal rule's, the exits' and the risk's), by API name. */
const INTEGER_RULES: ReadonlySet<string> = new Set(LAB_SETTING_NAMES.filter((name) => LAB_RULE_BOUNDS[name].isInteger));

/**
 * Every combination of the grid's values (the cartesian product), in a fixed order: the first
 * rule varies slowest, the last fastest, each in the order its values are listed.
 */
export function gridSettings(grid: Partial<Record<RuleApiName, readonly number[]>>): RuleOverrides[] {
  const rules = Object.entries(grid).filter((entry): entry is [string, readonly number[]] => entry[1] !== undefined);
  if (rules.length === 0) throw new RangeError('a grid needs at least one rule');
  let count = 1;
  for (const [rule, values] of rules) {
    if (values.length === 0) throw new RangeError(`grid rule ${rule} has no values`);
    if (new Set(values).size !== values.length) throw new RangeError(`grid rule ${rule} lists a value twice`);
    count *= values.length;
  }
  if (count > MAX_SWEEP_SETTINGS) throw new RangeError(`the grid has ${count} settings, more than ${MAX_SWEEP_SETTINGS}`);
  let settings: RuleOverrides[] = [{}];
  for (const [rule, values] of rules) settings = settings.flatMap((s) => values.map((value) => ({ ...s, [rule]: value })));
  return settings;
}

export interface RuleRange {
  min: number;
  max: number;
  /** Values are min + k·step (k = 0, 1, …, up to max); without a step any value in [min, max]. */
  step?: number;
}

export interface RandomSpec {
  samples: number;
  ranges: Partial<Record<RuleApiName, RuleRange>>;
  seed: number;
}

/** Decimal places a sampled value keeps when its range has no step. */
const FREE_DECIMALS = 4;

/** How many draws a random sample makes at most per wanted setting before it gives up on distinct ones. */
const DRAWS_PER_SAMPLE = 50;

/**
 * `samples` distinct settings drawn uniformly from the ranges by a PRNG seeded with `seed`: the
 * same spec always gives the same settings. Rules that take whole numbers (RULE_BOUNDS) are
 * drawn as whole numbers when their range has no step. When the ranges hold fewer distinct settings than
 * asked (steps, whole numbers), it returns those it found.
 */
export function randomSettings(spec: RandomSpec): RuleOverrides[] {
  const { samples, seed } = spec;
  const ranges = Object.entries(spec.ranges).filter((entry): entry is [string, RuleRange] => entry[1] !== undefined);
  if (ranges.length === 0) throw new RangeError('a random sample needs at least one rule range');
  if (!Number.isInteger(samples) || samples < 1 || samples > MAX_SWEEP_SETTINGS) {
    throw new RangeError(`samples must be a whole number from 1 to ${MAX_SWEEP_SETTINGS}, got ${samples}`);
  }
  for (const [rule, range] of ranges) checkRange(rule, range);

  const random = mulberry32(seed);
  const draw = (rule: string, range: RuleRange): number => {
    if (range.step !== undefined) {
      const steps = Math.floor((range.max - range.min) / range.step + 1e-9);
      return roundTo(range.min + Math.floor(random() * (steps + 1)) * range.step, decimalsOf(range.step, range.min));
    }
    if (INTEGER_RULES.has(rule)) {
      const low = Math.ceil(range.min);
      return low + Math.floor(random() * (Math.floor(range.max) - low + 1));
    }
    return Math.min(range.max, roundTo(range.min + random() * (range.max - range.min), FREE_DECIMALS));
  };

  const seen = new Set<string>();
  const settings: RuleOverrides[] = [];
  for (let i = 0; i < samples * DRAWS_PER_SAMPLE && settings.length < samples; i++) {
    const setting: Record<string, number> = {};
    for (const [rule, range] of ranges) setting[rule] = draw(rule, range);
    const key = JSON.stringify(setting);
    if (seen.has(key)) continue;
    seen.add(key);
    settings.push(setting);
  }
  return settings;
}

function checkRange(rule: string, range: RuleRange): void {
  if (!Number.isFinite(range.min) || !Number.isFinite(range.max) || range.min > range.max) {
    throw new RangeError(`range of ${rule} needs finite min ≤ max, got ${range.min}..${range.max}`);
  }
  if (range.step !== undefined && !(Number.isFinite(range.step) && range.step > 0)) {
    throw new RangeError(`step of ${rule} must be a positive number, got ${range.step}`);
  }
}

/** Mulberry32: a small 32-bit PRNG with a good spread, the same sequence in every process for a seed. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The decimal places a value on a step's grid needs, so 0.1·3 reads 0.3. */
function decimalsOf(...numbers: number[]): number {
  return Math.max(...numbers.map((n) => (String(n).split('.')[1] ?? '').length));
}

function roundTo(value: number, decimals: number): number {
  return Number(value.toFixed(decimals));
}

/** A time range in epoch seconds, `fromSec` included, `toSec` excluded. */
export interface TimeRange {
  fromSec: number;
  toSec: number;
}

export interface WalkForwardWindow {
  /** 0, 1, …, oldest first. */
  index: number;
  /** Where the settings are chosen. */
  inSample: TimeRange;
  /** Right after it: where the chosen settings are judged. */
  outOfSample: TimeRange;
}

export interface WalkForwardSpec {
  windows: number;
  /** The share of each window that is in-sample, 0.5..0.9. */
  inSampleFraction: number;
}

/**
 * Splits [fromSec, toSec) into `windows` consecutive windows of equal length (to the second),
 * each an in-sample part of `inSampleFraction` of it followed by its out-of-sample part. The
 * windows tile the range exactly: each starts where the last ended.
 */
export function walkForwardWindows(range: TimeRange, spec: WalkForwardSpec): WalkForwardWindow[] {
  const { windows, inSampleFraction } = spec;
  if (!Number.isInteger(windows) || windows < 1) throw new RangeError(`windows must be a whole number ≥ 1, got ${windows}`);
  if (!(inSampleFraction > 0 && inSampleFraction < 1)) throw new RangeError(`in-sample fraction must lie between 0 and 1, got ${inSampleFraction}`);
  const length = range.toSec - range.fromSec;
  const boundary = (i: number) => range.fromSec + Math.floor((length * i) / windows);
  const result: WalkForwardWindow[] = [];
  for (let index = 0; index < windows; index++) {
    const fromSec = boundary(index);
    const toSec = boundary(index + 1);
    const splitSec = fromSec + Math.floor((toSec - fromSec) * inSampleFraction);
    if (splitSec <= fromSec || splitSec >= toSec) {
      throw new RangeError(`the range is too short for ${windows} windows with an in-sample fraction of ${inSampleFraction}`);
    }
    result.push({ index, inSample: { fromSec, toSec: splitSec }, outOfSample: { fromSec: splitSec, toSec } });
  }
  return result;
}

/** Metrics where less is better; every other metric ranks higher first. */
const LOWER_IS_BETTER: ReadonlySet<string> = new Set(['max_drawdown', 'max_drawdown_percent', 'longest_losing_streak']);

export function isLowerBetter(metric: string): boolean {
  return LOWER_IS_BETTER.has(metric);
}

/** A metric's value as ranking reads it: a number, or null when it has none (NaN counts as none). */
function valueOf(value: number | null | undefined): number | null {
  return typeof value === 'number' && !Number.isNaN(value) ? value : null;
}

/**
 * The items ordered best first by `metric` (higher is better, except {@link isLowerBetter}
 * metrics); items without a value come last; equal values keep the items' own order, so the
 * same results always rank the same way. Returns the items' indexes, best first.
 */
export function rankOrder(values: ReadonlyArray<number | null | undefined>, metric: string): number[] {
  const sign = isLowerBetter(metric) ? 1 : -1;
  return values
    .map((value, index) => ({ value: valueOf(value), index }))
    .sort((a, b) => {
      if (a.value === null || b.value === null) return a.value === b.value ? a.index - b.index : a.value === null ? 1 : -1;
      return sign * (a.value - b.value) || a.index - b.index;
    })
    .map((item) => item.index);
}

/** A backtest's value of the metric a sweep ranks by: a finite number, or null. */
export function metricValue(metrics: Record<RankMetric, number | null>, rankBy: RankMetric): number | null {
  const value = metrics[rankBy];
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/** Metrics whose out-of-sample total is the sum over the windows; drawdowns and streaks take the worst window. */
const ADDITIVE: ReadonlySet<string> = new Set(['net_profit', 'trade_count', 'gross_profit', 'gross_loss']);

/**
 * The out-of-sample total of a metric over the walk-forward's windows: the sum for amounts and
 * counts (net profit, trades, gross profit and loss), the worst window for drawdowns and losing
 * streaks, the mean of the windows that have a value for the ratios (Sharpe, profit factor,
 * win rate…); null when no window has one.
 */
export function outOfSampleTotal(values: ReadonlyArray<number | null | undefined>, metric: string): number | null {
  const present = values.map(valueOf).filter((v): v is number => v !== null);
  if (present.length === 0) return null;
  if (ADDITIVE.has(metric)) return present.reduce((sum, v) => sum + v, 0);
  if (LOWER_IS_BETTER.has(metric)) return Math.max(...present);
  return present.reduce((sum, v) => sum + v, 0) / present.length;
}
