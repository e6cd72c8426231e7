import type { FillingMode, OrderType, Quote, SymbolInfo, TradeRequest } from '@fxdesk/broker';
import {
  addDecimal,
  compareDecimal,
  decimalFromNumber,
  decimalPlaces,
  formatDecimal,
  isMultipleOf,
  multiplyDecimal,
  subtractDecimal,
} from '@fxdesk/primitives';
import type { SignalSubmission } from '@fxdesk/schemas';
import { errors } from './errors.js';

export interface OrderLimits {
  /** MAXIMUM_VOLUME, lots. */
  maximumVolume: string;
  maxDeviationPoints: number;
  magic: number;
}

type Leg = 'stop_loss' | 'take_profit';
const PRICE_FIELDS = ['entry_price', 'stop_loss', 'take_profit', 'stop_loss_distance', 'take_profit_distance'] as const;

const ORDER_TYPES: Record<SignalSubmission['execution_type'], Record<SignalSubmission['direction'], OrderType>> = {
  market: { buy: 'buy', sell: 'sell' },
  limit: { buy: 'buy_limit', sell: 'sell_limit' },
  stop: { buy: 'buy_stop', sell: 'sell_stop' },
};

/** Volume within the symbol's min and max, a whole number of steps, and at most MAXIMUM_VOLUME. */
export function checkVolume(volume: string, info: SymbolInfo, maximumVolume: string): void {
  const problem =
    compareDecimal(volume, info.volumeMin) < 0
      ? `is below the symbol's minimum ${info.volumeMin}`
      : compareDecimal(volume, info.volumeMax) > 0
        ? `is above the symbol's maximum ${info.volumeMax}`
        : !isMultipleOf(volume, info.volumeStep)
          ? `is not a multiple of the symbol's volume step ${info.volumeStep}`
          : compareDecimal(volume, maximumVolume) > 0
            ? `is above MAXIMUM_VOLUME ${maximumVolume}`
            : undefined;
  if (problem) {
    throw errors.create('invalid_volume', `volume ${volume} ${problem} (${info.symbol})`, {
      details: [{ path: 'body.volume', message: problem }],
    });
  }
}

/** Prices and distances carry at most the symbol's digits (a distance is a whole number of points). */
export function checkPricePrecision(signal: SignalSubmission, info: SymbolInfo): void {
  const details = PRICE_FIELDS.filter((f) => signal[f] !== undefined && decimalPlaces(signal[f]) > info.digits).map((f) => ({
    path: `body.${f}`,
    message: `has more than the ${info.digits} decimal places of ${info.symbol}`,
  }));
  if (details.length > 0) {
    throw errors.create('invalid_price', `${details.map((d) => d.path.slice(5)).join(', ')}: more than ${info.digits} decimal places for ${info.symbol}`, {
      details,
    });
  }
}

/** One point of the symbol as an exact decimal (0.00001 for 5 digits). */
function pointOf(info: SymbolInfo): string {
  return formatDecimal({ units: 1n, scale: info.digits });
}

interface Prices {
  bid: string;
  ask: string;
}

export function quotePrices(quote: Quote, info: SymbolInfo): Prices {
  return { bid: decimalFromNumber(quote.bid, info.digits), ask: decimalFromNumber(quote.ask, info.digits) };
}

/**
 * Spec 001 (A) risk-level rule 3: the reference price is the live ask for a buy, the live bid
 * for a sell, and `entry_price` for a pending order.
 */
export function referencePrice(signal: SignalSubmission, prices: Prices): string {
  if (signal.execution_type !== 'market') return signal.entry_price as string;
  return signal.direction === 'buy' ? prices.ask : prices.bid;
}

/**
 * Rule 2: a distance is resolved against the reference price with the direction's sign: below
 * it for a buy's stop loss and a sell's take profit, above it for the other two.
 */
export function resolveLeg(signal: SignalSubmission, leg: Leg, reference: string): string | undefined {
  const absolute = signal[leg];
  if (absolute !== undefined) return absolute;
  const distance = signal[`${leg}_distance`];
  if (distance === undefined) return undefined;
  const below = (leg === 'stop_loss') === (signal.direction === 'buy');
  const price = below ? subtractDecimal(reference, distance) : addDecimal(reference, distance);
  if (compareDecimal(price, '0') <= 0) {
    throw errors.create('invalid_stops', `${leg}_distance ${distance} puts the ${leg} at ${price}, not a price`, {
      details: [{ path: `body.${leg}_distance`, message: 'resolves to a price at or below zero' }],
    });
  }
  return price;
}

/** Whether `from` lies beyond `to` by more than zero and at least `minimum`. */
function clearsBy(from: string, to: string, minimum: string): boolean {
  const gap = subtractDecimal(from, to);
  return compareDecimal(gap, '0') > 0 && compareDecimal(gap, minimum) >= 0;
}

/**
 * The MT5 stops-level rules ("Requirements and Limitations in Making Trades", MQL5 reference):
 * stops are measured from the price the position would close at (bid for a buy, ask for a sell)
 * for market orders, and from the open price for pending ones; each must sit on its side and at
 * least SYMBOL_TRADE_STOPS_LEVEL points away.
 */
