import type { BacktestRequest, FillModelRequest, LabRuleOverrides, RankMetric, SweepGrid, SweepRequest, Timeframe } from '@fxdesk/schemas';
import { LAB_RULES, ruleProblem, type RuleKey, type RuleSpec } from './rules.js';

/**
 * The Lab page's forms as typed (text, as inputs hold it) and the requests they make: pure, so
 * what the page sends is tested without a browser. The service checks everything again (422 with
 * details); these checks only spare a round trip for what is plainly wrong.
 */

export const MAX_INSTRUMENTS = 20;
export const MAX_SETTINGS = 256;

/** The fixed lots of a run that does not size by risk (sizing by risk is the rule risk_percent). */
export type VolumeMode = 'default' | 'lots';

export interface BacktestForm {
  name: string;
  instruments: string[];
  timeframe: Timeframe;
  /** Days, `2026-01-01` (midnight UTC); `to` is exclusive. */
  from: string;
  to: string;
  /** Overrides of the live settings; an empty text keeps the strategy's own. */
  rules: Partial<Record<RuleKey, string>>;
  initialBalance: string;
  spreadPoints: string;
  slippagePoints: string;
  commissionPerLot: string;
  volumeMode: VolumeMode;
  volume: string;
}

export interface SweepForm {
  /** Values to try per rule: `8, 10, 12` or `8..14 by 2`; an empty text leaves the rule as the base has it. */
  grid: Partial<Record<RuleKey, string>>;
  rankBy: RankMetric;
  walkForward: boolean;
  windows: string;
  /** Share of each window chosen on, in percent (50 to 90). */
  inSamplePercent: string;
}

/** Something the form holds that the API would refuse: the field (its input's name) and why. */
export interface Problem {
  field: string;
  message: string;
}

export type Built<T> = { ok: true; body: T } | { ok: false; problems: Problem[] };

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** `2026-01-07` of an instant (UTC). */
export function isoDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** The same day `years` earlier (UTC; 29 February becomes 1 March). */
export function yearsBefore(day: string, years: number): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCFullYear(d.getUTCFullYear() - years);
  return isoDay(d.getTime());
}

/** A new form: the monitored pairs (at most 20) on the strategy's timeframe over the year up to today. */
export function defaultBacktestForm(instruments: string[], timeframe: Timeframe, nowMs: number): BacktestForm {
  const to = isoDay(nowMs);
  return {
    name: '',
    instruments: instruments.slice(0, MAX_INSTRUMENTS),
    timeframe,
    from: yearsBefore(to, 1),
    to,
    rules: {},
    initialBalance: '',
    spreadPoints: '',
    slippagePoints: '',
    commissionPerLot: '',
    volumeMode: 'default',
    volume: '',
  };
}

export function defaultSweepForm(): SweepForm {
  return { grid: {}, rankBy: 'net_profit', walkForward: false, windows: '4', inSamplePercent: '70' };
}

/** A number typed in a field; null when the field is empty, NaN when it holds no number. */
function numberOf(text: string | undefined): number | null {
  const trimmed = (text ?? '').trim();
  return trimmed === '' ? null : Number(trimmed);
}

/** A real calendar day written `2026-01-07` (not 2026-02-30). */
function isDay(text: string): boolean {
  if (!DAY.test(text)) return false;
  const ms = Date.parse(`${text}T00:00:00Z`);
  return Number.isFinite(ms) && isoDay(ms) === text;
}

/** A field's number within [min, max] (above min when `exclusiveMin`); null when the field is empty. */
function checked(problems: Problem[], field: string, label: string, text: string, min: number, max: number, exclusiveMin = false): number | null {
  const value = numberOf(text);
  if (value === null) return null;
  if (!Number.isFinite(value)) problems.push({ field, message: `${label}: not a number` });
  else if (value > max || value < min || (exclusiveMin && value === min))
    problems.push({ field, message: `${label}: ${exclusiveMin ? 'above' : 'at least'} ${min} and at most ${max}` });
  return value;
}

function overridesOf(form: BacktestForm, problems: Problem[]): LabRuleOverrides {
  const rules: LabRuleOverrides = {};
  for (const rule of LAB_RULES) {
    const value = numberOf(form.rules[rule.key]);
    if (value === null) continue;
    const problem = ruleProblem(rule, value);
    if (problem) problems.push({ field: `rules.${rule.key}`, message: problem });
    else rules[rule.key] = value;
  }
  return rules;
}

function fillModelOf(form: BacktestForm, problems: Problem[]): FillModelRequest {
  const fill: FillModelRequest = {};
  const spread = checked(problems, 'spreadPoints', 'Spread', form.spreadPoints, 0, 100_000);
  if (spread !== null) fill.spread_points = spread;
  const slippage = checked(problems, 'slippagePoints', 'Slippage', form.slippagePoints, 0, 100_000);
  if (slippage !== null) fill.slippage_points = slippage;
  const commission = checked(problems, 'commissionPerLot', 'Commission', form.commissionPerLot, 0, 100_000);
  if (commission !== null) fill.commission_per_lot = commission;
  if (form.volumeMode === 'lots') {
    const lots = checked(problems, 'volume', 'Lots', form.volume, 0.01, 100);
    if (lots === null) problems.push({ field: 'volume', message: 'Lots: give the lots per trade' });
    else fill.volume = { lots };
  }
  return fill;
}

