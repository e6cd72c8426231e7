import { multiplyDecimal } from '@fxdesk/primitives';
import type { AccountSummary, AccountTransaction, Instrument, PendingOrder, Position, PositionSide, Trade } from '../account.js';
import { compareTickets } from '../terminal.js';
import { decimalOf, epochMsOf, pendingOrderOf } from './normalize.js';
import type { WireAccountInformation, WireDeal, WireOrder, WirePosition, WireSymbolSpecification } from './wire.js';

/*
 * MetaApi's MT5 records in the OANDA v20 shape the AccountReader answers (see the adapter's
 * README, "AccountReader"): a position is a trade, units are lots × contract size, a deal's
 * ticket is a transaction id (MT5 deal tickets increase), the changes since an id are the deals
 * above it.
 */

/** What the records need of a symbol: its OANDA name, contract size and digits (from its specification). */
export interface SymbolTerms {
  instrument: string;
  contractSize: number;
  digits: number;
}

/** Everything one read of the account took: MetaApi's answers of one moment. */
export interface AccountBook {
  info: WireAccountInformation;
  positions: WirePosition[];
  orders: WireOrder[];
  /** The history deals of the window, every type. */
  deals: WireDeal[];
  asOf: string;
}

const METALS = new Set(['XAU', 'XAG', 'XPT', 'XPD']);

/** `EUR_USD` for a symbol named exactly base + profit currency (`EURUSD`); any other symbol (`EURUSD.m`, `US500`) keeps its name. */
export function instrumentNameOf(spec: WireSymbolSpecification): string {
  const { baseCurrency: base, profitCurrency: quote } = spec;
  return base && quote && spec.symbol === `${base}${quote}` ? `${base}_${quote}` : spec.symbol;
}

export function termsOf(spec: WireSymbolSpecification): SymbolTerms {
  return { instrument: instrumentNameOf(spec), contractSize: spec.contractSize, digits: spec.digits };
}

/** Money as the account writes it: two places. */
export function money(value: number): string {
  return decimalOf(Math.round(value * 100) / 100 || 0);
}

/** Signed units: lots × contract size, positive for a buy, negative for a sell. */
function unitsOf(lots: number, terms: SymbolTerms, side: 'buy' | 'sell'): string {
  const units = multiplyDecimal(decimalOf(lots), decimalOf(terms.contractSize));
  return side === 'buy' || units === '0' ? units : `-${units}`;
}

const priceOf = (price: number, terms: SymbolTerms) => price.toFixed(terms.digits);
const stopOf = (price: number | undefined, terms: SymbolTerms) => (price === undefined || price === 0 ? null : priceOf(price, terms));
const isoOf = (time: string) => new Date(epochMsOf(time)).toISOString();
/** A buy or sell deal: a trade (balance, commission, credit… deals are not). */
export const isTradeDeal = (deal: WireDeal) => deal.type === 'DEAL_TYPE_BUY' || deal.type === 'DEAL_TYPE_SELL';
const sideOfDeal = (deal: WireDeal) => (deal.type === 'DEAL_TYPE_BUY' ? 'buy' : 'sell');

/** The newest deal's ticket, `0` before any. */
export function lastTransactionIdOf(deals: WireDeal[]): string {
  return deals.reduce((last, d) => (compareTickets(d.id, last) > 0 ? d.id : last), '0');
}

/** The resting limit and stop orders (a market order in flight and stop-limits are left out). */
export function pendingOf(orders: WireOrder[]): WireOrder[] {
  return orders.filter((o) => pendingOrderOf(o) !== null);
}

/**
 * OANDA's account summary: `nav` = balance + unrealized P/L, the unrealized P/L being MT5's
 * floating P/L (equity − balance − credit: profit, swap and commission of the open positions;
 * a broker's credit is not the trader's money and is left out), `realizedPL` the trade deals'
 * profit, commission and swap over the window.
 */
export function summaryOf(id: string, book: AccountBook): AccountSummary {
  const { info, positions, orders, deals } = book;
  const unrealized = info.equity - info.balance - (info.credit ?? 0);
  const realized = deals.filter(isTradeDeal).reduce((sum, d) => sum + d.profit + d.commission + d.swap, 0);
  return {
    id,
    alias: info.name ?? null,
    currency: info.currency,
    balance: money(info.balance),
    nav: money(info.balance + unrealized),
    unrealizedPL: money(unrealized),
    realizedPL: money(realized),
    marginUsed: money(info.margin),
    marginAvailable: money(info.freeMargin),
    marginRate: info.leverage ? decimalOf(1 / info.leverage) : '0',
    openTradeCount: positions.length,
    openPositionCount: new Set(positions.map((p) => p.symbol)).size,
    pendingOrderCount: pendingOf(orders).length,
    lastTransactionId: lastTransactionIdOf(deals),
    asOf: book.asOf,
  };
}

