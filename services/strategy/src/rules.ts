import { LAB_RULE_BOUNDS, type LabRuleName } from '@fxdesk/schemas';
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
  /** Candles a fair value gap stays open at most (FVG_MAX_AGE). */
  fvgMaxAge: number;
}

export type RuleName = keyof StrategyRules;

export interface RuleBound {
  min: number;
  max: number;
  /** Whole numbers only. */
  isInteger: boolean;
  /** The setting's name in the environment (config.ts). */
  env: 'SUPERTREND_ATR_PERIOD' | 'SUPERTREND_MULTIPLIER' | 'VOLUME_PROFILE_WINDOW' | 'MIN_CONFLUENCE' | 'RISK_REWARD' | 'MIN_STOP_ATR' | 'FVG_MAX_AGE';
  /** The setting's name in the lab's API (a backtest's `rules` overrides). */
  api: LabRuleName;
}

/** Each rule's name in the lab's API. */
const API_NAMES: Readonly<Record<RuleName, LabRuleName>> = {
  supertrendAtrPeriod: 'supertrend_atr_period',
  supertrendMultiplier: 'supertrend_multiplier',
  volumeProfileWindow: 'volume_profile_window',
  minConfluence: 'min_confluence',
  riskReward: 'risk_reward',
  minStopAtr: 'min_stop_atr',
  fvgMaxAge: 'fvg_max_age',
};

/**
 * The bounds of every rule setting, the config's and the lab's: the lab contract's table
 * (LAB_RULE_BOUNDS in @fxdesk/schemas, which the console reads too) under the engine's names.
 */
export const RULE_BOUNDS: Readonly<Record<RuleName, RuleBound>> = Object.fromEntries(
  Object.entries(API_NAMES).map(([name, api]) => [name, { ...LAB_RULE_BOUNDS[api], api }]),
) as Record<RuleName, RuleBound>;

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
    fvgMaxAge: config.FVG_MAX_AGE,
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
