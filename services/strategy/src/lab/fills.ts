/**
 * The lab's fill model (README "How a backtest trades"), pure. Candles are mid prices; a LONG
 * buys at the ask (mid + spread/2) and sells at the bid (mid − spread/2), a SHORT the reverse.
 * Prices here are in price units: points (10^-digits) are converted once per pair by pricingOf.
 */
import type { FillModel, FillVolume, LabCandle } from './types.js';

/** The spread, in points, of candles that carry none when the model names none: 1 pip on a 5- or 3-digit FX pair. */
export const DEFAULT_SPREAD_POINTS = 10;
/** Volume steps in a lot: the step and smallest volume is 0.01 lots (the simulated and the paper account's). */
const STEPS_PER_LOT = 100;
export const VOLUME_STEP_LOTS = 1 / STEPS_PER_LOT;

/** A pair's fill model in its price units. */
export interface PairPricing {
  /** 10^-digits. */
  point: number;
  /** Spread of a candle without its own. */
  fallbackSpread: number;
  /** Paid on the entry and on a stop exit. */
  slippage: number;
}

export function pricingOf(digits: number, fills: FillModel): PairPricing {
  const point = 10 ** -digits;
  return { point, fallbackSpread: (fills.spread_points ?? DEFAULT_SPREAD_POINTS) * point, slippage: fills.slippage_points * point };
}

/** The candle's own spread, else the model's. */
export function spreadOf(candle: LabCandle, pricing: PairPricing): number {
  return candle.spread ?? pricing.fallbackSpread;
}

/**
 * A market order's fill at the candle's open: a LONG (side 1) at the ask plus the slippage, a
 * SHORT (side −1) at the bid minus it.
 */
export function entryPrice(side: 1 | -1, candle: LabCandle, pricing: PairPricing): number {
  return candle.open + side * (spreadOf(candle, pricing) / 2 + pricing.slippage);
}

/**
 * Whether a broker takes an order filled at the candle's open with these stop and target: both
 * must lie beyond the price the position would close at then (the bid for a LONG, the ask for a
 * SHORT), on their own sides. MT5 refuses others ("invalid stops").
 */
export function areStopsValid(side: 1 | -1, stop: number, target: number, candle: LabCandle, pricing: PairPricing): boolean {
  const close = candle.open - (side * spreadOf(candle, pricing)) / 2;
  return side === 1 ? stop < close && close < target : stop > close && close > target;
}

export interface ExitFill {
  reason: 'stop' | 'target';
  price: number;
}

/**
 * The exit a candle gives a position, or null, on the side that closes it (a LONG at the bid,
 * a SHORT at the ask), in the order the candle's prices can have come:
 * 1. the open beyond the stop (a gap, a weekend gap): the stop fills at the open − slippage;
 * 2. the open beyond the target: the target (a limit) fills at the open;
 * 3. the range reaches the stop: it fills at the stop − slippage. When the range reaches both,
 *    which came first is unknown, so the stop is taken (conservative);
 * 4. the range reaches the target: it fills at the target.
 * "−" is against the position: a SHORT's stop fills at the ask + slippage.
 */
export function exitWithin(side: 1 | -1, stop: number, target: number, candle: LabCandle, pricing: PairPricing): ExitFill | null {
  const half = (side * spreadOf(candle, pricing)) / 2;
  const open = candle.open - half;
  if (side === 1) {
    if (open <= stop) return { reason: 'stop', price: open - pricing.slippage };
    if (open >= target) return { reason: 'target', price: open };
    if (candle.low - half <= stop) return { reason: 'stop', price: stop - pricing.slippage };
    if (candle.high - half >= target) return { reason: 'target', price: target };
    return null;
  }
  if (open >= stop) return { reason: 'stop', price: open + pricing.slippage };
  if (open <= target) return { reason: 'target', price: open };
  if (candle.high - half >= stop) return { reason: 'stop', price: stop + pricing.slippage };
  if (candle.low - half <= target) return { reason: 'target', price: target };
  return null;
}

/** Where a position is marked at a candle's close: the price it would close at (LONG the bid, SHORT the ask). */
export function markPrice(side: 1 | -1, candle: LabCandle, pricing: PairPricing): number {
  return candle.close - (side * spreadOf(candle, pricing)) / 2;
}

/**
 * The lots of a trade: fixed, or those that lose `risk_percent` of `equity` at the stop
 * (`riskPerLot`: the loss of one lot from the entry to the stop, in the account currency);
 * rounded DOWN to the 0.01 step, 0 when below it (the signal is then skipped).
 */
export function volumeLots(volume: FillVolume, equity: number, riskPerLot: number): number {
  const lots = 'lots' in volume ? volume.lots : (equity * volume.risk_percent) / 100 / riskPerLot;
  if (!(lots > 0) || !Number.isFinite(lots)) return 0;
  // Whole steps; the 1e-9 keeps 0.29 (28.999… steps in binary) from becoming 0.28.
  return Math.floor(lots * STEPS_PER_LOT + 1e-9) / STEPS_PER_LOT;
}
