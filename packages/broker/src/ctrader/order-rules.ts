import { compareDecimal, decimalFromNumber, isDecimalString } from '@fxdesk/primitives';
import { RETCODE } from '../mt5-retcodes.js';
import { pendingPriceProblem, priceToPoints, quoteToPoints, stopDistanceProblem } from '../mt5-rules.js';
import type { OrderType, SymbolInfo, TradeRequest, TradeResult } from '../terminal.js';
import type { Quote } from '../types.js';
import type { SymbolTerms } from './account-data.js';
import { labelFor } from './labels.js';
import { lotsToVolume, volumeToLots } from './volumes.js';

/** The MT5 rules the cTrader terminal checks before sending, and the ProtoOANewOrderReq it sends. */

export function sideOf(type: OrderType): 'buy' | 'sell' {
  return type.startsWith('buy') ? 'buy' : 'sell';
}

export function refusal(retcode: number, comment: string, quote: Quote | null = null): TradeResult {
  return {
    retcode,
    deal: null,
    order: null,
    position: null,
    volume: '0',
    price: null,
    bid: quote?.bid ?? null,
    ask: quote?.ask ?? null,
    comment,
    requestId: null,
  };
}

export function priceText(price: number, digits: number): string {
  return decimalFromNumber(price, digits);
}

export function pointsOf(price: number | undefined, digits: number): number | null {
  return price === undefined ? null : Math.round(price * 10 ** digits);
}

/** The MT5 view of a symbol's cTrader terms; lots are `lotSize` cents of units. */
export function symbolInfoOf(terms: SymbolTerms): SymbolInfo {
  const tradeMode: SymbolInfo['tradeMode'] =
    terms.tradingMode === 'CLOSE_ONLY_MODE' ? 'close_only' : terms.tradingMode !== 'ENABLED' ? 'disabled' : terms.isShortSellingEnabled ? 'full' : 'long_only';
  return {
    symbol: terms.name,
    description: terms.description,
    digits: terms.digits,
    point: 10 ** -terms.digits,
    contractSize: terms.lotSize / 100,
    volumeMin: volumeToLots(terms.minVolume, terms.lotSize),
    volumeMax: volumeToLots(terms.maxVolume, terms.lotSize),
    volumeStep: volumeToLots(terms.stepVolume, terms.lotSize),
    stopsLevel: terms.stopsLevelPoints,
    freezeLevel: 0,
    fillingModes: ['FOK', 'IOC'],
    expirationModes: ['GTC', 'SPECIFIED'],
    tradeMode,
    currencyBase: terms.baseAsset,
    currencyProfit: terms.quoteAsset,
    currencyMargin: terms.baseAsset,
  };
}

/**
 * What the venue would refuse on the request's face, checked before anything is sent: a volume
 * off the symbol's terms, a pending price on the wrong side, a stop on the wrong side of the
 * price or within the stops level, an expiry past or of a kind cTrader has not (GOOD_TILL_DATE is
 * MT5's SPECIFIED).
 */
