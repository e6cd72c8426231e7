import type { StrategyConfig } from './config.js';

/**
 * The settings of the signal rule and of the indicators it reads: what the live engine runs
 * with (from its config, {@link rulesOf}) and what a backtest may override.
 */
export interface StrategyRules {
  /** ATR period of the Supertrend (SUPERTREND_ATR_PERIOD). */
  supertrendAtrPeriod: number;
  /** Band multiplier of the Supertrend (SUPERTREND_MULTIPLIER). */
  supertrendMultiplier: number;
  /** Candles in the volume profile's rolling window (VOLUME_PROFILE_WINDOW). */
  volumeProfileWindow: number;
  /** Aligned indicators a signal needs, 1..4 (MIN_CONFLUENCE). */
  minConfluence: number;
  /** Take profit distance as a multiple of the risk (RISK_REWARD). */
  riskReward: number;
  /** Smallest stop distance in ATRs of the Supertrend's ATR (MIN_STOP_ATR). */
  minStopAtr: number;
}

export type RuleName = keyof StrategyRules;

export interface RuleBound {
  min: number;
  max: number;
  /** Whole numbers only. */
  isInteger: boolean;
  /** The setting's name in the environment (config.ts). */
  env: 'SUPERTREND_ATR_PERIOD' | 'SUPERTREND_MULTIPLIER' | 'VOLUME_PROFILE_WINDOW' | 'MIN_CONFLUENCE' | 'RISK_REWARD' | 'MIN_STOP_ATR';
  /** The setting's name in the lab's API (a backtest's `rules` overrides). */
  api: 'supertrend_atr_period' | 'supertrend_multiplier' | 'volume_profile_window' | 'min_confluence' | 'risk_reward' | 'min_stop_atr';
}

/** The bounds of every rule setting: the config's and the lab's, from this one table. */
export const RULE_BOUNDS: Readonly<Record<RuleName, RuleBound>> = {
  supertrendAtrPeriod: { min: 1, max: 500, isInteger: true, env: 'SUPERTREND_ATR_PERIOD', api: 'supertrend_atr_period' },
  supertrendMultiplier: { min: 0.1, max: 20, isInteger: false, env: 'SUPERTREND_MULTIPLIER', api: 'supertrend_multiplier' },
  volumeProfileWindow: { min: 2, max: 1000, isInteger: true, env: 'VOLUME_PROFILE_WINDOW', api: 'volume_profile_window' },
  minConfluence: { min: 1, max: 4, isInteger: true, env: 'MIN_CONFLUENCE', api: 'min_confluence' },
  riskReward: { min: 0.1, max: 20, isInteger: false, env: 'RISK_REWARD', api: 'risk_reward' },
  minStopAtr: { min: 0, max: 20, isInteger: false, env: 'MIN_STOP_ATR', api: 'min_stop_atr' },
};

export const RULE_NAMES = Object.keys(RULE_BOUNDS) as RuleName[];

/** The rules in the API's names (`supertrend_atr_period`, …). */
export type RuleOverrides = Partial<Record<RuleBound['api'], number>>;

/** The live settings: the strategy's config. */
export function rulesOf(config: Pick<StrategyConfig, RuleBound['env']>): StrategyRules {
  return {
    supertrendAtrPeriod: config.SUPERTREND_ATR_PERIOD,
    supertrendMultiplier: config.SUPERTREND_MULTIPLIER,
    volumeProfileWindow: config.VOLUME_PROFILE_WINDOW,
    minConfluence: config.MIN_CONFLUENCE,
    riskReward: config.RISK_REWARD,
    minStopAtr: config.MIN_STOP_ATR,
  };
}

/** `rules` with the overrides given in the API's names applied (bounds are the caller's to check, see {@link ruleBoundIssues}). */
export function withOverrides(rules: StrategyRules, overrides: RuleOverrides = {}): StrategyRules {
  const next = { ...rules };
  for (const name of RULE_NAMES) {
    const value = overrides[RULE_BOUNDS[name].api];
    if (value !== undefined) next[name] = value;
  }
  return next;
}

/** What is out of bounds in `rules`, by API name; empty when every setting is within RULE_BOUNDS. */
export function ruleBoundIssues(rules: StrategyRules): Array<{ name: RuleBound['api']; message: string }> {
  const issues: Array<{ name: RuleBound['api']; message: string }> = [];
  for (const name of RULE_NAMES) {
    const { min, max, isInteger, api } = RULE_BOUNDS[name];
    const value = rules[name];
    if (!Number.isFinite(value) || value < min || value > max || (isInteger && !Number.isInteger(value))) {
      issues.push({ name: api, message: `must be ${isInteger ? 'an integer' : 'a number'} from ${min} to ${max}, got ${value}` });
    }
  }
  return issues;
}