/** MT5's ACCOUNT_TRADE_MODE of an account: demo or contest money, or real money; `unknown` when MetaApi gives another or none. */
export type MetaApiTradeMode = 'demo' | 'contest' | 'real' | 'unknown';

const TRADE_MODES: Record<string, MetaApiTradeMode> = {
  ACCOUNT_TRADE_MODE_DEMO: 'demo',
  ACCOUNT_TRADE_MODE_CONTEST: 'contest',
  ACCOUNT_TRADE_MODE_REAL: 'real',
};

/** The trade mode of MetatraderAccountInformation's `type`. */
export function tradeModeOf(info: WireAccountInformation): MetaApiTradeMode {
  return (info.type !== undefined && TRADE_MODES[info.type]) || 'unknown';
}

/** An open MT5 position as an OANDA trade; its initial units from its entry deals in the window, else its current volume. */
export function tradeOfPosition(position: WirePosition, terms: SymbolTerms, deals: WireDeal[]): Trade {
  const side = position.type === 'POSITION_TYPE_BUY' ? 'buy' : 'sell';
  const entries = deals.filter((d) => isTradeDeal(d) && d.positionId === position.id && (d.entryType ?? 'DEAL_ENTRY_IN') === 'DEAL_ENTRY_IN');
  const entered = entries.reduce((sum, d) => sum + (d.volume ?? 0), 0);
  const units = unitsOf(position.volume, terms, side);
  return {
    id: position.id,
    instrument: terms.instrument,
    currentUnits: units,
    initialUnits: entered > 0 ? unitsOf(entered, terms, side) : units,
    price: priceOf(position.openPrice, terms),
    openTime: isoOf(position.time),
    unrealizedPL: money(position.unrealizedProfit ?? position.profit),
    stopLoss: stopOf(position.stopLoss, terms),
    takeProfit: stopOf(position.takeProfit, terms),
  };
}

/** A position no longer open, from its entry deal in the window (else from `deal`, its exit): no units left. */
export function closedTradeOf(positionId: string, deal: WireDeal, deals: WireDeal[], terms: SymbolTerms): Trade {
  const entry = deals.find((d) => isTradeDeal(d) && d.positionId === positionId && (d.entryType ?? 'DEAL_ENTRY_IN') === 'DEAL_ENTRY_IN') ?? deal;
  return {
    id: positionId,
    instrument: terms.instrument,
    currentUnits: '0',
    initialUnits: unitsOf(entry.volume ?? 0, terms, sideOfDeal(entry)),
    price: priceOf(entry.price ?? 0, terms),
    openTime: isoOf(entry.time),
    unrealizedPL: '0',
    stopLoss: null,
    takeProfit: null,
  };
}

/** A resting MT5 order as an OANDA pending order: LIMIT or STOP, signed units, GTC or GTD. */
export function pendingOrderRecordOf(order: WireOrder, terms: SymbolTerms): PendingOrder {
  const side = order.type.startsWith('ORDER_TYPE_BUY') ? 'buy' : 'sell';
  const expires = order.expirationType !== undefined && order.expirationType !== 'ORDER_TIME_GTC';
  return {
    id: order.id,
    type: order.type.endsWith('_LIMIT') ? 'LIMIT' : 'STOP',
    instrument: terms.instrument,
    units: unitsOf(order.currentVolume ?? order.volume, terms, side),
    price: priceOf(order.openPrice ?? 0, terms),
    timeInForce: expires ? 'GTD' : 'GTC',
    createTime: isoOf(order.time),
    state: 'PENDING',
  };
}

/** Each instrument's long and short sides of its open trades (an instrument with none has empty sides); MT5 keeps margin per account only. */
export function positionsOf(trades: Trade[], instruments: string[]): Position[] {
  return instruments.map((instrument) => {
    const mine = trades.filter((t) => t.instrument === instrument);
    const long = sideOf(mine.filter((t) => Number(t.currentUnits) > 0));
    const short = sideOf(mine.filter((t) => Number(t.currentUnits) < 0));
    return { instrument, long, short, unrealizedPL: money(Number(long.unrealizedPL) + Number(short.unrealizedPL)), marginUsed: '0' };
  });
}

