import { LAB_RULE_BOUNDS, LAB_RULE_NAMES } from '@fxdesk/schemas';
import { describe, expect, it } from 'vitest';
import { LAB_RULES, ruleProblem, ruleSpec } from '../src/lab/rules.js';

describe('the rule settings the Lab page offers', () => {
  it('are the contract’s, in its order, with its bounds', () => {
    expect(LAB_RULES.map((r) => r.key)).toEqual([...LAB_RULE_NAMES]);
    for (const rule of LAB_RULES) {
      const { min, max, isInteger } = LAB_RULE_BOUNDS[rule.key];
      expect({ key: rule.key, min: rule.min, max: rule.max, isInteger: rule.isInteger }).toEqual({ key: rule.key, min, max, isInteger });
    }
  });

  it('refuses a value out of bounds, a fraction of a whole-number setting and a non-number', () => {
    expect(ruleProblem(ruleSpec('min_confluence'), 5)).toBe('Minimum confluence: between 1 and 4');
    expect(ruleProblem(ruleSpec('supertrend_atr_period'), 10.5)).toBe('Supertrend ATR period: a whole number');
    expect(ruleProblem(ruleSpec('risk_reward'), Number.NaN)).toBe('Risk / reward: not a number');
    expect(ruleProblem(ruleSpec('min_stop_atr'), 0)).toBeNull();
    expect(ruleProblem(ruleSpec('supertrend_multiplier'), 2.5)).toBeNull();
  });
});
