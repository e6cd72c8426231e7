import type { LabRuleName } from '@fxdesk/schemas';

export type RuleKey = LabRuleName;

export interface RuleSpec {
  key: RuleKey;
  label: string;
  min: number;
  max: number;
  isInteger: boolean;
}

/**
 * The rule settings a backtest or a sweep may override, in the contract's order, with the bounds
 * the API accepts. The contract's LAB_RULE_BOUNDS is a value of the schema package, which would
 * bring the schema library (130 KB) into the page: the bounds are written here and
 * test/lab-rules.test.ts holds them equal to the contract's.
 */
export const LAB_RULES: readonly RuleSpec[] = [
  { key: 'supertrend_atr_period', label: 'Supertrend ATR period', min: 1, max: 500, isInteger: true },
  { key: 'supertrend_multiplier', label: 'Supertrend multiplier', min: 0.1, max: 20, isInteger: false },
  { key: 'volume_profile_window', label: 'Volume profile window', min: 2, max: 1000, isInteger: true },
  { key: 'min_confluence', label: 'Minimum confluence', min: 1, max: 4, isInteger: true },
  { key: 'risk_reward', label: 'Risk / reward', min: 0.1, max: 20, isInteger: false },
  { key: 'min_stop_atr', label: 'Minimum stop (ATR)', min: 0, max: 20, isInteger: false },
  { key: 'fvg_max_age', label: 'Fair value gap max age', min: 1, max: 998, isInteger: true },
];

export const RULE_KEYS: readonly RuleKey[] = LAB_RULES.map((r) => r.key);

export function ruleSpec(key: RuleKey): RuleSpec {
  return LAB_RULES.find((r) => r.key === key) as RuleSpec;
}

export function isRuleKey(value: string | null | undefined): value is RuleKey {
  return RULE_KEYS.some((k) => k === value);
}

/** Why `value` is not a setting of `rule`, or null when it is one. */
export function ruleProblem(rule: RuleSpec, value: number): string | null {
  if (!Number.isFinite(value)) return `${rule.label}: not a number`;
  if (rule.isInteger && !Number.isInteger(value)) return `${rule.label}: a whole number`;
  if (value < rule.min || value > rule.max) return `${rule.label}: between ${rule.min} and ${rule.max}`;
  return null;
}
