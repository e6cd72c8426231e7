import { compareDecimal, isDecimalString, isMultipleOf } from '@fxdesk/primitives';
import { RETCODE } from '../mt5-retcodes.js';
import { pendingPriceProblem, priceToPoints, quoteToPoints, specifiedExpiryMs, stopDistanceProblem } from '../mt5-rules.js';
import type { SymbolInfo, TradeCheckResult, TradeRequest } from '../terminal.js';
import { brokerOffsetMs } from './normalize.js';
import type { WireAccountInformation, WireSession, WireSymbolPrice, WireSymbolSpecification } from './wire.js';

/** MT5 TRADE_RETCODE_INVALID_ORDER: "Incorrect or prohibited order type". */
const INVALID_ORDER = 10035;

/** What the pre-check reads from MetaApi before deciding. */
export interface PreCheckFacts {
  request: TradeRequest;
  spec: WireSymbolSpecification;
  info: SymbolInfo;
  account: WireAccountInformation;
  /** The symbol's current price, null when MetaApi has none. */
  price: WireSymbolPrice | null;
  nowMs: number;
}

export interface Verdict {
  retcode: number;
  comment: string;
}

const pass = (): Verdict => ({ retcode: RETCODE.OK, comment: 'Done' });
const fail = (retcode: number, comment: string): Verdict => ({ retcode, comment });

const SIDE_OF = (type: TradeRequest['type']): 'buy' | 'sell' => (type.startsWith('buy') ? 'buy' : 'sell');

/** The SYMBOL_ORDER_* flag a request needs for its type (allowedOrderTypes). */
function orderTypeFlag(type: TradeRequest['type']): string {
  if (type === 'buy' || type === 'sell') return 'SYMBOL_ORDER_MARKET';
  return type.endsWith('limit') ? 'SYMBOL_ORDER_LIMIT' : 'SYMBOL_ORDER_STOP';
}

function volumeProblem(volume: string, info: SymbolInfo): string | undefined {
  if (!isDecimalString(volume) || compareDecimal(volume, '0') <= 0) return `volume ${JSON.stringify(volume)} is not a positive decimal`;
  if (compareDecimal(volume, info.volumeMin) < 0) return `volume ${volume} is below the minimum ${info.volumeMin}`;
  if (compareDecimal(volume, info.volumeMax) > 0) return `volume ${volume} is above the maximum ${info.volumeMax}`;
  if (!isMultipleOf(volume, info.volumeStep)) return `volume ${volume} is not a multiple of the step ${info.volumeStep}`;
  return undefined;
}

/** SL and TP on the symbol's digits and on their side of `basePoints`, at least the stops level away. `0` means no stop. */
function stopsProblem(
  request: Pick<TradeRequest, 'sl' | 'tp'>,
  digits: number,
  side: 'buy' | 'sell',
  basePoints: number,
  stopsLevel: number,
): string | undefined {
  for (const leg of ['sl', 'tp'] as const) {
    const value = request[leg];
    if (value === undefined) continue;
    // Text that is no decimal is an invalid stop (10016), as the terminal answers, never a throw.
    if (!isDecimalString(value)) return `${leg} ${JSON.stringify(value)} is not a decimal price`;
    if (compareDecimal(value, '0') === 0) continue;
    const points = priceToPoints(value, digits);
    if (points === null) return `${leg} ${value} is not a valid ${digits}-digit price`;
    const problem = stopDistanceProblem(leg, points, side, basePoints, stopsLevel);
    if (problem) return problem;
  }
  return undefined;
}

