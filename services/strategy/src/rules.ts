import { LAB_RULE_BOUNDS, type LabExitRuleName, type LabRiskRuleName, type LabRuleName, type LabRules, type LabSettingName } from '@fxdesk/schemas';
import { EXITS_OFF, type ExitRules } from '@fxdesk/trading';
import type { StrategyConfig } from './config.js';

/**
 * The risk settings a backtest runs with (issue 24; risk-settings.ts has them for live and paper),
 * each 0 when off: `riskPercent` 0 is fixed lots. One position per pair is not among them: the
 * lab holds one per pair always (lab/plan.ts refuses `one_position_per_pair: 0`).
 */
export interface RiskRules {
  riskPercent: number;
  maxOpenTrades: number;
  maxCurrencyExposureLots: number;
  dailyLossLimitPercent: number;
  maxDrawdownPercent: number;
  cooldownLosses: number;
  cooldownCandles: number;
}

/**
 * The settings of the signal rule and of the indicators it reads, and the exit and risk rules
 * that are on (@fxdesk/trading's ExitRules, {@link RiskRules}; an absent one is off,
 * {@link exitRulesOf}, {@link riskRulesOf}): what the live engine runs with (from its config,
 * {@link rulesOf}) and what a backtest may override.
 */
export interface StrategyRules extends Partial<ExitRules>, Partial<RiskRules> {
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
export type RuleName = Exclude<keyof StrategyRules, ExitRuleName | RiskRuleName>;
export type ExitRuleName = keyof ExitRules;
export type RiskRuleName = keyof RiskRules;

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

/** Each risk rule's name in the lab's API (`one_position_per_pair` is the plan's: always 1 in the lab). */
const RISK_API_NAMES: Readonly<Record<RiskRuleName, Exclude<LabRiskRuleName, 'one_position_per_pair'>>> = {
  riskPercent: 'risk_percent',
  maxOpenTrades: 'max_open_trades',
  maxCurrencyExposureLots: 'max_currency_exposure_lots',
  dailyLossLimitPercent: 'daily_loss_limit',
  maxDrawdownPercent: 'max_drawdown',
  cooldownLosses: 'cooldown_losses',
  cooldownCandles: 'cooldown_candles',
};

/**
 * The bounds of every risk rule in the lab (LAB_RULE_BOUNDS too): the config's RISK_BOUNDS
 * (risk-settings.ts), 0 off; `riskPercent` 0 is SIZING=fixed, its least on value 0.01 as RISK_PERCENT's.
 */
export const RISK_RULE_BOUNDS: Readonly<Record<RiskRuleName, RuleBound>> = Object.fromEntries(
  Object.entries(RISK_API_NAMES).map(([name, api]) => [name, { ...LAB_RULE_BOUNDS[api], api }]),
) as Record<RiskRuleName, RuleBound>;

export const RISK_RULE_NAMES = Object.keys(RISK_RULE_BOUNDS) as RiskRuleName[];

/** The rules absent when off (0): the exits and the risk's. */
const OFF_AT_ZERO: ReadonlyArray<ExitRuleName | RiskRuleName> = [...EXIT_RULE_NAMES, ...RISK_RULE_NAMES];

/** Every setting, the signal rule's, the exits', then the risk's, with its bounds. */
const ALL_BOUNDS: ReadonlyArray<[keyof StrategyRules, RuleBound]> = [
  ...Object.entries(RULE_BOUNDS),
  ...Object.entries(EXIT_RULE_BOUNDS),
  ...Object.entries(RISK_RULE_BOUNDS),
] as Array<[keyof StrategyRules, RuleBound]>;

/** The rules in the API's names (`supertrend_atr_period`, …, `break_even_r`, …). */
export type RuleOverrides = Partial<Record<RuleBound['api'], number>>;

/** The exit rules of a set of rules, every one there (an absent one off). */
export function exitRulesOf(rules: StrategyRules): ExitRules {
  const exits = { ...EXITS_OFF };
  for (const name of EXIT_RULE_NAMES) exits[name] = rules[name] ?? 0;
  return exits;
}

/** The risk rules of a set of rules, every one there (an absent one 0: off). */
export function riskRulesOf(rules: StrategyRules): RiskRules {
  return Object.fromEntries(RISK_RULE_NAMES.map((name) => [name, rules[name] ?? 0])) as unknown as RiskRules;
}

/** Only the rules that are on, as StrategyRules carries them. */
function onlyOn<T extends object>(rules: T): Partial<T> {
  return Object.fromEntries(Object.entries(rules).filter(([, value]) => value !== 0)) as Partial<T>;
}

/** The live settings: the strategy's config. */
export function rulesOf(config: Pick<StrategyConfig, RuleBound['env'] | 'SIZING'>): StrategyRules {
  return {
    ...onlyOn({
      riskPercent: config.SIZING === 'risk' ? config.RISK_PERCENT : 0,
      maxOpenTrades: config.MAX_OPEN_TRADES,
      maxCurrencyExposureLots: config.MAX_CURRENCY_EXPOSURE_LOTS,
      dailyLossLimitPercent: config.DAILY_LOSS_LIMIT,
      maxDrawdownPercent: config.MAX_DRAWDOWN,
      // As riskSettingsOf: a cooldown only when both of its settings are set.
      cooldownLosses: config.COOLDOWN_CANDLES > 0 ? config.COOLDOWN_LOSSES : 0,
      cooldownCandles: config.COOLDOWN_LOSSES > 0 ? config.COOLDOWN_CANDLES : 0,
    }),
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
  // An exit or risk rule set to 0 is off: absent, as in the config's rules.
  for (const name of OFF_AT_ZERO) if (next[name] === 0) delete next[name];
  return next;
}

/** What is out of bounds in `rules`, by API name; empty when every setting is within RULE_BOUNDS. */
export function ruleBoundIssues(rules: StrategyRules): Array<{ name: RuleBound['api']; message: string }> {
  const issues: Array<{ name: RuleBound['api']; message: string }> = [];
  for (const [name, { min, max, isInteger, api }] of ALL_BOUNDS) {
    const value = rules[name];
    if (value === undefined && (OFF_AT_ZERO as readonly string[]).includes(name)) continue;
    if (value === undefined || !Number.isFinite(value) || value < min || value > max || (isInteger && !Number.isInteger(value))) {
      issues.push({ name: api, message: `must be ${isInteger ? 'an integer' : 'a number'} from ${min} to ${max}, got ${value}` });
    }
  }
  return issues;
}

/** The rules by their API names: every signal rule, and each exit and risk rule that is on (LabRules' shape). */
export function apiRules(rules: StrategyRules): LabRules {
  const signal = RULE_NAMES.map((name) => [RULE_BOUNDS[name].api, rules[name]]);
  return Object.fromEntries([
    ...signal,
    ...Object.entries(onlyOn(exitRulesOf(rules))).map(([name, value]) => [EXIT_API_NAMES[name as ExitRuleName], value]),
    ...Object.entries(onlyOn(riskRulesOf(rules))).map(([name, value]) => [RISK_API_NAMES[name as RiskRuleName], value]),
  ]) as LabRules;
}

/** The rules from their API names (a backtest's settings.rules; an exit or risk rule it does not list is off). */
export function strategyRules(rules: LabRules): StrategyRules {
  const values = rules as Partial<Record<LabSettingName, number>>;
  const signal = Object.fromEntries(RULE_NAMES.map((name) => [name, values[RULE_BOUNDS[name].api]])) as unknown as StrategyRules;
  return withOverrides(signal, values);
}
