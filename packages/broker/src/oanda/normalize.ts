import { subtractDecimal } from '@fxdesk/primitives';
import type {
  AccountChanges,
  AccountDetails,
  AccountSummary,
  AccountTransaction,
  Instrument,
  PendingOrder,
  Position,
  PositionSide,
  Trade,
} from '../account.js';
import type { ChangesResponse, WireAccount, WireAccountSummary, WireInstrument, WireOrder, WirePosition, WireTrade, WireTransaction } from './wire.js';

/**
 * OANDA v20 wire records → the normalized account records. Decimals stay the strings OANDA
 * sent (no float round trip); date-times become ISO 8601 UTC with milliseconds, like every
 * other fxdesk timestamp (OANDA writes up to nine fractional digits).
 */

export function isoTime(value: string): string {
  // UNIX representation: seconds since the epoch, "fractional part … up to nine decimal places".
  if (/^\d+(\.\d+)?$/.test(value)) {
    const [seconds, fraction = ''] = value.split('.');
    return new Date(Number(seconds) * 1000 + Number(fraction.padEnd(3, '0').slice(0, 3))).toISOString();
  }
  // RFC 3339: keep milliseconds only, so Date parses it exactly.
  return new Date(value.replace(/(\.\d{3})\d+/, '$1')).toISOString();
}

/** Dependent orders (take profit, stop loss, trailing stop) close their whole trade. */
const DEPENDENT_ORDER_TYPES = new Set(['TAKE_PROFIT', 'STOP_LOSS', 'GUARANTEED_STOP_LOSS', 'TRAILING_STOP_LOSS']);

export function summaryFrom(account: WireAccountSummary, lastTransactionId: string, asOf: string): AccountSummary {
  return {
    id: account.id,
    alias: account.alias ?? null,
    currency: account.currency,
    balance: account.balance,
    nav: account.NAV,
    unrealizedPL: account.unrealizedPL,
    realizedPL: account.pl,
    marginUsed: account.marginUsed,
    marginAvailable: account.marginAvailable,
    // OANDA sends marginRate only when the account has a margin-rate override; "0" says "none".
    marginRate: account.marginRate ?? '0',
    openTradeCount: account.openTradeCount,
    openPositionCount: account.openPositionCount,
    pendingOrderCount: account.pendingOrderCount,
    lastTransactionId,
    asOf,
  };
}

/** The prices of the take-profit and stop-loss orders of each trade, by trade id. */
function exitPrices(orders: WireOrder[]): Map<string, { takeProfit?: string; stopLoss?: string }> {
  const byTrade = new Map<string, { takeProfit?: string; stopLoss?: string }>();
  for (const order of orders) {
    if (order.tradeID === undefined || order.price === undefined) continue;
    const exits = byTrade.get(order.tradeID) ?? {};
    if (order.type === 'TAKE_PROFIT') exits.takeProfit = order.price;
    if (order.type === 'STOP_LOSS' || order.type === 'GUARANTEED_STOP_LOSS') exits.stopLoss = order.price;
    byTrade.set(order.tradeID, exits);
  }
  return byTrade;
}

function tradesFrom(trades: WireTrade[], orders: WireOrder[]): Trade[] {
  const exits = exitPrices(orders);
  return trades.map((t) => ({
    id: t.id,
    instrument: t.instrument,
    currentUnits: t.currentUnits,
    initialUnits: t.initialUnits,
    price: t.price,
    openTime: isoTime(t.openTime),
    unrealizedPL: t.unrealizedPL ?? '0',
    stopLoss: exits.get(t.id)?.stopLoss ?? null,
    takeProfit: exits.get(t.id)?.takeProfit ?? null,
  }));
}