export function requestProblem(
  request: TradeRequest,
  terms: SymbolTerms,
  quote: Quote | null,
  nowMs: number,
): { retcode: number; comment: string } | undefined {
  if (terms.tradingMode !== 'ENABLED') return { retcode: RETCODE.TRADE_DISABLED, comment: `${terms.name} is in ${terms.tradingMode}` };
  if (!quote) return { retcode: RETCODE.PRICE_OFF, comment: `no quote for ${terms.name}` };
  const volume = lotsToVolume(request.volume, terms.lotSize);
  if (volume === null || volume < terms.minVolume || volume > terms.maxVolume || volume % terms.stepVolume !== 0) {
    return { retcode: RETCODE.INVALID_VOLUME, comment: `volume ${request.volume} is off ${terms.name}'s terms` };
  }
  const market = { bid: quoteToPoints(quote.bid, terms.digits), ask: quoteToPoints(quote.ask, terms.digits) };
  const side = sideOf(request.type);
  const isMarket = request.type === 'buy' || request.type === 'sell';
  if (isMarket !== (request.action === 'deal')) return { retcode: RETCODE.INVALID, comment: `a ${request.action} cannot be a ${request.type}` };
  let base = side === 'buy' ? market.bid : market.ask;
  if (!isMarket) {
    const price = request.price === undefined ? null : priceToPoints(request.price, terms.digits);
    if (price === null) return { retcode: RETCODE.INVALID_PRICE, comment: `price ${String(request.price)} is not a price of ${terms.name}` };
    const problem = pendingPriceProblem(request.type, price, market, 0);
    if (problem) return { retcode: RETCODE.INVALID_PRICE, comment: problem };
    base = price;
  }
  for (const leg of ['sl', 'tp'] as const) {
    const value = request[leg];
    if (value === undefined || (isDecimalString(value) && compareDecimal(value, '0') === 0)) continue;
    const points = priceToPoints(value, terms.digits);
    if (points === null) return { retcode: RETCODE.INVALID_STOPS, comment: `${leg} ${value} is not a price of ${terms.name}` };
    const problem = stopDistanceProblem(leg, points, side, base, terms.stopsLevelPoints);
    if (problem) return { retcode: RETCODE.INVALID_STOPS, comment: problem };
  }
  if (isMarket) return undefined;
  const mode = request.timeType ?? 'GTC';
  if (mode !== 'GTC' && mode !== 'SPECIFIED') return { retcode: RETCODE.INVALID_EXPIRATION, comment: `cTrader has no ${mode} orders` };
  if (mode === 'SPECIFIED' && !(request.expiration !== undefined && request.expiration * 1000 > nowMs)) {
    return { retcode: RETCODE.INVALID_EXPIRATION, comment: 'the expiration is not in the future' };
  }
  return undefined;
}

/** ProtoOANewOrderReq of an MT5 request already checked by `requestProblem`. */
export function newOrderPayload(request: TradeRequest, terms: SymbolTerms, quote: Quote): Record<string, unknown> {
  const side = sideOf(request.type);
  const common = {
    symbolId: terms.symbolId,
    tradeSide: side === 'buy' ? 'BUY' : 'SELL',
    volume: lotsToVolume(request.volume, terms.lotSize),
    label: labelFor(request.magic),
    comment: request.comment,
    clientOrderId: request.comment.slice(0, 50),
  };
  const stop = (leg: 'sl' | 'tp') => {
    const value = request[leg];
    return value === undefined || compareDecimal(value, '0') === 0 ? undefined : value;
  };
  const sl = stop('sl');
  const tp = stop('tp');
  if (request.action === 'deal') {
    // Relative stops are "Specified in 1/100000 of unit of a price", from the entry price.
    const entry = quoteToPoints(side === 'buy' ? quote.ask : quote.bid, terms.digits);
    const toUnits = (points: number) => points * 10 ** (5 - terms.digits);
    const direction = side === 'buy' ? 1 : -1;
    return {
      ...common,
      orderType: 'MARKET',
      timeInForce: request.filling === 'FOK' ? 'FILL_OR_KILL' : 'IMMEDIATE_OR_CANCEL',
      ...(sl === undefined ? {} : { relativeStopLoss: toUnits((entry - (priceToPoints(sl, terms.digits) as number)) * direction) }),
      ...(tp === undefined ? {} : { relativeTakeProfit: toUnits(((priceToPoints(tp, terms.digits) as number) - entry) * direction) }),
    };
  }
  const isLimit = request.type.endsWith('limit');
  const isDated = request.timeType === 'SPECIFIED';
  return {
    ...common,
    orderType: isLimit ? 'LIMIT' : 'STOP',
    [isLimit ? 'limitPrice' : 'stopPrice']: Number(request.price),
    timeInForce: isDated ? 'GOOD_TILL_DATE' : 'GOOD_TILL_CANCEL',
    ...(isDated ? { expirationTimestamp: (request.expiration as number) * 1000 } : {}),
    ...(sl === undefined ? {} : { stopLoss: Number(sl) }),
    ...(tp === undefined ? {} : { takeProfit: Number(tp) }),
  };
}
