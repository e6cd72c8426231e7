import { describe, expect, it } from 'vitest';
import { LAB_RULE_BOUNDS, LAB_SETTING_NAMES } from '@fxdesk/schemas';
import { EXIT_RULES, formatRuleValue, LAB_RULES, RISK_RULES, ruleProblem, ruleSpec, ruleValue } from '../src/lab/rules.js';
import { LIVE_RULES } from './fixtures.js';

describe('the rule settings the Lab page offers', () => {
  it('refuses a value out of bounds, a fraction of a whole-number setting and a non-number', () => {
    expect(ruleProblem(ruleSpec('min_confluence'), 5)).toBe('Minimum confluence: between 1 and 4');
    expect(ruleProblem(ruleSpec('supertrend_atr_period'), 10.5)).toBe('Supertrend ATR period: a whole number');
    expect(ruleProblem(ruleSpec('risk_reward'), Number.NaN)).toBe('Risk / reward: not a number');
    expect(ruleProblem(ruleSpec('min_stop_atr'), 0)).toBeNull();
    expect(ruleProblem(ruleSpec('supertrend_multiplier'), 2.5)).toBeNull();
  });

  it('offers every setting the API takes, the exit rules with their contract bounds', () => {
    expect(LAB_RULES.map((r) => r.key)).toEqual([...LAB_SETTING_NAMES]);
    expect(EXIT_RULES.map((r) => [r.key, r.min, r.max, r.isInteger])).toEqual(
      ['break_even_r', 'trailing_stop_atr', 'trailing_stop_r', 'time_exit_candles', 'exit_on_opposite_signal'].map((key) => {
        const { min, max, isInteger } = LAB_RULE_BOUNDS[key as keyof typeof LAB_RULE_BOUNDS];
        return [key, min, max, isInteger];
      }),
    );
  });

  it('reads an exit rule a run leaves out as off', () => {
    expect(ruleValue(LIVE_RULES, 'time_exit_candles')).toBe(0);
    expect(ruleValue({ ...LIVE_RULES, time_exit_candles: 12 }, 'time_exit_candles')).toBe(12);
    expect(formatRuleValue(ruleSpec('break_even_r'), undefined)).toBe('off');
    expect(formatRuleValue(ruleSpec('break_even_r'), 1.5)).toBe('1.5');
    expect(formatRuleValue(ruleSpec('exit_on_opposite_signal'), 1)).toBe('on');
    expect(formatRuleValue(ruleSpec('min_stop_atr'), 0)).toBe('0');
  });

  it('offers the risk settings with their contract bounds, one position per pair left out (the lab takes 1 only)', () => {
    expect(RISK_RULES.map((r) => [r.key, r.min, r.max, r.isInteger])).toEqual(
      ['risk_percent', 'max_open_trades', 'max_currency_exposure_lots', 'daily_loss_limit', 'max_drawdown', 'cooldown_losses', 'cooldown_candles'].map(
        (key) => {
          const { min, max, isInteger } = LAB_RULE_BOUNDS[key as keyof typeof LAB_RULE_BOUNDS];
          return [key, min, max, isInteger];
        },
      ),
    );
  });

  it('reads a risk rule a run leaves out as off, sizing by fixed lots and one position per pair', () => {
    expect(ruleValue(LIVE_RULES, 'max_open_trades')).toBe(0);
    expect(ruleValue(LIVE_RULES, 'one_position_per_pair')).toBe(1);
    expect(formatRuleValue(ruleSpec('risk_percent'), undefined)).toBe('fixed lots');
    expect(formatRuleValue(ruleSpec('risk_percent'), 0.5)).toBe('0.5');
    expect(formatRuleValue(ruleSpec('daily_loss_limit'), undefined)).toBe('off');
    expect(formatRuleValue(ruleSpec('one_position_per_pair'), undefined)).toBe('on');
  });
});
