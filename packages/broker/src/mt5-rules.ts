import { decimalPlaces, formatDecimal, isDecimalString, parseDecimal } from '@fxdesk/primitives';
import type { OrderType, PendingOrderType } from './terminal.js';

/**
 * The price, stop and expiry rules of MT5's "Requirements and Limitations in Making Trades"
 * (MQL5 reference) that a trade server applies, on prices in whole points: the simulated
 * terminal applies them, the MetaApi adapter's order_check emulation checks against them. Each
 * check answers what is wrong, or undefined.
 */

const DAY_MS = 86_400_000;

/**
 * A price string as a whole number of points (1.08512 → 108512 at 5 digits), or null when it
 * is not a positive decimal or has more decimal places than the symbol's digits.
 */
export function priceToPoints(value: string, digits: number): number | null {
  if (!isDecimalString(value) || value.startsWith('-') || value.startsWith('+') || decimalPlaces(value) > digits) return null;
  const { units, scale } = parseDecimal(value);
  const points = scale <= digits ? units * 10n ** BigInt(digits - scale) : units / 10n ** BigInt(scale - digits);
  return points > 0n ? Number(points) : null;
}

/** Whole points of a quote price (a venue's prices are exact multiples of a point). */
export function quoteToPoints(price: number, digits: number): number {
  return Math.round(price * 10 ** digits);
}

/** A price in points as the decimal string a terminal prints (trailing zeros dropped). */
export function pointsToPrice(points: number, digits: number): string {
  return formatDecimal({ units: BigInt(points), scale: digits });
}

/** Which market price a pending order is measured from, and on which side of it it must rest. */
const PENDING_SIDE: Record<PendingOrderType, { from: 'ask' | 'bid'; below: boolean }> = {
  buy_limit: { from: 'ask', below: true },
  sell_limit: { from: 'bid', below: false },
  buy_stop: { from: 'ask', below: false },
  sell_stop: { from: 'bid', below: true },
};

/** How far a pending order's price sits on its side of the market, in points (≤ 0: the wrong side). */
function pendingGap(type: PendingOrderType, pricePoints: number, market: { bid: number; ask: number }): number {
  const { from, below } = PENDING_SIDE[type];
  return below ? market[from] - pricePoints : pricePoints - market[from];
}

/** A buy limit / sell stop below the market, a sell limit / buy stop above it, at least the stops level away. */
export function pendingPriceProblem(type: OrderType, pricePoints: number, market: { bid: number; ask: number }, stopsLevel: number): string | undefined {
  if (type === 'buy' || type === 'sell') return undefined;
  const { from, below } = PENDING_SIDE[type];
  const gap = pendingGap(type, pricePoints, market);
  if (gap <= 0) return `a ${type} must be ${below ? 'below' : 'above'} the ${from}`;
  if (gap < stopsLevel) return `a ${type} must be at least ${stopsLevel} points from the ${from} (is ${gap})`;
  return undefined;
}

/** Whether a stop loss of a buy (a take profit of a sell) belongs below its base price. */
function isBelowBase(leg: 'sl' | 'tp', side: 'buy' | 'sell'): boolean {
  return (leg === 'sl') === (side === 'buy');
}

/** How far a stop sits on its side of `basePoints`, in points (≤ 0: the wrong side). */
function stopGap(leg: 'sl' | 'tp', points: number, side: 'buy' | 'sell', basePoints: number): number {
  return isBelowBase(leg, side) ? basePoints - points : points - basePoints;
}

/**
 * A stop loss below and a take profit above `basePoints` for a buy (the other way for a sell),
 * at least the stops level away. `null` is no stop.
 */
export function stopDistanceProblem(leg: 'sl' | 'tp', points: number | null, side: 'buy' | 'sell', basePoints: number, stopsLevel: number): string | undefined {
  if (points === null) return undefined;
  const gap = stopGap(leg, points, side, basePoints);
  if (gap <= 0) return `${leg} must be ${isBelowBase(leg, side) ? 'below' : 'above'} the price`;
  if (gap < stopsLevel) return `${leg} is ${gap} points from the price, the stops level is ${stopsLevel}`;
  return undefined;
}

/**
 * MT5's freeze level: a position's stop within `freezeLevel` points of its close price
 * (`basePoints`) cannot be changed. `null` is no stop.
 */
export function frozenStopProblem(leg: 'sl' | 'tp', points: number | null, side: 'buy' | 'sell', basePoints: number, freezeLevel: number): string | undefined {
  if (points === null) return undefined;
  const gap = stopGap(leg, points, side, basePoints);
  return gap < freezeLevel ? `the ${leg} is ${gap} points from the price, inside the freeze level ${freezeLevel}` : undefined;
}

/** MT5's freeze level: a pending order within `freezeLevel` points of the market can be neither changed nor deleted. */
export function frozenOrderProblem(type: PendingOrderType, pricePoints: number, market: { bid: number; ask: number }, freezeLevel: number): string | undefined {
  const gap = pendingGap(type, pricePoints, market);
  return gap < freezeLevel ? `the ${type} is ${gap} points from the market, inside the freeze level ${freezeLevel}` : undefined;
}

/** The end of the UTC day `epochMs` falls in: when a DAY order placed then expires. */
export function endOfUtcDayMs(epochMs: number): number {
  return (Math.floor(epochMs / DAY_MS) + 1) * DAY_MS;
}

/** When a SPECIFIED order (at the instant) or a SPECIFIED_DAY one (at the end of its day) expires; `expiration` in epoch seconds. */
export function specifiedExpiryMs(mode: 'SPECIFIED' | 'SPECIFIED_DAY', expiration: number): number {
  return mode === 'SPECIFIED' ? expiration * 1000 : endOfUtcDayMs(expiration * 1000);
}
