import { LAB_EXIT_RULE_NAMES, LAB_RISK_RULE_NAMES, LAB_RULE_BOUNDS, LAB_SETTING_NAMES, type LabRules, type LabSettingName } from '@fxdesk/schemas';

/** A setting a backtest's `rules` and a sweep take: the signal rule's, the exit rules', then the risk's. */
export type RuleKey = LabSettingName;

export interface RuleSpec {
  key: RuleKey;
  label: string;
  min: number;
  max: number;
  isInteger: boolean;
  /** An exit rule: 0 turns it off, and a run's settings leave it out when it is off. */
  isExit: boolean;
  /** A risk rule (sizing by risk, the limits): 0 turns it off too, and a run's settings leave it out then. */
  isRisk: boolean;
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
  risk_percent: 'Risk per trade (% of equity)',
  one_position_per_pair: 'One position per pair',
  max_open_trades: 'Max open trades',
  max_currency_exposure_lots: 'Max exposure per currency (lots)',
  daily_loss_limit: 'Daily loss limit (%)',
  max_drawdown: 'Max drawdown (%)',
  cooldown_losses: 'Cooldown after losses in a row',
  cooldown_candles: 'Cooldown (candles)',
};

const isIn = (names: readonly string[], key: string) => names.includes(key);

/** Every setting a backtest or a sweep may override, in the contract's order, with the bounds the API accepts (the contract's own). */
export const LAB_RULES: readonly RuleSpec[] = LAB_SETTING_NAMES.map((key) => {
  const { min, max, isInteger } = LAB_RULE_BOUNDS[key];
  return { key, label: LABELS[key], min, max, isInteger, isExit: isIn(LAB_EXIT_RULE_NAMES, key), isRisk: isIn(LAB_RISK_RULE_NAMES, key) };
});

/** The signal rule's settings; the exit rules (break-even, trailing stops, time exit, exit on the opposite signal); the risk's. */
export const SIGNAL_RULES: readonly RuleSpec[] = LAB_RULES.filter((r) => !r.isExit && !r.isRisk);
export const EXIT_RULES: readonly RuleSpec[] = LAB_RULES.filter((r) => r.isExit);
/**
 * Sizing by risk and the limits (issue 24). One position per pair is left out: the lab holds one
 * per pair always (the API takes 1 only).
 */
export const RISK_RULES: readonly RuleSpec[] = LAB_RULES.filter((r) => r.isRisk && r.key !== 'one_position_per_pair');

export const RULE_KEYS: readonly RuleKey[] = LAB_RULES.map((r) => r.key);

export function ruleSpec(key: RuleKey): RuleSpec {
  return LAB_RULES.find((r) => r.key === key) as RuleSpec;
}

export function isRuleKey(value: string | null | undefined): value is RuleKey {
  return RULE_KEYS.some((k) => k === value);
}

/** A setting's value in a run's complete rules: an exit or risk rule left out is off (0); one position per pair is always 1. */
export function ruleValue(rules: LabRules, key: RuleKey): number {
  return rules[key] ?? (key === 'one_position_per_pair' ? 1 : 0);
}

/** A setting's value as a page writes it: an exit or risk rule at 0 is "off", the opposite-signal exit "on" or "off"; risk_percent 0 is fixed lots. */
export function formatRuleValue(rule: RuleSpec, value: number | undefined): string {
  if (rule.key === 'one_position_per_pair') return 'on';
  if (rule.key === 'risk_percent' && !value) return 'fixed lots';
  if ((rule.isExit || rule.isRisk) && !value) return 'off';
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