/** The lifetime among the symbol's expiration modes, and a SPECIFIED / SPECIFIED_DAY expiry still ahead of `nowMs`. */
function expiryProblem(request: Pick<TradeRequest, 'timeType' | 'expiration'>, info: SymbolInfo, nowMs: number): string | undefined {
  const mode = request.timeType ?? 'GTC';
  if (!info.expirationModes.includes(mode)) return `expiration mode ${mode} is not allowed for ${info.symbol}`;
  if (mode === 'GTC' || mode === 'DAY') return undefined;
  if (request.expiration === undefined || !Number.isInteger(request.expiration)) return `${mode} needs an expiration in epoch seconds`;
  const endsAt = specifiedExpiryMs(mode, request.expiration);
  return endsAt > nowMs ? undefined : `expiration ${new Date(endsAt).toISOString()} is not in the future`;
}

const DAY_MS = 86_400_000;
const WEEKDAYS = ['SUNDAY', 'MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY'];

/** "hh.mm.ss.SSS" (or with colons) as ms since midnight. */
function timeOfDayMs(text: string): number | undefined {
  const m = /^(\d{1,2})[.:](\d{2})[.:](\d{2})(?:[.:](\d{1,3}))?$/.exec(text);
  if (!m) return undefined;
  return ((Number(m[1]) * 60 + Number(m[2])) * 60 + Number(m[3])) * 1000 + Number((m[4] ?? '0').padEnd(3, '0'));
}

/**
 * Whether `brokerNowMs` (broker-zone wall time as epoch ms) falls in one of the symbol's trade
 * sessions of that weekday, `to` inclusive. No sessions at all means MetaApi said nothing: open.
 */
export function isInTradeSession(sessions: Record<string, WireSession[]> | undefined, brokerNowMs: number): boolean {
  if (!sessions || Object.values(sessions).every((day) => day.length === 0)) return true;
  const day = WEEKDAYS[new Date(brokerNowMs).getUTCDay()] as string;
  const t = ((brokerNowMs % DAY_MS) + DAY_MS) % DAY_MS;
  return (sessions[day] ?? []).some((s) => {
    const from = timeOfDayMs(s.from);
    const to = timeOfDayMs(s.to);
    return from !== undefined && to !== undefined && from <= t && t <= to;
  });
}

/**
 * MT5's order_check, emulated: MetaApi has none, so the request is checked against the symbol
 * specification, the account information and the current price, in the order a trade server
 * applies its checks, answering the retcode order_send would give. Margin is the one check left
 * (`checkMargin`, with MetaApi's margin calculation). What is checked:
 * - the symbol is listed; the order type goes with the action (10013);
 * - the symbol's trade mode and the account's `tradeAllowed` (10017 disabled, 10044 close-only,
 *   10042 long-only, 10043 short-only);
 * - the order type is among `allowedOrderTypes` (10035);
 * - volume ≥ minVolume, ≤ maxVolume, a whole number of volumeStep, exact decimals (10014);
 * - a deal's filling mode: FOK/IOC among `fillingModes`, RETURN only in Market or Exchange
 *   execution (10030);
 * - a current price exists (10021); now, in broker time (the price's brokerTime − time), falls
 *   in a trade session of the day (10018);
 * - prices on the symbol's digits; a pending order's price on the right side of the market and
 *   at least `stopsLevel` points away (10015);
 * - SL/TP on their side of the closing price (deals) or the order price (pending), at least
 *   `stopsLevel` points away (10016);
 * - a pending order's expiration mode among `allowedExpirationModes` and its instant ahead (10022).
 * Not checked (the trade server decides at execution): requotes against the deviation, the
 * freeze level (it concerns modifications), volume limits across positions.
 */
