import { AppError, type ErrorDetail } from '@fxdesk/core';
import { TIMEFRAME_SECONDS, type BacktestRequest, type BacktestSettings, type FillModel, type SweepRequest, type Timeframe } from '@fxdesk/schemas';
import { nextWeeklyOpen } from '@fxdesk/broker';
import type { StrategyConfig } from '../config.js';
import { apiRules, rulesOf, withOverrides, type StrategyRules } from '../rules.js';
import { paperFillsOf } from '../paper-account.js';
import { symbolOf } from '../symbols.js';
import { conversionInstruments } from './backtest.js';
import { gridSettings, randomSettings, walkForwardWindows, type WalkForwardWindow } from './sweep.js';

/** The currency of every backtest's account: the paper account's. */
export const ACCOUNT_CURRENCY = 'USD';

/** The longest range a backtest may cover. */
const MAX_YEARS = 5;

/**
 * When a lab's history has candles: `fx_week` from Sunday 22:00 to Friday 22:00 UTC (the
 * simulated market with SIM_MARKET_HOURS), `all_week` in every period (SIM_MARKET_HOURS=false, a
 * venue that trades all week, or a history whose hours the lab cannot see: the most it can hold).
 */
export type HistoryHours = 'fx_week' | 'all_week';

/**
 * The hours of the history the lab reads: the in-process simulated market's, by SIM_MARKET_HOURS;
 * the market-data service's catalog does not say when its symbols trade, so with MARKET_DATA_URL
 * every period is counted (a request is never let through over LAB_MAX_CANDLES).
 */
export function historyHoursOf(config: Pick<StrategyConfig, 'MARKET_DATA_URL' | 'SIM_MARKET_HOURS'>): HistoryHours {
  return config.MARKET_DATA_URL === undefined && config.SIM_MARKET_HOURS ? 'fx_week' : 'all_week';
}

const WEEK_SEC = 7 * 86_400;
/** The FX week's session, from its Sunday 22:00 UTC open to its Friday 22:00 UTC close. */
const FX_SESSION_SEC = 5 * 86_400;

export type PlanConfig = Pick<
  StrategyConfig,
  | 'TIMEFRAME'
  | 'WARMUP_CANDLES'
  | 'PAPER_BALANCE'
  | 'PAPER_LEVERAGE'
  | 'TRADE_VOLUME'
  | 'SYMBOL_MAP'
  | 'LAB_MAX_CANDLES'
  | 'SUPERTREND_ATR_PERIOD'
  | 'SUPERTREND_MULTIPLIER'
  | 'VOLUME_PROFILE_WINDOW'
  | 'FVG_MAX_AGE'
  | 'MIN_CONFLUENCE'
  | 'RISK_REWARD'
  | 'MIN_STOP_ATR'
  | 'BREAK_EVEN_R'
  | 'TRAILING_STOP_ATR'
  | 'TRAILING_STOP_R'
  | 'TIME_EXIT_CANDLES'
  | 'EXIT_ON_OPPOSITE_SIGNAL'
  | 'PAPER_SPREAD_POINTS'
  | 'PAPER_SLIPPAGE_POINTS'
  | 'PAPER_COMMISSION_PER_LOT'
  | 'SIZING'
  | 'RISK_PERCENT'
  | 'ONE_POSITION_PER_PAIR'
  | 'MAX_OPEN_TRADES'
  | 'MAX_CURRENCY_EXPOSURE_LOTS'
  | 'DAILY_LOSS_LIMIT'
  | 'MAX_DRAWDOWN'
  | 'COOLDOWN_LOSSES'
  | 'COOLDOWN_CANDLES'
  | 'RISK_DAY_ROLL_HOUR'
  | 'RISK_DAY_TIME_ZONE'
>;

/** A pair a job loads: traded, or needed to convert a traded pair's P/L. */
export interface PlannedPair {
  instrument: string;
  symbol: string;
  digits: number;
}

/** A backtest request resolved against the config and the market: everything a run needs but the candles. */
export interface BacktestPlan {
  settings: BacktestSettings;
  timeframe: Timeframe;
  fromSec: number;
  toSec: number;
  rules: StrategyRules;
  pairs: PlannedPair[];
  conversion: PlannedPair[];
  warmup: number;
  /** The trading day of the daily loss limit: the config's RISK_DAY_ROLL_HOUR and RISK_DAY_TIME_ZONE. */
  riskDay: { rollHour: number; timeZone: string };
  /** Whether a run of it sizes by risk (a sweep's: any setting), so the job reads the venue's volume terms. */
  needsTerms: boolean;
}

export interface SweepPlan {
  base: BacktestPlan;
  /** Each setting's complete rules, in the sweep's order. */
  settings: StrategyRules[];
  windows: WalkForwardWindow[];
}

/** What the market lists: symbol → digits. */
export type Catalog = ReadonlyMap<string, number>;