function checkStops(signal: SignalSubmission, info: SymbolInfo, prices: Prices, legs: Record<Leg, string | undefined>): void {
  const isBuy = signal.direction === 'buy';
  const base = signal.execution_type === 'market' ? (isBuy ? prices.bid : prices.ask) : (signal.entry_price as string);
  const placed: StopLeg[] = [];
  for (const leg of ['stop_loss', 'take_profit'] as const) {
    const price = legs[leg];
    if (price !== undefined) placed.push({ leg, price, path: `body.${signal[leg] !== undefined ? leg : `${leg}_distance`}` });
  }
  checkStopLevels(isBuy, base, placed, info);
}

/** A stop loss or take profit to check, with the request field it came from. */
export interface StopLeg {
  leg: Leg;
  price: string;
  path: string;
}

/**
 * Each leg on its side of `base` (below it for a buy's stop loss, above it for its take profit,
 * the other way for a sell) and at least SYMBOL_TRADE_STOPS_LEVEL points away; a position's
 * modification is checked against the price it would close at, as a market order's stops are.
 */
export function checkStopLevels(isBuy: boolean, base: string, legs: StopLeg[], info: SymbolInfo): void {
  const minimum = multiplyDecimal(String(info.stopsLevel), pointOf(info));
  const details: { path: string; message: string }[] = [];
  for (const { leg, price, path } of legs) {
    const mustBeBelow = (leg === 'stop_loss') === isBuy;
    const ok = mustBeBelow ? clearsBy(base, price, minimum) : clearsBy(price, base, minimum);
    if (!ok) {
      details.push({ path, message: `${leg} ${price} must be ${mustBeBelow ? 'below' : 'above'} ${base} by at least ${info.stopsLevel} points (${minimum})` });
    }
  }
  if (details.length > 0) throw errors.create('invalid_stops', details.map((d) => d.message).join('; '), { details });
}

/** The same table's rule for the open price of a pending order against the market. */
function checkPendingPrice(signal: SignalSubmission, info: SymbolInfo, prices: Prices): void {
  if (signal.execution_type === 'market') return;
  const entry = signal.entry_price as string;
  const minimum = multiplyDecimal(String(info.stopsLevel), pointOf(info));
  const isBuy = signal.direction === 'buy';
  const market = isBuy ? prices.ask : prices.bid;
  const belowMarket = (signal.execution_type === 'limit') === isBuy;
  const ok = belowMarket ? clearsBy(market, entry, minimum) : clearsBy(entry, market, minimum);
  if (!ok) {
    const message = `a ${signal.direction} ${signal.execution_type} needs entry_price ${belowMarket ? 'below' : 'above'} the ${isBuy ? 'ask' : 'bid'} ${market} by at least ${info.stopsLevel} points (${minimum})`;
    throw errors.create('invalid_price', message, { details: [{ path: 'body.entry_price', message }] });
  }
}

function checkDeviation(signal: SignalSubmission, maxDeviationPoints: number): number {
  const deviation = signal.deviation_points ?? maxDeviationPoints;
  if (deviation > maxDeviationPoints) {
    const message = `deviation_points ${deviation} is above MAX_DEVIATION_POINTS ${maxDeviationPoints}`;
    throw errors.create('invalid_deviation', message, { details: [{ path: 'body.deviation_points', message }] });
  }
  return deviation;
}

/**
 * Market orders fill immediate-or-cancel when the symbol allows it (so a partial fill is
 * possible and reported), else fill-or-kill; pending orders rest with RETURN.
 */
function fillingFor(signal: SignalSubmission, modes: FillingMode[]): FillingMode | undefined {
  const preference: FillingMode[] = signal.execution_type === 'market' ? ['IOC', 'FOK', 'RETURN'] : ['RETURN', 'IOC', 'FOK'];
  return preference.find((mode) => modes.includes(mode));
}

/**
 * Applies the symbol rules of DESIGN.md §4 (volume, price precision, distance legs, stop
 * distances, deviation cap) and builds the MT5 trade request, or throws the rule's AppError.
 */
export function buildTradeRequest(signal: SignalSubmission, info: SymbolInfo, quote: Quote, limits: OrderLimits, comment: string): TradeRequest {
  checkVolume(signal.volume, info, limits.maximumVolume);
  checkPricePrecision(signal, info);
  const prices = quotePrices(quote, info);
  checkPendingPrice(signal, info, prices);
  const reference = referencePrice(signal, prices);
  const legs = { stop_loss: resolveLeg(signal, 'stop_loss', reference), take_profit: resolveLeg(signal, 'take_profit', reference) };
  checkStops(signal, info, prices, legs);
  const deviation = checkDeviation(signal, limits.maxDeviationPoints);
  const isMarket = signal.execution_type === 'market';
  const request: TradeRequest = {
    action: isMarket ? 'deal' : 'pending',
    symbol: signal.symbol,
    type: ORDER_TYPES[signal.execution_type][signal.direction],
    volume: signal.volume,
    price: reference,
    magic: limits.magic,
    comment,
  };
  if (legs.stop_loss !== undefined) request.sl = legs.stop_loss;
  if (legs.take_profit !== undefined) request.tp = legs.take_profit;
  if (isMarket) request.deviation = deviation;
  const filling = fillingFor(signal, info.fillingModes);
  if (filling) request.filling = filling;
  if (!isMarket) {
    // MT5 expiry is whole seconds; rounding down never lets an order outlive its signal.
    if (signal.expires_at !== undefined) {
      request.timeType = 'SPECIFIED';
      request.expiration = Math.floor(Date.parse(signal.expires_at) / 1000);
    } else request.timeType = 'GTC';
  }
  return request;
}
