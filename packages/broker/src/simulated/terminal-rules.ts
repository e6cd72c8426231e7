/**
 * The simulated terminal's per-symbol trading rules (MT5 `symbol_info`), derived from the
 * market's symbol table, and the exact-decimal helpers its checks use.
 */
import { decimalPlaces, formatDecimal, isDecimalString, parseDecimal } from '@fxdesk/core';
import type { SymbolInfo, SymbolTradeMode } from '../terminal.js';
import type { SymbolSpec, SymbolTier } from './symbols.js';

/** Largest volume one market deal fills at once; the rest of an IOC order is cancelled (10010). */
export const LIQUIDITY_LOTS: Record<SymbolTier, string> = { major: '20', cross: '10', metal: '5' };
const VOLUME_MAX_LOTS: Record<SymbolTier, string> = { major: '100', cross: '100', metal: '50' };

/** MT5 `symbol_info` of a simulated symbol: stops level one typical spread, freeze level half of it. */
export function simulatedSymbolInfo(spec: SymbolSpec, tradeMode: SymbolTradeMode): SymbolInfo {
  return {
    symbol: spec.symbol,
    description: spec.description,
    digits: spec.digits,
    point: spec.point,
    contractSize: spec.contractSize,
    volumeMin: '0.01',
    volumeMax: VOLUME_MAX_LOTS[spec.tier],
    volumeStep: '0.01',
    stopsLevel: spec.typicalSpreadPoints,
    freezeLevel: Math.round(spec.typicalSpreadPoints / 2),
    fillingModes: ['FOK', 'IOC', 'RETURN'],
    expirationModes: ['GTC', 'DAY', 'SPECIFIED', 'SPECIFIED_DAY'],
    tradeMode,
    currencyBase: spec.base,
    currencyProfit: spec.quote,
    currencyMargin: spec.base,
  };
}

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

/** Whole points of a quote price (the market's prices are exact multiples of a point). */
export function quoteToPoints(price: number, digits: number): number {
  return Math.round(price * 10 ** digits);
}

/** A price in points as the decimal string a terminal prints (trailing zeros dropped). */
export function pointsToPrice(points: number, digits: number): string {
  return formatDecimal({ units: BigInt(points), scale: digits });
}
