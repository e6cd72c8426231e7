import { LAB_RULE_BOUNDS, LAB_RULE_NAMES, type LabRuleName } from '@fxdesk/schemas';

export type RuleKey = LabRuleName;

export interface RuleSpec {
  key: RuleKey;
  label: string;
  min: number;
  max: number;
  isInteger: boolean;
}

const LABELS: Record<RuleKey, string> = {
  supertrend_atr_period: 'Supertrend ATR period',
  supertrend_multiplier: 'Supertrend multiplier',
  volume_profile_window: 'Volume profile window',
  min_confluence: 'Minimum confluence',
  risk_reward: 'Risk / reward',
  min_stop_atr: 'Minimum stop (ATR)',
  fvg_max_age: 'Fair value gap max age',
};

/** The rule settings a backtest or a sweep may override, in the contract's order, with the bounds the API accepts (the contract's own). */
export const LAB_RULES: readonly RuleSpec[] = LAB_RULE_NAMES.map((key) => {
  const { min, max, isInteger } = LAB_RULE_BOUNDS[key];
  return { key, label: LABELS[key], min, max, isInteger };
});

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
