import { describe, expect, it } from 'vitest';
import { ruleProblem, ruleSpec } from '../src/lab/rules.js';

describe('the rule settings the Lab page offers', () => {
  it('refuses a value out of bounds, a fraction of a whole-number setting and a non-number', () => {
    expect(ruleProblem(ruleSpec('min_confluence'), 5)).toBe('Minimum confluence: between 1 and 4');
    expect(ruleProblem(ruleSpec('supertrend_atr_period'), 10.5)).toBe('Supertrend ATR period: a whole number');
    expect(ruleProblem(ruleSpec('risk_reward'), Number.NaN)).toBe('Risk / reward: not a number');
    expect(ruleProblem(ruleSpec('min_stop_atr'), 0)).toBeNull();
    expect(ruleProblem(ruleSpec('supertrend_multiplier'), 2.5)).toBeNull();
  });
});