/** Collects the 422 details of a request, then throws them together. */
class Issues {
  readonly details: ErrorDetail[] = [];

  add(path: string, message: string): void {
    this.details.push({ path, message });
  }

  throwIfAny(): void {
    if (this.details.length === 0) return;
    const first = this.details[0] as ErrorDetail;
    const more = this.details.length > 1 ? ` (and ${this.details.length - 1} more)` : '';
    throw new AppError('validation_error', `${first.path}: ${first.message}${more}`, { details: this.details });
  }
}

/**
 * Resolves a backtest request (the body of POST /backtests, or a sweep's base at `path`): the
 * range (from < to ≤ now, at most five years), the instruments (each listed by the market, and
 * the pairs their P/L converts through), the rules (the live ones, then the overrides), the
 * defaults of the config, and the candles it will load against LAB_MAX_CANDLES. Any problem is
 * a 422 VALIDATION_ERROR with a detail per problem. `minWarmup`: candles a sweep's largest
 * volume-profile window needs.
 */
export function planBacktest(
  request: BacktestRequest,
  context: { config: PlanConfig; catalog: Catalog; hours: HistoryHours; nowMs: number; path?: string; minWarmup?: number },
): BacktestPlan {
  const { config, catalog, nowMs } = context;
  const at = (field: string) => `${context.path ?? 'body'}.${field}`;
  const issues = new Issues();

  const fromMs = Date.parse(request.from);
  const toMs = Date.parse(request.to);
  if (toMs <= fromMs) issues.add(at('to'), `must be after from (${request.from})`);
  if (toMs > nowMs) issues.add(at('to'), `must not be in the future (now is ${new Date(nowMs).toISOString()})`);
  const limit = new Date(fromMs);
  limit.setUTCFullYear(limit.getUTCFullYear() + MAX_YEARS);
  if (toMs > limit.getTime()) issues.add(at('to'), `at most ${MAX_YEARS} years after from (${limit.toISOString()})`);

  const pairs: PlannedPair[] = [];
  request.instruments.forEach((instrument, i) => {
    if (request.instruments.indexOf(instrument) !== i) return issues.add(at(`instruments.${i}`), `${instrument} is listed twice`);
    const pair = listed(instrument, config, catalog);
    if (!pair) return issues.add(at(`instruments.${i}`), `${instrument} (symbol ${symbolOf(instrument, config.SYMBOL_MAP)}) is not listed by the market`);
    pairs.push(pair);
  });
  const conversion: PlannedPair[] = [];
  const traded = pairs.map((p) => p.instrument);
  for (const instrument of conversionInstruments(traded, ACCOUNT_CURRENCY)) {
    const pair = listed(instrument, config, catalog);
    const user = request.instruments.findIndex((name) => traded.includes(name) && conversionInstruments([name], ACCOUNT_CURRENCY).includes(instrument));
    if (!pair) issues.add(at(`instruments.${user}`), `its P/L cannot be converted to ${ACCOUNT_CURRENCY}: ${instrument} is not listed by the market`);
    else conversion.push(pair);
  }

  const onePerPair = request.rules?.one_position_per_pair;
  if (onePerPair === 0) issues.add(at('rules.one_position_per_pair'), ONE_PER_PAIR_ONLY);
  else if (onePerPair === undefined && !config.ONE_POSITION_PER_PAIR) {
    issues.add(at('rules.one_position_per_pair'), `ONE_POSITION_PER_PAIR is false, but ${ONE_PER_PAIR_ONLY}: set it to 1 to backtest at one per pair`);
  }
  const volume = request.fill_model?.volume;
  if (volume !== undefined && 'risk_percent' in volume) {
    issues.add(at('fill_model.volume'), 'size by risk with rules.risk_percent (a sweep can vary it); fill_model.volume takes fixed lots only');
  }

  const rules = withOverrides(rulesOf(config), request.rules);
  const timeframe = request.timeframe ?? config.TIMEFRAME;
  // The warm-up holds every candle a value reads: the volume profile's window, a gap's FVG_MAX_AGE + 2.
  const warmup = Math.max(config.WARMUP_CANDLES, rules.volumeProfileWindow, rules.fvgMaxAge + 2, context.minWarmup ?? 0);
  const fromSec = Math.floor(fromMs / 1000);
  const toSec = Math.floor(toMs / 1000);
  const perPair = candlesBetween(timeframe, fromSec, toSec, context.hours) + warmup;
  const candles = perPair * (request.instruments.length + conversion.length);
  if (toSec > fromSec && candles > config.LAB_MAX_CANDLES) {
    issues.add(
      at('to'),
      `the range holds ${candles} candles of ${timeframe} for ${request.instruments.length + conversion.length} pairs (warm-up included), more than LAB_MAX_CANDLES (${config.LAB_MAX_CANDLES}): shorten it or take a longer timeframe`,
    );
  }
  issues.throwIfAny();

  // The paper account's fill model (its settings) under the request's.
  const paper = paperFillsOf(config);
  const fillModel: FillModel = {
    spread_points: request.fill_model?.spread_points ?? paper.spread_points,
    slippage_points: request.fill_model?.slippage_points ?? paper.slippage_points,
    commission_per_lot: request.fill_model?.commission_per_lot ?? paper.commission_per_lot,
    volume: volume !== undefined && 'lots' in volume ? volume : paper.volume,
  };
  return {
    settings: {
      instruments: [...request.instruments],
      timeframe,
      from: new Date(fromSec * 1000).toISOString(),
      to: new Date(toSec * 1000).toISOString(),
      rules: apiRules(rules),
      initial_balance: request.initial_balance ?? config.PAPER_BALANCE,
      leverage: request.leverage ?? config.PAPER_LEVERAGE,
      fill_model: fillModel,
      account_currency: ACCOUNT_CURRENCY,
      warmup_candles: warmup,
    },
    timeframe,
    fromSec,
    toSec,
    rules,
    pairs,
    conversion,
    warmup,
    riskDay: { rollHour: config.RISK_DAY_ROLL_HOUR, timeZone: config.RISK_DAY_TIME_ZONE },
    needsTerms: (rules.riskPercent ?? 0) > 0,
  };
}