function baseOf(form: BacktestForm, nowMs: number, problems: Problem[]): BacktestRequest {
  if (form.instruments.length === 0) problems.push({ field: 'instruments', message: 'Pick at least one pair' });
  if (form.instruments.length > MAX_INSTRUMENTS) problems.push({ field: 'instruments', message: `At most ${MAX_INSTRUMENTS} pairs` });
  const fromOk = isDay(form.from);
  const toOk = isDay(form.to);
  if (!fromOk) problems.push({ field: 'from', message: 'From: a date like 2026-01-01' });
  if (!toOk) problems.push({ field: 'to', message: 'To: a date like 2026-06-30' });
  if (fromOk && toOk && form.from >= form.to) problems.push({ field: 'to', message: 'To: after From' });
  if (toOk && Date.parse(`${form.to}T00:00:00Z`) > nowMs) problems.push({ field: 'to', message: 'To: not in the future' });

  const body: BacktestRequest = { instruments: form.instruments, timeframe: form.timeframe, from: form.from, to: form.to };
  const rules = overridesOf(form, problems);
  if (Object.keys(rules).length > 0) body.rules = rules;
  const balance = checked(problems, 'initialBalance', 'Initial balance', form.initialBalance, 0, 1e12, true);
  if (balance !== null) body.initial_balance = balance;
  const fill = fillModelOf(form, problems);
  if (Object.keys(fill).length > 0) body.fill_model = fill;
  const name = form.name.trim().slice(0, 100);
  if (name) body.name = name;
  return body;
}

/** POST /backtests's body from the form, or what is wrong with it. */
export function backtestRequest(form: BacktestForm, nowMs: number): Built<BacktestRequest> {
  const problems: Problem[] = [];
  const body = baseOf(form, nowMs, problems);
  return problems.length > 0 ? { ok: false, problems } : { ok: true, body };
}

/** Rounds away binary noise of repeated steps (0.1 + 0.2), well below any setting's precision. */
function clean(value: number): number {
  return Number(value.toFixed(9));
}

/**
 * The values a grid field names: numbers separated by commas, each part a number or a range
 * `from..to by step` (both ends included). Sorted, without repeats; a text for what is wrong.
 */
export function gridValues(rule: RuleSpec, text: string): number[] | string {
  const values = new Set<number>();
  for (const part of text.split(',').map((p) => p.trim())) {
    if (part === '') continue;
    const range = /^(\S+)\s*\.\.\s*(\S+?)(?:\s+by\s+(\S+))?$/.exec(part);
    if (range) {
      const [from, to, step] = [Number(range[1]), Number(range[2]), Number(range[3] ?? (rule.isInteger ? 1 : NaN))];
      if (![from, to, step].every(Number.isFinite) || step <= 0) return `${rule.label}: a range reads like 8..14 by 2`;
      if (to < from) return `${rule.label}: a range goes up (${part})`;
      if ((to - from) / step >= MAX_SETTINGS) return `${rule.label}: ${part} holds more than ${MAX_SETTINGS} values`;
      for (let k = 0; clean(from + k * step) <= to; k++) values.add(clean(from + k * step));
      continue;
    }
    const value = Number(part);
    if (!Number.isFinite(value)) return `${rule.label}: ${JSON.stringify(part)} is not a number`;
    values.add(value);
  }
  for (const value of values) {
    const problem = ruleProblem(rule, value);
    if (problem) return problem;
  }
  return [...values].sort((a, b) => a - b);
}

/** The grid a sweep form names and how many settings it makes (the product of its lists). */
export function gridOf(form: SweepForm): { grid: SweepGrid; count: number; problems: Problem[] } {
  const grid: SweepGrid = {};
  const problems: Problem[] = [];
  let count = 1;
  for (const rule of LAB_RULES) {
    const text = form.grid[rule.key] ?? '';
    if (text.trim() === '') continue;
    const values = gridValues(rule, text);
    if (typeof values === 'string') {
      problems.push({ field: `grid.${rule.key}`, message: values });
      continue;
    }
    grid[rule.key] = values;
    count *= values.length;
  }
  if (Object.keys(grid).length === 0 && problems.length === 0) {
    problems.push({ field: 'grid', message: 'Give the values to try of at least one rule' });
    count = 0;
  }
  return { grid, count, problems };
}

/** POST /sweeps's body: the backtest form as its base, the grid, the rank metric and the walk-forward. */
export function sweepRequest(form: BacktestForm, sweep: SweepForm, nowMs: number): Built<SweepRequest> {
  const problems: Problem[] = [];
  const base = baseOf(form, nowMs, problems);
  const { grid, count, problems: gridProblems } = gridOf(sweep);
  problems.push(...gridProblems);
  if (count > MAX_SETTINGS) problems.push({ field: 'grid', message: `${count} settings: at most ${MAX_SETTINGS}` });
  const { name, ...rest } = base;
  const body: SweepRequest = { base: rest, grid, rank_by: sweep.rankBy };
  if (name) body.name = name;
  if (sweep.walkForward) {
    const windows = checked(problems, 'windows', 'Windows', sweep.windows, 1, 20);
    const percent = checked(problems, 'inSamplePercent', 'In-sample share', sweep.inSamplePercent, 50, 90);
    if (windows !== null && !Number.isInteger(windows)) problems.push({ field: 'windows', message: 'Windows: a whole number' });
    if (windows === null || percent === null) problems.push({ field: 'windows', message: 'Walk-forward: give the windows and the in-sample share' });
    else body.walk_forward = { windows, in_sample_fraction: clean(percent / 100) };
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, body };
}