function sideOf(trades: Trade[]): PositionSide {
  const units = trades.reduce((sum, t) => sum + Number(t.currentUnits), 0);
  const digits = Math.max(0, ...trades.map((t) => t.price.split('.')[1]?.length ?? 0));
  const average = units === 0 ? null : trades.reduce((sum, t) => sum + Number(t.price) * Number(t.currentUnits), 0) / units;
  return {
    units: decimalOf(units),
    averagePrice: average === null ? null : average.toFixed(digits),
    unrealizedPL: money(trades.reduce((sum, t) => sum + Number(t.unrealizedPL), 0)),
    tradeIds: trades.map((t) => t.id),
  };
}

/** OANDA's OrderFillTransaction reasons for MT5's deal reasons; an exit by hand or by an expert closes the trade at the market. */
function fillReasonOf(deal: WireDeal): string {
  if (deal.reason === 'DEAL_REASON_SL') return 'STOP_LOSS_ORDER';
  if (deal.reason === 'DEAL_REASON_TP') return 'TAKE_PROFIT_ORDER';
  if (deal.reason === 'DEAL_REASON_SO') return 'MARKET_ORDER_MARGIN_CLOSEOUT';
  return (deal.entryType ?? 'DEAL_ENTRY_IN') === 'DEAL_ENTRY_IN' ? 'MARKET_ORDER' : 'MARKET_ORDER_TRADE_CLOSE';
}

/**
 * A deal as an OANDA transaction: a buy or sell deal is an ORDER_FILL (units signed, its price,
 * its profit as `pl`), a balance deal a TRANSFER_FUNDS, any other deal (commission, charge,
 * credit…) keeps its MT5 type, having no OANDA counterpart.
 */
export function transactionOf(deal: WireDeal, terms: SymbolTerms | undefined): AccountTransaction {
  const base = { id: deal.id, time: isoOf(deal.time), accountBalance: null };
  if (isTradeDeal(deal)) {
    // A symbol the broker no longer specifies keeps its name, and no units (its contract size is unknown).
    return {
      ...base,
      type: 'ORDER_FILL',
      instrument: terms?.instrument ?? deal.symbol ?? null,
      units: terms ? unitsOf(deal.volume ?? 0, terms, sideOfDeal(deal)) : null,
      price: terms ? priceOf(deal.price ?? 0, terms) : decimalOf(deal.price ?? 0),
      pl: money(deal.profit),
      reason: fillReasonOf(deal),
    };
  }
  const type = deal.type === 'DEAL_TYPE_BALANCE' ? 'TRANSFER_FUNDS' : deal.type;
  return { ...base, type, instrument: null, units: null, price: null, pl: null, reason: null };
}

/**
 * An MT5 symbol as an OANDA instrument: METAL for gold and silver, CURRENCY for a forex symbol
 * (its calculation mode, else a name of base + profit currency), CFD otherwise; the pip from
 * `pipSize`, else one digit above the last of a 3- or 5-digit price; sizes in units (lots ×
 * contract size); the margin rate the account's leverage gives.
 */
export function instrumentOf(spec: WireSymbolSpecification, leverage: number | undefined): Instrument {
  const base = spec.baseCurrency ?? '';
  const quote = spec.profitCurrency ?? '';
  const isForex = spec.priceCalculationMode?.startsWith('SYMBOL_CALC_MODE_FOREX') ?? spec.symbol === `${base}${quote}`;
  const pipLocation = spec.pipSize ? Math.round(Math.log10(spec.pipSize)) : spec.digits % 2 === 1 ? -(spec.digits - 1) : -spec.digits;
  const unitsStep = multiplyDecimal(decimalOf(spec.volumeStep), decimalOf(spec.contractSize));
  return {
    name: instrumentNameOf(spec),
    type: METALS.has(base) ? 'METAL' : isForex ? 'CURRENCY' : 'CFD',
    displayName: base && quote ? `${base}/${quote}` : spec.symbol,
    pipLocation,
    displayPrecision: spec.digits,
    tradeUnitsPrecision: unitsStep.split('.')[1]?.length ?? 0,
    minimumTradeSize: multiplyDecimal(decimalOf(spec.minVolume), decimalOf(spec.contractSize)),
    maximumOrderUnits: multiplyDecimal(decimalOf(spec.maxVolume), decimalOf(spec.contractSize)),
    marginRate: leverage ? decimalOf(1 / leverage) : '0',
  };
}
