import { LAB_RULE_BOUNDS, type LabExitRuleName, type LabRuleName, type LabRules, type LabSettingName } from '@fxdesk/schemas';
import { EXITS_OFF, type ExitRules } from '@fxdesk/trading';
import type { StrategyConfig } from './config.js';

/**
 * The settings of the signal rule and of the indicators it reads, and the exit rules that are on
 * (@fxdesk/trading's ExitRules; an absent one is off, {@link exitRulesOf}): what the live engine
 * runs with (from its config, {@link rulesOf}) and what a backtest may override.
 */
export interface StrategyRules extends Partial<ExitRules> {
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

/** The signal rule's settings. */
export type RuleName = Exclude<keyof StrategyRules, ExitRuleName>;
export type ExitRuleName = keyof ExitRules;

export interface RuleBound {
  min: number;
  max: number;
  /** Whole numbers only. */
  isInteger: boolean;
  /** The setting's name in the environment (config.ts). */
  env: (typeof LAB_RULE_BOUNDS)[LabSettingName]['env'];
  /** The setting's name in the lab's API (a backtest's `rules` overrides). */
  api: LabSettingName;
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

/** Each exit rule's name in the lab's API. */
const EXIT_API_NAMES: Readonly<Record<ExitRuleName, LabExitRuleName>> = {
  breakEvenR: 'break_even_r',
  trailingStopAtr: 'trailing_stop_atr',
  trailingStopR: 'trailing_stop_r',
  timeExitCandles: 'time_exit_candles',
  exitOnOppositeSignal: 'exit_on_opposite_signal',
};

/** The bounds of every exit rule, the config's and the lab's (LAB_RULE_BOUNDS too); 0 is off. */
export const EXIT_RULE_BOUNDS: Readonly<Record<ExitRuleName, RuleBound>> = Object.fromEntries(
  Object.entries(EXIT_API_NAMES).map(([name, api]) => [name, { ...LAB_RULE_BOUNDS[api], api }]),
) as Record<ExitRuleName, RuleBound>;

export const EXIT_RULE_NAMES = Object.keys(EXIT_RULE_BOUNDS) as ExitRuleName[];

/** Every setting, the signal rule's then the exits', with its bounds. */
const ALL_BOUNDS: ReadonlyArray<[keyof StrategyRules, RuleBound]> = [...Object.entries(RULE_BOUNDS), ...Object.entries(EXIT_RULE_BOUNDS)] as Array<
  [keyof StrategyRules, RuleBound]
>;

/** The rules in the API's names (`supertrend_atr_period`, …, `break_even_r`, …). */
export type RuleOverrides = Partial<Record<RuleBound['api'], number>>;

/** The exit rules of a set of rules, every one there (an absent one off). */
export function exitRulesOf(rules: StrategyRules): ExitRules {
  const exits = { ...EXITS_OFF };
  for (const name of EXIT_RULE_NAMES) exits[name] = rules[name] ?? 0;
  return exits;
}

/** Only the exit rules that are on, as StrategyRules carries them. */
function onlyOn(exits: ExitRules): Partial<ExitRules> {
  return Object.fromEntries(Object.entries(exits).filter(([, value]) => value !== 0));
}

/** The live settings: the strategy's config. */
export function rulesOf(config: Pick<StrategyConfig, RuleBound['env']>): StrategyRules {
  return {
    ...onlyOn({
      breakEvenR: config.BREAK_EVEN_R,
      trailingStopAtr: config.TRAILING_STOP_ATR,
      trailingStopR: config.TRAILING_STOP_R,
      timeExitCandles: config.TIME_EXIT_CANDLES,
      exitOnOppositeSignal: config.EXIT_ON_OPPOSITE_SIGNAL ? 1 : 0,
    }),
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
  for (const [name, { api }] of ALL_BOUNDS) {
    const value = overrides[api];
    if (value !== undefined) next[name] = value;
  }
  // An exit rule set to 0 is off: absent, as in the config's rules.
  for (const name of EXIT_RULE_NAMES) if (next[name] === 0) delete next[name];
  return next;
}

/** What is out of bounds in `rules`, by API name; empty when every setting is within RULE_BOUNDS. */
export function ruleBoundIssues(rules: StrategyRules): Array<{ name: RuleBound['api']; message: string }> {
  const issues: Array<{ name: RuleBound['api']; message: string }> = [];
  for (const [name, { min, max, isInteger, api }] of ALL_BOUNDS) {
    const value = rules[name];
    if (value === undefined && name in EXIT_RULE_BOUNDS) continue;
    if (value === undefined || !Number.isFinite(value) || value < min || value > max || (isInteger && !Number.isInteger(value))) {
      issues.push({ name: api, message: `must be ${isInteger ? 'an integer' : 'a number'} from ${min} to ${max}, got ${value}` });
    }
  }
  return issues;
}

/** The rules by their API names: every signal rule, and each exit rule that is on (LabRules' shape). */
export function apiRules(rules: StrategyRules): LabRules {
  const signal = RULE_NAMES.map((name) => [RULE_BOUNDS[name].api, rules[name]]);
  return Object.fromEntries([
    ...signal,
    ...Object.entries(onlyOn(exitRulesOf(rules))).map(([name, value]) => [EXIT_API_NAMES[name as ExitRuleName], value]),
  ]) as LabRules;
}

/** The rules from their API names (a backtest's settings.rules; an exit rule it does not list is off). */
export function strategyRules(rules: LabRules): StrategyRules {
  const values = rules as Partial<Record<LabSettingName, number>>;
  const signal = Object.fromEntries(RULE_NAMES.map((name) => [name, values[RULE_BOUNDS[name].api]])) as unknown as StrategyRules;
  return withOverrides(signal, values);
}
