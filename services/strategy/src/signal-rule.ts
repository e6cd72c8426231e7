import { stochRsiSide, type Candle, type FvgValue, type StochRsiValue, type SupertrendValue, type VolumeProfileValue } from '@fxdesk/indicators';
import { decimalFromNumber } from '@fxdesk/primitives';
import type { SignalIndicators, SignalType } from '@fxdesk/schemas';
import type { StrategyRules } from './rules.js';

/** A closed candle as the rule reads it: with its spread (price units) when the provider gives one. */
export type RuleCandle = Candle & { spread?: number | null };

/** The four indicators' values after one closed candle (all warmed up). */
export interface IndicatorSnapshot {
  candle: RuleCandle;
  supertrend: SupertrendValue;
  stochrsi: StochRsiValue;
  fvg: FvgValue;
  volumeProfile: VolumeProfileValue;
}

/** What the rule reads of the rules (MIN_CONFLUENCE, RISK_REWARD, MIN_STOP_ATR), for one instrument. */
export interface RuleSettings extends Pick<StrategyRules, 'minConfluence' | 'riskReward' | 'minStopAtr'> {
  /** Decimal places of the instrument's prices. */
  digits: number;
}

/** The rule settings of a set of rules for an instrument priced with `digits` decimals. */
export function ruleSettingsOf(rules: StrategyRules, digits: number): RuleSettings {
  return { minConfluence: rules.minConfluence, riskReward: rules.riskReward, minStopAtr: rules.minStopAtr, digits };
}

export type Trigger = 'supertrend_flip' | 'stochrsi_cross';

/** Which indicators agree with the direction the Supertrend gives. */
export interface Evaluation {
  type: SignalType;
  trigger: Trigger | null;
  aligned: { supertrend: true; stochrsi: boolean; fvg: boolean; volume_profile: boolean };
  confluence: number;
}

export interface SignalDecision extends Evaluation {
  trigger: Trigger;
  entry: number;
  stopLoss: number;
  takeProfit: number;
  riskReward: number;
}

const POWERS_OF_TEN = [1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10];

/**
 * A computed price written as the broker would: `digits` places, half away from zero, as
 * decimalFromNumber rounds it. Away from a tie the integer arithmetic gives the same number
 * (n / 10^digits is the double nearest the decimal, as parsing it is) without building strings; a
 * value within a millionth of a unit of a tie takes the exact decimal path.
 */
export function roundPrice(value: number, digits: number): number {
  const fast = roundAwayFromTie(value, digits);
  return fast !== undefined ? fast : Number(decimalFromNumber(value, digits));
}

/** `value` to `digits` places when it is not within a millionth of a unit of a tie, where every rounding rule agrees. */
function roundAwayFromTie(value: number, digits: number): number | undefined {
  const scale = POWERS_OF_TEN[digits];
  if (scale === undefined) return undefined;
  const scaled = Math.abs(value) * scale;
  const whole = Math.floor(scaled);
  if (!(scaled < 1e9) || Math.abs(scaled - whole - 0.5) <= 1e-6) return undefined;
  const units = scaled - whole > 0.5 ? whole + 1 : whole;
  return units === 0 ? 0 : (value < 0 ? -units : units) / scale;
}

/**
 * The direction and the confluence on one closed candle (README "The signal rule"):
 * - the Supertrend gives the direction (1 → LONG, −1 → SHORT) and always counts as aligned;
 * - Stochastic RSI is aligned when %K crossed %D the same way (`bullish_cross` / `bearish_cross`),
 *   or %K is on the signal's side of %D without being at the far extreme (`overbought` for a
 *   LONG, `oversold` for a SHORT);
 * - fair value gaps: aligned when the latest open gap points the same way;
 * - volume profile: aligned when the close is beyond the point of control (above for LONG,
 *   below for SHORT).
 * The trigger is the event that makes this candle the moment: a Supertrend flip, or a %K/%D
 * cross in the Supertrend's direction. Without one there is no signal, however aligned.
 */
export function evaluate(s: IndicatorSnapshot): Evaluation {
  const long = s.supertrend.direction === 1;
  const stochrsi = isStochRsiAligned(s, long);
  const fvg = isFvgAligned(s, long);
  const volumeProfile = isVolumeProfileAligned(s, long);
  return {
    type: long ? 'LONG' : 'SHORT',
    trigger: triggerOf(s, long),
    aligned: { supertrend: true, stochrsi, fvg, volume_profile: volumeProfile },
    confluence: 1 + Number(stochrsi) + Number(fvg) + Number(volumeProfile),
  };
}

function triggerOf(s: IndicatorSnapshot, long: boolean): Trigger | null {
  return s.supertrend.flipped ? 'supertrend_flip' : s.stochrsi.signal === (long ? 'bullish_cross' : 'bearish_cross') ? 'stochrsi_cross' : null;
}