function ordersFrom(orders: WireOrder[], trades: WireTrade[]): PendingOrder[] {
  const tradeById = new Map(trades.map((t) => [t.id, t]));
  return orders.map((o) => {
    const trade = o.tradeID === undefined ? undefined : tradeById.get(o.tradeID);
    const closesTrade = DEPENDENT_ORDER_TYPES.has(o.type) && trade !== undefined;
    return {
      id: o.id,
      type: o.type,
      instrument: o.instrument ?? trade?.instrument ?? '',
      units: o.units ?? (closesTrade ? subtractDecimal('0', trade.currentUnits) : '0'),
      price: o.price ?? null,
      // OANDA's default time-in-force for pending and dependent orders is GTC.
      timeInForce: o.timeInForce ?? 'GTC',
      createTime: isoTime(o.createTime),
      state: o.state,
    };
  });
}

function sideFrom(side: WirePosition['long']): PositionSide {
  return {
    units: side.units,
    averagePrice: side.averagePrice ?? null,
    unrealizedPL: side.unrealizedPL ?? '0',
    tradeIds: side.tradeIDs ?? [],
  };
}

function positionsFrom(positions: WirePosition[]): Position[] {
  return positions.map((p) => ({
    instrument: p.instrument,
    long: sideFrom(p.long),
    short: sideFrom(p.short),
    unrealizedPL: p.unrealizedPL ?? '0',
    marginUsed: p.marginUsed ?? '0',
  }));
}

function transactionsFrom(transactions: WireTransaction[]): AccountTransaction[] {
  return transactions.map((t) => ({
    id: t.id,
    time: isoTime(t.time),
    type: t.type,
    instrument: t.instrument ?? null,
    units: t.units ?? null,
    price: t.price ?? null,
    pl: t.pl ?? null,
    accountBalance: t.accountBalance ?? null,
    reason: t.reason ?? t.fundingReason ?? null,
  }));
}

const isOpen = (p: WirePosition): boolean => Number(p.long.units) !== 0 || Number(p.short.units) !== 0;

export function detailsFrom(account: WireAccount, lastTransactionId: string, asOf: string): AccountDetails {
  return {
    ...summaryFrom(account, lastTransactionId, asOf),
    // Account.positions lists "all Account Positions", flat ones included; details shows the open ones.
    positions: positionsFrom(account.positions.filter(isOpen)),
    trades: tradesFrom(account.trades, account.orders),
    orders: ordersFrom(account.orders, account.trades),
  };
}

export function instrumentFrom(i: WireInstrument): Instrument {
  return {
    name: i.name,
    type: i.type,
    displayName: i.displayName,
    pipLocation: i.pipLocation,
    displayPrecision: i.displayPrecision,
    tradeUnitsPrecision: i.tradeUnitsPrecision,
    minimumTradeSize: i.minimumTradeSize,
    maximumOrderUnits: i.maximumOrderUnits,
    marginRate: i.marginRate,
  };
}

export function changesFrom(body: ChangesResponse, sinceTransactionId: string): AccountChanges {
  const c = body.changes;
  const trades = [...c.tradesOpened, ...c.tradesReduced, ...c.tradesClosed];
  const orders = [...c.ordersCreated, ...c.ordersCancelled, ...c.ordersFilled, ...c.ordersTriggered];
  return {
    sinceTransactionId,
    lastTransactionId: body.lastTransactionID,
    ordersCreated: ordersFrom(c.ordersCreated, trades),
    ordersCancelled: ordersFrom(c.ordersCancelled, trades),
    ordersFilled: ordersFrom(c.ordersFilled, trades),
    tradesOpened: tradesFrom(c.tradesOpened, orders),
    tradesReduced: tradesFrom(c.tradesReduced, orders),
    tradesClosed: tradesFrom(c.tradesClosed, orders),
    positions: positionsFrom(c.positions),
    transactions: transactionsFrom(c.transactions),
    state: body.state
      ? { nav: body.state.NAV, unrealizedPL: body.state.unrealizedPL, marginUsed: body.state.marginUsed, marginAvailable: body.state.marginAvailable }
      : null,
  };
}
