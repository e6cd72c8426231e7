import { compareDecimal } from '@fxdesk/core';
import { priceToPoints } from '../simulated/terminal-rules.js';
import type { OrderType, SymbolInfo, TradeRequest } from '../terminal.js';

/**
 * The price, stop and expiry rules of MT5's "Requirements and Limitations in Making Trades"
 * (MQL5 reference) that a trade server applies, on prices in whole points. Each answers what is
 * wrong, or undefined.
 */

const DAY_MS = 86_400_000;

/** Which market price a pending order is measured from, and on which side of it it must rest. */
const PENDING_SIDE: Record<Exclude<OrderType, 'buy' | 'sell'>, { from: 'ask' | 'bid'; below: boolean }> = {
  buy_limit: { from: 'ask', below: true },
  sell_limit: { from: 'bid', below: false },
  buy_stop: { from: 'ask', below: false },
  sell_stop: { from: 'bid', below: true },
};

/** A buy limit / sell stop below the market, a sell limit / buy stop above it, at least the stops level away. */
export function pendingPriceProblem(type: OrderType, pricePoints: number, market: { bid: number; ask: number }, stopsLevel: number): string | undefined {
  if (type === 'buy' || type === 'sell') return undefined;
  const { from, below } = PENDING_SIDE[type];
  const gap = below ? market[from] - pricePoints : pricePoints - market[from];
  if (gap <= 0) return `a ${type} must be ${below ? 'below' : 'above'} the ${from}`;
  if (gap < stopsLevel) return `a ${type} must be at least ${stopsLevel} points from the ${from} (is ${gap})`;
  return undefined;
}

/**
 * Stop loss below and take profit above `basePoints` for a buy (the other way for a sell), on the
 * symbol's digits and at least the stops level away. `0` means no stop.
 */
export function stopsProblem(request: Pick<TradeRequest, 'sl' | 'tp'>, digits: number, side: 'buy' | 'sell', basePoints: number, stopsLevel: number): string | undefined {
  for (const leg of ['sl', 'tp'] as const) {
    const value = request[leg];
    if (value === undefined || compareDecimal(value, '0') === 0) continue;
    const points = priceToPoints(value, digits);
    if (points === null) return `${leg} ${value} is not a valid ${digits}-digit price`;
    const isBelow = (leg === 'sl') === (side === 'buy');
    const gap = isBelow ? basePoints - points : points - basePoints;
    if (gap <= 0) return `${leg} must be ${isBelow ? 'below' : 'above'} the price`;
    if (gap < stopsLevel) return `${leg} is ${gap} points from the price, the stops level is ${stopsLevel}`;
  }
  return undefined;
}

/** The lifetime among the symbol's expiration modes, and a SPECIFIED / SPECIFIED_DAY expiry still ahead of `nowMs`. */
export function expiryProblem(request: Pick<TradeRequest, 'timeType' | 'expiration'>, info: SymbolInfo, nowMs: number): string | undefined {
  const mode = request.timeType ?? 'GTC';
  if (!info.expirationModes.includes(mode)) return `expiration mode ${mode} is not allowed for ${info.symbol}`;
  if (mode === 'GTC' || mode === 'DAY') return undefined;
  if (request.expiration === undefined || !Number.isInteger(request.expiration)) return `${mode} needs an expiration in epoch seconds`;
  const endsAt = mode === 'SPECIFIED' ? request.expiration * 1000 : (Math.floor((request.expiration * 1000) / DAY_MS) + 1) * DAY_MS;
  return endsAt > nowMs ? undefined : `expiration ${new Date(endsAt).toISOString()} is not in the future`;
}