function isStochRsiAligned(s: IndicatorSnapshot, long: boolean): boolean {
  const { k, d, signal } = s.stochrsi;
  // %K and %D equal up to rounding (a flat close) are aligned neither way, as they cross neither way.
  const side = stochRsiSide(k, d);
  return long ? signal === 'bullish_cross' || (side === 1 && signal !== 'overbought') : signal === 'bearish_cross' || (side === -1 && signal !== 'oversold');
}

function isFvgAligned(s: IndicatorSnapshot, long: boolean): boolean {
  return s.fvg.type === (long ? 'bullish' : 'bearish');
}

function isVolumeProfileAligned(s: IndicatorSnapshot, long: boolean): boolean {
  return long ? s.candle.close > s.volumeProfile.poc : s.candle.close < s.volumeProfile.poc;
}

/**
 * The entry is the candle's mid close. A LONG buys at the ask (half a spread above it) and its
 * stop triggers on the bid; MT5 brokers refuse a stop nearer the market than the symbol's stops
 * level, commonly about one spread (the simulated terminal's is its typical spread). A stop
 * nearer the entry than two spreads is inside the noise of the quote and likely refused by the
 * time the order is sent (a quote that moved half a spread is enough): so it goes no nearer.
 */
export const MIN_STOP_SPREADS = 2;

/**
 * The stop beyond the nearest structure that protects the trade: for a LONG the higher of the
 * Supertrend line and the low of an aligned gap below the entry (for a SHORT the lower of the
 * line and the high of an aligned gap above it), pushed out to at least `minStopAtr` ATRs and
 * at least {@link MIN_STOP_SPREADS} of the candle's spread when it has one.
 */
export function stopLevel(s: IndicatorSnapshot, evaluation: Evaluation, minStopAtr: number): number {
  const long = evaluation.type === 'LONG';
  const entry = s.candle.close;
  let structure = s.supertrend.value;
  const zone = s.fvg.zone;
  if (evaluation.aligned.fvg && zone) {
    if (long && zone[0] < entry) structure = Math.max(structure, zone[0]);
    if (!long && zone[1] > entry) structure = Math.min(structure, zone[1]);
  }
  const spread = s.candle.spread ?? 0;
  const minDistance = Math.max(minStopAtr * s.supertrend.atr, MIN_STOP_SPREADS * spread);
  return long ? Math.min(structure, entry - minDistance) : Math.max(structure, entry + minDistance);
}

/** The signal this candle gives, or null: a trigger and at least `minConfluence` aligned indicators. */
export function decide(s: IndicatorSnapshot, settings: RuleSettings): SignalDecision | null {
  // Most candles have no trigger: answered before anything else is read (a backtest asks on
  // every candle; the volume profile computes its value only when read).
  if (triggerOf(s, s.supertrend.direction === 1) === null) return null;
  const evaluation = evaluate(s);
  if (evaluation.trigger === null || evaluation.confluence < settings.minConfluence) return null;
  const { digits } = settings;
  const direction = evaluation.type === 'LONG' ? 1 : -1;
  const entry = roundPrice(s.candle.close, digits);
  const stopLoss = roundPrice(stopLevel(s, evaluation, settings.minStopAtr), digits);
  const risk = (entry - stopLoss) * direction;
  // A stop on the wrong side (or on the entry) cannot be traded: no signal.
  if (!(risk > 0)) return null;
  const takeProfit = roundPrice(entry + direction * settings.riskReward * risk, digits);
  if (!(takeProfit > 0)) return null;
  const ratio = Math.abs(takeProfit - entry) / risk;
  const riskReward = roundAwayFromTie(ratio, 2) ?? Number(ratio.toFixed(2));
  return {
    type: evaluation.type,
    trigger: evaluation.trigger,
    aligned: evaluation.aligned,
    confluence: evaluation.confluence,
    entry,
    stopLoss,
    takeProfit,
    riskReward,
  };
}

/** The spec's indicator objects of a signal, prices at the instrument's digits. */
export function signalIndicators(s: IndicatorSnapshot, digits: number): SignalIndicators {
  const price = (v: number) => roundPrice(v, digits + 1);
  return {
    supertrend: { direction: s.supertrend.direction, trend: s.supertrend.trend },
    stochrsi: { k: Number(s.stochrsi.k.toFixed(2)), signal: s.stochrsi.signal },
    fvg: { type: s.fvg.type, zone: s.fvg.zone ? [s.fvg.zone[0], s.fvg.zone[1]] : null },
    volume_profile: { poc: price(s.volumeProfile.poc), vah: price(s.volumeProfile.vah), val: price(s.volumeProfile.val) },
  };
}
