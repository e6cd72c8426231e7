import { decimalFromNumber, type Clock } from '@fxdesk/primitives';
import type {
  AccountChanges,
  AccountDetails,
  AccountReader,
  AccountSummary,
  AccountTransaction,
  Instrument,
  PendingOrder,
  Position,
  PositionSide,
  Trade,
} from '../account.js';
import { BrokerError } from '../errors.js';
import { CTraderAccountData, type SymbolTerms, type TraderState, type UnrealizedPnL } from './account-data.js';
import type { CTraderFeed } from './feed.js';
import type { WireDeal, WireOrder, WirePosition } from './trade-wire.js';
import { moneyText, moneyValue, volumeToUnits } from './volumes.js';

export interface CTraderAccountOptions {
  /** The account's session, shared with the feed's and the terminal's roles. */
  feed: CTraderFeed;
  clock: Clock;
  /** How far back the transactions (deals) are read: `lastTransactionId`, `realizedPL`, `changesSince`. Default 7 days. */
  lookbackMs?: number;
}

const DAY_MS = 86_400_000;
/** OANDA's metals: an instrument of one of these against a currency is METAL. */
const METALS = new Set(['XAU', 'XAG', 'XPT', 'XPD']);

/** What one read of the account holds: the trader, its open positions and orders, their P/L. */
interface Snapshot {
  trader: TraderState;
  positions: WirePosition[];
  orders: WireOrder[];
  pnl: UnrealizedPnL;
  deals: WireDeal[];
  symbols: Map<number, SymbolTerms>;
}

/**
 * The AccountReader over the cTrader Open API, in OANDA v20's records, on the feed's authorized
 * session: the trader (ProtoOATraderReq: balance in cents of `moneyDigits`, leverage, deposit
 * asset), the open positions and pending orders (ProtoOAReconcileReq) and their P/L
 * (ProtoOAGetPositionUnrealizedPnLReq), the symbols' terms (ProtoOASymbolByIdReq) and the deals
 * (ProtoOADealListReq). A position is a trade (cTrader accounts here are hedged: one position per
 * entry), units are volume / 100, a transaction is a deal and its id the dealId (ids increase),
 * so the changes since an id are the deals above it.
 */
export class CTraderAccount implements AccountReader {
  readonly name = 'ctrader';
  private readonly feed: CTraderFeed;
  private readonly clock: Clock;
  private readonly data: CTraderAccountData;
  private readonly lookbackMs: number;

  constructor(options: CTraderAccountOptions) {
    this.feed = options.feed;
    this.clock = options.clock;
    this.data = new CTraderAccountData(options.feed);
    this.lookbackMs = options.lookbackMs ?? 7 * DAY_MS;
  }

  async summary(): Promise<AccountSummary> {
    return this.summaryOf(await this.snapshot());
  }

  async details(): Promise<AccountDetails> {
    const snap = await this.snapshot();
    return {
      ...this.summaryOf(snap),
      positions: positionsOf(snap),
      trades: snap.positions.map((p) => tradeOf(p, snap)),
      orders: snap.orders.map((o) => pendingOrderOf(o, snap)),
    };
  }

  async instruments(names?: string[]): Promise<Instrument[]> {
    await this.feed.connect();
    const trader = await this.data.trader();
    const all = [...(await this.data.symbols()).values()].map((terms) => instrumentOf(terms, trader));
    return names === undefined ? all : all.filter((i) => names.includes(i.name));
  }

  /** The deals above `sinceTransactionId` in the lookback, oldest first; `not_found` beyond the last one. */
  async changesSince(sinceTransactionId: string): Promise<AccountChanges> {
    if (!/^\d+$/.test(sinceTransactionId)) throw new BrokerError('not_found', `no transaction ${sinceTransactionId}`);
    const snap = await this.snapshot();
    const last = lastDealId(snap.deals);
    const since = BigInt(sinceTransactionId);
    if (since > BigInt(last)) throw new BrokerError('not_found', `transaction ${sinceTransactionId} is beyond the last one (${last})`);
    const newer = snap.deals.filter((d) => BigInt(d.dealId) > since);
    const open = new Map(snap.positions.map((p) => [p.positionId, p]));
    const changes: AccountChanges = {
      sinceTransactionId,
      lastTransactionId: last,
      ordersCreated: [],
      ordersCancelled: [],
      ordersFilled: [],
      tradesOpened: [],
      tradesReduced: [],
      tradesClosed: [],
      positions: positionsOf(snap),
      transactions: newer.map((d) => transactionOf(d, snap)),
      state: stateOf(this.summaryOf(snap)),
    };
    for (const deal of newer) {
      const position = open.get(deal.positionId);
      const trade = position ? tradeOf(position, snap) : closedTradeOf(deal, snap);
      if (!deal.closePositionDetail) changes.tradesOpened.push(trade);
      else if (position) changes.tradesReduced.push(trade);
      else changes.tradesClosed.push(trade);
    }
    return changes;
  }

