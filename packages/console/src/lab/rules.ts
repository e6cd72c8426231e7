import { LAB_EXIT_RULE_NAMES, LAB_RULE_BOUNDS, LAB_SETTING_NAMES, type LabRules, type LabSettingName } from '@fxdesk/schemas';

/** A setting a backtest's `rules` and a sweep take: the signal rule's, then the exit rules'. */
export type RuleKey = LabSettingName;

export interface RuleSpec {
  key: RuleKey;
  label: string;
  min: number;
  max: number;
  isInteger: boolean;
  /** An exit rule: 0 turns it off, and a run's settings leave it out when it is off. */
  isExit: boolean;
}

const LABELS: Record<RuleKey, string> = {
  supertrend_atr_period: 'Supertrend ATR period',
  supertrend_multiplier: 'Supertrend multiplier',
  volume_profile_window: 'Volume profile window',
  min_confluence: 'Minimum confluence',
  risk_reward: 'Risk / reward',
  min_stop_atr: 'Minimum stop (ATR)',
  fvg_max_age: 'Fair value gap max age',
  break_even_r: 'Break-even at (R)',
  trailing_stop_atr: 'Trailing stop (ATR)',
  trailing_stop_r: 'Trailing stop (R)',
  time_exit_candles: 'Time exit (candles)',
  exit_on_opposite_signal: 'Exit on opposite signal',
};

/** Every setting a backtest or a sweep may override, in the contract's order, with the bounds the API accepts (the contract's own). */
export const LAB_RULES: readonly RuleSpec[] = LAB_SETTING_NAMES.map((key) => {
  const { min, max, isInteger } = LAB_RULE_BOUNDS[key];
  return { key, label: LABELS[key], min, max, isInteger, isExit: (LAB_EXIT_RULE_NAMES as readonly string[]).includes(key) };
});

/** The signal rule's settings; then the exit rules (break-even, trailing stops, time exit, exit on the opposite signal). */
export const SIGNAL_RULES: readonly RuleSpec[] = LAB_RULES.filter((r) => !r.isExit);
export const EXIT_RULES: readonly RuleSpec[] = LAB_RULES.filter((r) => r.isExit);

export const RULE_KEYS: readonly RuleKey[] = LAB_RULES.map((r) => r.key);

export function ruleSpec(key: RuleKey): RuleSpec {
  return LAB_RULES.find((r) => r.key === key) as RuleSpec;
}

export function isRuleKey(value: string | null | undefined): value is RuleKey {
  return RULE_KEYS.some((k) => k === value);
}

/** A setting's value in a run's complete rules: an exit rule left out is off (0). */
export function ruleValue(rules: LabRules, key: RuleKey): number {
  return rules[key] ?? 0;
}

/** A setting's value as a page writes it: an exit rule at 0 is "off", the opposite-signal exit "on" or "off". */
export function formatRuleValue(rule: RuleSpec, value: number | undefined): string {
  if (rule.isExit && !value) return 'off';
  if (rule.key === 'exit_on_opposite_signal') return 'on';
  return String(value);
}

/** Why `value` is not a setting of `rule`, or null when it is one. */
export function ruleProblem(rule: RuleSpec, value: number): string | null {
  if (!Number.isFinite(value)) return `${rule.label}: not a number`;
  if (rule.isInteger && !Number.isInteger(value)) return `${rule.label}: a whole number`;
  if (value < rule.min || value > rule.max) return `${rule.label}: between ${rule.min} and ${rule.max}`;
  return null;
}
