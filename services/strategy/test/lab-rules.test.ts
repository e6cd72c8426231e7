import { loadConfig } from '@fxdesk/core';
import { describe, expect, it } from 'vitest';
import { StrategyConfigSchema } from '../src/config.js';
import { RISK_BOUNDS } from '../src/risk-settings.js';
import {
  apiRules,
  EXIT_RULE_BOUNDS,
  EXIT_RULE_NAMES,
  RISK_RULE_BOUNDS,
  RISK_RULE_NAMES,
  RULE_BOUNDS,
  RULE_NAMES,
  ruleBoundIssues,
  rulesOf,
  strategyRules,
  withOverrides,
} from '../src/rules.js';

const config = (env: Record<string, string> = {}) => loadConfig(StrategyConfigSchema, { LOG_LEVEL: 'silent', ...env });

describe('the strategy rules', () => {
  it('are the config’s rule settings', () => {
    expect(rulesOf(config({ SUPERTREND_ATR_PERIOD: '7', RISK_REWARD: '1.5' }))).toEqual({
      supertrendAtrPeriod: 7,
      supertrendMultiplier: 3,
      volumeProfileWindow: 100,
      minConfluence: 3,
      riskReward: 1.5,
      minStopAtr: 0.5,
      fvgMaxAge: 100,
    });
  });

  it('bound the config with RULE_BOUNDS: each minimum and maximum is accepted, one step beyond is refused', () => {
    for (const name of RULE_NAMES) {
      const { min, max, isInteger, env } = RULE_BOUNDS[name];
      const step = isInteger ? 1 : 0.01;
      // The warm-up must hold the volume profile's window and a gap's FVG_MAX_AGE + 2 candles.
      const window: Record<string, string> = name === 'volumeProfileWindow' || name === 'fvgMaxAge' ? { WARMUP_CANDLES: '1000' } : {};
      expect(rulesOf(config({ ...window, [env]: String(min) }))[name]).toBe(min);
      expect(rulesOf(config({ ...window, [env]: String(max) }))[name]).toBe(max);
      expect(() => config({ ...window, [env]: String(max + step) })).toThrow(env);
      if (min - step >= 0) expect(() => config({ ...window, [env]: String(min - step) })).toThrow(env);
    }
  });

  it('take overrides in the API’s names and report what is out of bounds by those names', () => {
    const rules = withOverrides(rulesOf(config()), { supertrend_multiplier: 2.5, min_confluence: 5 });
    expect(rules).toMatchObject({ supertrendMultiplier: 2.5, minConfluence: 5, supertrendAtrPeriod: 10 });
    expect(ruleBoundIssues(rules)).toEqual([{ name: 'min_confluence', message: 'must be an integer from 1 to 4, got 5' }]);
    expect(ruleBoundIssues({ ...rules, minConfluence: 2, supertrendAtrPeriod: 2.5 }).map((i) => i.name)).toEqual(['supertrend_atr_period']);
  });

  it('bound the exit settings with EXIT_RULE_BOUNDS, each off at 0 (false) and absent from the rules then', () => {
    for (const name of EXIT_RULE_NAMES) {
      const { max, isInteger, env } = EXIT_RULE_BOUNDS[name];
      const value = (v: number) => (env === 'EXIT_ON_OPPOSITE_SIGNAL' ? (v === 1 ? 'true' : 'false') : String(v));
      expect(rulesOf(config({ [env]: value(max) }))[name]).toBe(max);
      expect(rulesOf(config({ [env]: value(0) }))).not.toHaveProperty(name);
      if (env !== 'EXIT_ON_OPPOSITE_SIGNAL') expect(() => config({ [env]: String(max + (isInteger ? 1 : 0.01)) })).toThrow(env);
      expect(() => config({ [env]: '-1' })).toThrow(env);
    }
  });

  it('take exit overrides in the API’s names, listed there only when on, and read back the same', () => {
    const rules = withOverrides(rulesOf(config({ TIME_EXIT_CANDLES: '12' })), { break_even_r: 1.5, time_exit_candles: 0 });
    expect(rules).toMatchObject({ breakEvenR: 1.5 });
    expect(rules).not.toHaveProperty('timeExitCandles');
    expect(apiRules(rules)).toMatchObject({ break_even_r: 1.5 });
    expect(apiRules(rules)).not.toHaveProperty('time_exit_candles');
    expect(strategyRules(apiRules(rules))).toEqual(rules);
    expect(ruleBoundIssues({ ...rules, trailingStopR: 21 }).map((i) => i.name)).toEqual(['trailing_stop_r']);
  });

  it('bound the risk settings in the lab as the config does (RISK_BOUNDS), 0 off and RISK_PERCENT 0 fixed lots', () => {
    for (const name of RISK_RULE_NAMES) {
      const { min, max } = RISK_RULE_BOUNDS[name];
      expect(max).toBe(RISK_BOUNDS[name].max);
      // RISK_PERCENT's least is 0.01 under SIZING=risk; the lab's 0 is SIZING=fixed.
      expect(min).toBe(name === 'riskPercent' ? 0 : RISK_BOUNDS[name].min);
    }
  });

  it('take the config’s risk settings, each listed only when on, the cooldown only with both of its settings', () => {
    expect(rulesOf(config())).not.toHaveProperty('riskPercent');
    const rules = rulesOf(config({ SIZING: 'risk', RISK_PERCENT: '0.5', MAX_OPEN_TRADES: '3', DAILY_LOSS_LIMIT: '2', COOLDOWN_LOSSES: '2' }));
    expect(rules).toMatchObject({ riskPercent: 0.5, maxOpenTrades: 3, dailyLossLimitPercent: 2 });
    expect(rules).not.toHaveProperty('cooldownLosses');
    expect(apiRules(rules)).toMatchObject({ risk_percent: 0.5, max_open_trades: 3, daily_loss_limit: 2 });
    const off = withOverrides(rules, { max_open_trades: 0, max_drawdown: 10 });
    expect(off).not.toHaveProperty('maxOpenTrades');
    expect(strategyRules(apiRules(off))).toEqual(off);
    expect(ruleBoundIssues({ ...off, riskPercent: 11 }).map((i) => i.name)).toEqual(['risk_percent']);
  });
});