  /** Stops following the feed; the feed's owner closes the session. */
  async close(): Promise<void> {
    this.data.close();
  }

  private async snapshot(): Promise<Snapshot> {
    await this.feed.connect();
    const nowMs = this.clock.now();
    const [trader, { positions, orders }, pnl, deals] = await Promise.all([
      this.data.trader(),
      this.data.reconcile(),
      this.data.unrealized(),
      this.data.dealsBetween(nowMs - this.lookbackMs, nowMs),
    ]);
    const symbols = new Map([...(await this.data.symbols()).values()].map((t) => [t.symbolId, t]));
    return { trader, positions, orders, pnl, deals: deals.filter((d) => d.dealStatus === 'FILLED' || d.dealStatus === 'PARTIALLY_FILLED'), symbols };
  }

  private summaryOf(snap: Snapshot): AccountSummary {
    const { trader } = snap;
    const digits = trader.moneyDigits;
    const unrealized = snap.positions.reduce((sum, p) => sum + moneyValue(snap.pnl.byPosition.get(p.positionId)?.net ?? 0, snap.pnl.moneyDigits), 0);
    const balance = moneyValue(trader.balance, digits);
    const marginUsed = snap.positions.reduce((sum, p) => sum + moneyValue(p.usedMargin ?? 0, p.moneyDigits ?? digits), 0);
    const realized = snap.deals.reduce(
      (sum, d) => sum + (d.closePositionDetail ? moneyValue(d.closePositionDetail.grossProfit, d.closePositionDetail.moneyDigits ?? digits) : 0),
      0,
    );
    const nav = balance + unrealized;
    return {
      id: String(this.feed.accountId),
      alias: trader.brokerName,
      currency: trader.currency,
      balance: moneyText(trader.balance, digits),
      nav: decimalFromNumber(nav, digits),
      unrealizedPL: decimalFromNumber(unrealized, digits),
      realizedPL: decimalFromNumber(realized, digits),
      marginUsed: decimalFromNumber(marginUsed, digits),
      marginAvailable: decimalFromNumber(nav - marginUsed, digits),
      marginRate: marginRateOf(trader),
      openTradeCount: snap.positions.length,
      openPositionCount: new Set(snap.positions.map((p) => p.tradeData.symbolId)).size,
      pendingOrderCount: snap.orders.length,
      lastTransactionId: lastDealId(snap.deals),
      asOf: new Date(this.clock.now()).toISOString(),
    };
  }
}

/** The highest deal id of the lookback, `0` when it holds none. */
function lastDealId(deals: WireDeal[]): string {
  return deals.reduce((max, d) => (BigInt(d.dealId) > BigInt(max) ? String(d.dealId) : max), '0');
}

/** OANDA's margin rate is the inverse of the leverage: 1:100 is 0.01. */
function marginRateOf(trader: TraderState): string {
  return trader.leverage ? decimalFromNumber(1 / trader.leverage, 6) : '1';
}

/** `EUR_USD` from the symbol's base and quote assets; the cTrader name when they are not known. */
function instrumentName(terms: SymbolTerms): string {
  return terms.baseAsset && terms.quoteAsset ? `${terms.baseAsset}_${terms.quoteAsset}` : terms.name;
}

function nameOf(symbolId: number, snap: Snapshot): string {
  const terms = snap.symbols.get(symbolId);
  return terms ? instrumentName(terms) : String(symbolId);
}

function priceOf(price: number | undefined, symbolId: number, snap: Snapshot): string {
  return decimalFromNumber(price ?? 0, snap.symbols.get(symbolId)?.digits ?? 5);
}

function signedUnits(volume: number, side: 'BUY' | 'SELL'): string {
  const units = volumeToUnits(volume);
  return side === 'SELL' && units !== '0' ? `-${units}` : units;
}

function instrumentOf(terms: SymbolTerms, trader: TraderState): Instrument {
  const isCurrency = /^[A-Z]{3}$/.test(terms.baseAsset) && /^[A-Z]{3}$/.test(terms.quoteAsset);
  const step = volumeToUnits(terms.stepVolume);
  return {
    name: instrumentName(terms),
    type: METALS.has(terms.baseAsset) ? 'METAL' : isCurrency ? 'CURRENCY' : 'CFD',
    displayName: terms.name,
    pipLocation: -terms.pipPosition,
    displayPrecision: terms.digits,
    tradeUnitsPrecision: step.includes('.') ? (step.split('.')[1] as string).length : 0,
    minimumTradeSize: volumeToUnits(terms.minVolume),
    maximumOrderUnits: volumeToUnits(terms.maxVolume),
    marginRate: marginRateOf(trader),
  };
}

function pnlText(position: WirePosition, snap: Snapshot): string {
  return moneyText(snap.pnl.byPosition.get(position.positionId)?.net ?? 0, snap.pnl.moneyDigits);
}