/** Why the lab refuses one_position_per_pair 0: PairPosition is one position per pair by design. */
const ONE_PER_PAIR_ONLY = 'the lab, as the paper account, holds one position per pair (only 1 is accepted)';

/**
 * Resolves a sweep request: its base as a backtest (at `body.base`), every setting it tries (the
 * grid's product or the seeded sample, each over the base's rules) and its walk-forward windows.
 * The warm-up covers the largest volume-profile window among the settings, so every member
 * reads the same candles.
 */
export function planSweep(request: SweepRequest, context: { config: PlanConfig; catalog: Catalog; hours: HistoryHours; nowMs: number }): SweepPlan {
  const varied = refuseRangeError(request.grid ? 'body.grid' : 'body.random', () =>
    request.grid ? gridSettings(request.grid) : randomSettings({ samples: 1, seed: 1, ranges: {}, ...request.random }),
  );
  if (varied.some((values) => values.one_position_per_pair === 0)) {
    const issues = new Issues();
    issues.add(request.grid ? 'body.grid.one_position_per_pair' : 'body.random.ranges.one_position_per_pair', ONE_PER_PAIR_ONLY);
    issues.throwIfAny();
  }
  const baseRules = withOverrides(rulesOf(context.config), request.base.rules);
  const settings = varied.map((values) => withOverrides(baseRules, values));
  const minWarmup = Math.max(...settings.map((rules) => Math.max(rules.volumeProfileWindow, rules.fvgMaxAge + 2)));
  const planned = planBacktest(request.base, { ...context, path: 'body.base', minWarmup });
  const base = { ...planned, needsTerms: settings.some((rules) => (rules.riskPercent ?? 0) > 0) };
  const walkForward = request.walk_forward;
  const windows = walkForward
    ? refuseRangeError('body.walk_forward', () => walkForwardWindows(base, { windows: walkForward.windows, inSampleFraction: walkForward.in_sample_fraction }))
    : [];
  return { base, settings, windows };
}

/**
 * The candles of `timeframe` opening in [fromSec, toSec) that a history open in `hours` has: every
 * period, or those that overlap an FX week's session (a bar has the ticks of its open minutes, so
 * Friday's 20:00 H4 bar and Sunday's D1 bar are there).
 */
export function candlesBetween(timeframe: Timeframe, fromSec: number, toSec: number, hours: HistoryHours): number {
  const size = TIMEFRAME_SECONDS[timeframe];
  // Bars open at multiples of their length: those in [a, b).
  const opening = (a: number, b: number) => (b > a ? Math.ceil(b / size) - Math.ceil(a / size) : 0);
  if (hours === 'all_week') return opening(fromSec, toSec);
  let count = 0;
  // Every session with a bar in the range: from the one that opened up to a week before fromSec.
  for (let open = nextWeeklyOpen((fromSec - WEEK_SEC) * 1000) / 1000; open - size < toSec; open += WEEK_SEC) {
    count += opening(Math.max(fromSec, open - size + 1), Math.min(toSec, open + FX_SESSION_SEC));
  }
  return count;
}

/** What `make` returns; its RangeError (a sweep that cannot be made) as a 422 at `path`. */
function refuseRangeError<T>(path: string, make: () => T): T {
  try {
    return make();
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    const issues = new Issues();
    issues.add(path, err.message);
    issues.throwIfAny();
    throw err;
  }
}

function listed(instrument: string, config: PlanConfig, catalog: Catalog): PlannedPair | undefined {
  const symbol = symbolOf(instrument, config.SYMBOL_MAP);
  const digits = catalog.get(symbol);
  return digits === undefined ? undefined : { instrument, symbol, digits };
}