export function preCheck(facts: PreCheckFacts): Verdict {
  const { request, spec, info, account, price, nowMs } = facts;
  const isDeal = request.action === 'deal';
  const side = SIDE_OF(request.type);
  if (isDeal !== (request.type === 'buy' || request.type === 'sell'))
    return fail(RETCODE.INVALID, `order type ${request.type} does not go with action ${request.action}`);
  if (info.tradeMode === 'disabled' || account.tradeAllowed === false) return fail(RETCODE.TRADE_DISABLED, `trading ${spec.symbol} is disabled`);
  if (info.tradeMode === 'close_only') return fail(RETCODE.CLOSE_ONLY, `${spec.symbol} is close-only`);
  if (info.tradeMode === 'long_only' && side === 'sell') return fail(RETCODE.LONG_ONLY, `${spec.symbol} is long-only`);
  if (info.tradeMode === 'short_only' && side === 'buy') return fail(RETCODE.SHORT_ONLY, `${spec.symbol} is short-only`);
  if (spec.allowedOrderTypes && !spec.allowedOrderTypes.includes(orderTypeFlag(request.type))) {
    return fail(INVALID_ORDER, `${orderTypeFlag(request.type)} orders are not allowed for ${spec.symbol}`);
  }
  const volume = volumeProblem(request.volume, info);
  if (volume) return fail(RETCODE.INVALID_VOLUME, volume);
  if (isDeal && request.filling !== undefined) {
    const returnAllowed = spec.executionMode === 'SYMBOL_TRADE_EXECUTION_MARKET' || spec.executionMode === 'SYMBOL_TRADE_EXECUTION_EXCHANGE';
    const allowed = request.filling === 'RETURN' ? returnAllowed : info.fillingModes.includes(request.filling);
    if (!allowed) return fail(RETCODE.INVALID_FILL, `filling mode ${request.filling} is not allowed for ${spec.symbol}`);
  }
  if (!price) return fail(RETCODE.PRICE_OFF, `no quotes for ${spec.symbol}`);
  if (!isInTradeSession(spec.tradeSessions, nowMs + brokerOffsetMs(price))) return fail(RETCODE.MARKET_CLOSED, 'market is closed');

  const bid = quoteToPoints(price.bid, spec.digits);
  const ask = quoteToPoints(price.ask, spec.digits);
  let pricePoints = side === 'buy' ? ask : bid;
  if (request.price !== undefined) {
    const requested = priceToPoints(request.price, spec.digits);
    if (requested === null) return fail(RETCODE.INVALID_PRICE, `price ${request.price} is not a valid ${spec.digits}-digit price`);
    if (!isDeal) pricePoints = requested;
  } else if (!isDeal) {
    return fail(RETCODE.INVALID_PRICE, 'a pending order needs a price');
  }
  const pending = pendingPriceProblem(request.type, pricePoints, { bid, ask }, info.stopsLevel);
  if (pending) return fail(RETCODE.INVALID_PRICE, pending);
  const stops = stopsProblem(request, spec.digits, side, isDeal ? (side === 'buy' ? bid : ask) : pricePoints, info.stopsLevel);
  if (stops) return fail(RETCODE.INVALID_STOPS, stops);
  const expiry = isDeal ? undefined : expiryProblem(request, info, nowMs);
  if (expiry) return fail(RETCODE.INVALID_EXPIRATION, expiry);
  return pass();
}

/** The margin check: a deal whose margin (MetaApi's calculation) exceeds the free margin is 10019. */
export function checkMargin(margin: number | undefined, account: WireAccountInformation): Verdict {
  if (margin !== undefined && margin > account.freeMargin) {
    return fail(RETCODE.NO_MONEY, `margin ${margin.toFixed(2)} ${account.currency} exceeds free margin ${account.freeMargin.toFixed(2)}`);
  }
  return pass();
}

/** The MqlTradeCheckResult: the account as it would be with the trade's margin added. */
export function checkResultOf(verdict: Verdict, account: WireAccountInformation, margin: number | undefined): TradeCheckResult {
  const total = account.margin + (verdict.retcode === RETCODE.OK ? (margin ?? 0) : 0);
  return {
    retcode: verdict.retcode,
    comment: verdict.comment,
    balance: account.balance,
    equity: account.equity,
    margin: total,
    marginFree: account.equity - total,
    marginLevel: total > 0 ? (account.equity / total) * 100 : 0,
  };
}