function tradeOf(p: WirePosition, snap: Snapshot): Trade {
  const symbolId = p.tradeData.symbolId;
  const units = signedUnits(p.tradeData.volume, p.tradeData.tradeSide);
  return {
    id: String(p.positionId),
    instrument: nameOf(symbolId, snap),
    currentUnits: units,
    initialUnits: units,
    price: priceOf(p.price, symbolId, snap),
    openTime: new Date(p.tradeData.openTimestamp ?? 0).toISOString(),
    unrealizedPL: pnlText(p, snap),
    stopLoss: p.stopLoss === undefined ? null : priceOf(p.stopLoss, symbolId, snap),
    takeProfit: p.takeProfit === undefined ? null : priceOf(p.takeProfit, symbolId, snap),
  };
}

/** A trade no longer open, as its closing deal tells it. */
function closedTradeOf(deal: WireDeal, snap: Snapshot): Trade {
  const opening = deal.tradeSide === 'BUY' ? 'SELL' : 'BUY';
  return {
    id: String(deal.positionId),
    instrument: nameOf(deal.symbolId, snap),
    currentUnits: '0',
    initialUnits: signedUnits(deal.closePositionDetail?.closedVolume ?? deal.filledVolume, deal.closePositionDetail ? opening : deal.tradeSide),
    price: priceOf(deal.closePositionDetail?.entryPrice ?? deal.executionPrice, deal.symbolId, snap),
    openTime: new Date(deal.createTimestamp).toISOString(),
    unrealizedPL: '0',
    stopLoss: null,
    takeProfit: null,
  };
}

function positionsOf(snap: Snapshot): Position[] {
  const bySymbol = new Map<number, WirePosition[]>();
  for (const p of snap.positions) bySymbol.set(p.tradeData.symbolId, [...(bySymbol.get(p.tradeData.symbolId) ?? []), p]);
  return [...bySymbol.entries()].map(([symbolId, positions]) => {
    const side = (tradeSide: 'BUY' | 'SELL'): PositionSide => {
      const of = positions.filter((p) => p.tradeData.tradeSide === tradeSide);
      const volume = of.reduce((sum, p) => sum + p.tradeData.volume, 0);
      const vwap = volume === 0 ? null : of.reduce((sum, p) => sum + (p.price ?? 0) * p.tradeData.volume, 0) / volume;
      const pnl = of.reduce((sum, p) => sum + (snap.pnl.byPosition.get(p.positionId)?.net ?? 0), 0);
      return {
        units: signedUnits(volume, tradeSide),
        averagePrice: vwap === null ? null : priceOf(vwap, symbolId, snap),
        unrealizedPL: moneyText(pnl, snap.pnl.moneyDigits),
        tradeIds: of.map((p) => String(p.positionId)),
      };
    };
    const pnl = positions.reduce((sum, p) => sum + (snap.pnl.byPosition.get(p.positionId)?.net ?? 0), 0);
    const margin = positions.reduce((sum, p) => sum + (p.usedMargin ?? 0), 0);
    return {
      instrument: nameOf(symbolId, snap),
      long: side('BUY'),
      short: side('SELL'),
      unrealizedPL: moneyText(pnl, snap.pnl.moneyDigits),
      marginUsed: moneyText(margin, positions[0]?.moneyDigits ?? snap.trader.moneyDigits),
    };
  });
}

function pendingOrderOf(o: WireOrder, snap: Snapshot): PendingOrder {
  return {
    id: String(o.orderId),
    type: o.orderType === 'LIMIT' ? 'LIMIT' : 'STOP',
    instrument: nameOf(o.tradeData.symbolId, snap),
    units: signedUnits(o.tradeData.volume, o.tradeData.tradeSide),
    price: priceOf(o.limitPrice ?? o.stopPrice, o.tradeData.symbolId, snap),
    timeInForce: o.timeInForce === 'GOOD_TILL_DATE' ? 'GTD' : 'GTC',
    createTime: new Date(o.tradeData.openTimestamp ?? 0).toISOString(),
    state: 'PENDING',
  };
}

function transactionOf(d: WireDeal, snap: Snapshot): AccountTransaction {
  const close = d.closePositionDetail;
  const digits = close?.moneyDigits ?? d.moneyDigits ?? snap.trader.moneyDigits;
  return {
    id: String(d.dealId),
    time: new Date(d.executionTimestamp).toISOString(),
    type: 'ORDER_FILL',
    instrument: nameOf(d.symbolId, snap),
    units: signedUnits(d.filledVolume, d.tradeSide),
    price: priceOf(d.executionPrice, d.symbolId, snap),
    pl: close ? moneyText(close.grossProfit, digits) : '0',
    accountBalance: close ? moneyText(close.balance, digits) : null,
    reason: close ? 'MARKET_ORDER_TRADE_CLOSE' : 'MARKET_ORDER',
  };
}

function stateOf(summary: AccountSummary): AccountChanges['state'] {
  return { nav: summary.nav, unrealizedPL: summary.unrealizedPL, marginUsed: summary.marginUsed, marginAvailable: summary.marginAvailable };
}
