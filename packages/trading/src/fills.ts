/**
 * The fill model of the paper account and the lab (services/strategy/README.md, "How a backtest
 * trades"), pure. Candles are mid prices; a LONG buys at the ask (mid + spread/2) and sells at the
 * bid (mid − spread/2), a SHORT the reverse. Prices here are in price units: points (10^-digits)
 * are converted once per pair by pricingOf.
 */

/** A closed candle as the fill model reads it: mid prices, and the provider's spread in price units when it has one. */
export interface FillCandle {
  /** Open time, epoch seconds. */
  time: number;
  open: number;
  high: number;
  low: number;
  close: number;
  spread?: number | null;
}

/** Fixed lots per trade, or the lots that risk this percentage of the equity between entry and stop. */
export type FillVolume = { lots: number } | { risk_percent: number };

/** How orders fill. Points are 10^-digits of the pair's prices. */
export interface FillModel {
  /** Spread in points for candles without their own; null: DEFAULT_SPREAD_POINTS. */
  spread_points: number | null;
  /** Paid on the entry, on a stop and on a market close (not on a target, a limit order), in points. */
  slippage_points: number;
  /** Per lot per round turn, in the account currency, booked at the exit. */
  commission_per_lot: number;
  volume: FillVolume;
}

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
  /** The venue's least distance of a stop or target from the price at the fill (its stops level); 0: none known. */
  stopsLevel: number;
}

/** A pair's pricing under the fill model, with the venue's stops level in points when its terms are known. */
export function pricingOf(digits: number, fills: FillModel, stopsLevelPoints = 0): PairPricing {
  const point = 10 ** -digits;
  return {
    point,
    fallbackSpread: (fills.spread_points ?? DEFAULT_SPREAD_POINTS) * point,
    slippage: fills.slippage_points * point,
    stopsLevel: stopsLevelPoints * point,
  };
}

/** The candle's own spread, else the model's. */
export function spreadOf(candle: FillCandle, pricing: PairPricing): number {
  return candle.spread ?? pricing.fallbackSpread;
}

/** Units of the base currency in one lot: 100 oz of gold, 5 000 oz of silver, else 100 000. */
export function contractSize(instrument: string): number {
  const base = instrument.split('_')[0];
  return base === 'XAU' ? 100 : base === 'XAG' ? 5000 : 100_000;
}

/**
 * A market order's fill at the candle's open: a LONG (side 1) at the ask plus the slippage, a
 * SHORT (side −1) at the bid minus it.
 */
export function entryPrice(side: 1 | -1, candle: FillCandle, pricing: PairPricing): number {
  return candle.open + side * (spreadOf(candle, pricing) / 2 + pricing.slippage);
}

/**
 * Whether a broker takes an order filled at the candle's open with these stop and target: both
 * must lie beyond the price the position would close at then (the bid for a LONG, the ask for a
 * SHORT), on their own sides, and at least the stops level from it. MT5 refuses others ("invalid
 * stops"; the execution service's checkStopLevels).
 */
export function areStopsValid(side: 1 | -1, stop: number, target: number, candle: FillCandle, pricing: PairPricing): boolean {
  const close = candle.open - (side * spreadOf(candle, pricing)) / 2;
  // A distance of exactly the level passes, as in the venue's decimals: a thousandth of a point absorbs the doubles' noise.
  const least = pricing.stopsLevel - pricing.point / 1000;
  return side === 1 ? clears(close, stop, least) && clears(target, close, least) : clears(stop, close, least) && clears(close, target, least);
}

/** Whether `from` lies above `to` by at least `least`. */
function clears(from: number, to: number, least: number): boolean {
  return from > to && from - to >= least;
}

export interface ExitFill {
  /** `stop`: the position's stop, whichever rule set it last (PairPosition names it). */
  reason: 'stop' | 'target';
  price: number;
}

/**
 * The exit a candle's open gives a position whose stop or target it is already beyond (a gap, a
 * weekend gap), or null: the stop at the open − slippage (checked first), the target (a limit) at
 * the open. On the side that closes it (a LONG at the bid, a SHORT at the ask).
 */
export function exitAtOpen(side: 1 | -1, stop: number, target: number, candle: FillCandle, pricing: PairPricing): ExitFill | null {
  const open = candle.open - (side * spreadOf(candle, pricing)) / 2;
  const reach = pricing.point * REACH_POINTS;
  if (side * (open - stop) <= reach) return { reason: 'stop', price: open - side * pricing.slippage };
  if (side * (open - target) >= -reach) return { reason: 'target', price: open };
  return null;
}

/**
 * A millionth of a point: a price that reaches a level to its last decimal reaches it (a broker
 * compares whole points), though the doubles of a mid ± half a spread may come out a hair short.
 */
const REACH_POINTS = 1e-6;

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
export function exitWithin(side: 1 | -1, stop: number, target: number, candle: FillCandle, pricing: PairPricing): ExitFill | null {
  const atOpen = exitAtOpen(side, stop, target, candle, pricing);
  if (atOpen !== null) return atOpen;
  const half = (side * spreadOf(candle, pricing)) / 2;
  const reach = pricing.point * REACH_POINTS;
  if (side === 1) {
    if (candle.low - half <= stop + reach) return { reason: 'stop', price: stop - pricing.slippage };
    if (candle.high - half >= target - reach) return { reason: 'target', price: target };
    return null;
  }
  if (candle.high - half >= stop - reach) return { reason: 'stop', price: stop + pricing.slippage };
  if (candle.low - half <= target + reach) return { reason: 'target', price: target };
  return null;
}

/** Where a position is marked at a candle's close: the price it would close at (LONG the bid, SHORT the ask). */
export function markPrice(side: 1 | -1, candle: FillCandle, pricing: PairPricing): number {
  return candle.close - (side * spreadOf(candle, pricing)) / 2;
}

/** A market order closing a position at the candle's open: a LONG sells at the bid less the slippage, a SHORT buys at the ask plus it. */
export function closeAtOpen(side: 1 | -1, candle: FillCandle, pricing: PairPricing): number {
  return candle.open - side * (spreadOf(candle, pricing) / 2 + pricing.slippage);
}

/**
 * A closed trade's P/L in the account currency, rounded to the cent: (exit − entry) × units on
 * its side, converted at `rate` (account currency per unit of the quote), less the commission.
 */
export function pnlOf(side: 1 | -1, entry: number, exit: number, units: number, rate: number, commission: number): number {
  return money(side * (exit - entry) * units * rate - commission);
}

/** The P/L over the money at risk at the entry (entry to the first stop, the same units and rate), to 4 decimals; 0 without a risk. */
export function rMultipleOf(pnl: number, entry: number, initialStop: number, units: number, rate: number): number {
  const risk = Math.abs(entry - initialStop) * units * rate;
  return risk > 0 ? Math.round((pnl / risk) * 10_000) / 10_000 : 0;
}

/** The commission of a round turn of `lots`, rounded to the cent. */
export function commissionOf(fills: Pick<FillModel, 'commission_per_lot'>, lots: number): number {
  return money(fills.commission_per_lot * lots);
}

/** An amount of money rounded to the cent. */
export const money = (v: number): number => Math.round(v * 100) / 100;

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
