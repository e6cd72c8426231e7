/**
 * The account behind the fake v20 server: trades, pending orders and a transaction log, written
 * out in the shapes of the OANDA v20 definitions (AccountSummary, Account, TradeSummary,
 * Position, Order, Transaction, AccountChanges, AccountChangesState, Instrument) with decimals
 * as strings and RFC 3339 times with nanoseconds, as OANDA sends them.
 */

type Json = Record<string, unknown>;

/** Documented Instrument fields; values as OANDA lists them for a practice account. */
export const FAKE_INSTRUMENTS: Json[] = [
  instrument('EUR_USD', 'CURRENCY', 'EUR/USD', -4, 5, '0.02'),
  instrument('USD_JPY', 'CURRENCY', 'USD/JPY', -2, 3, '0.04'),
  instrument('GBP_USD', 'CURRENCY', 'GBP/USD', -4, 5, '0.05'),
  instrument('XAU_USD', 'METAL', 'Gold', -2, 3, '0.05'),
  instrument('DE30_EUR', 'CFD', 'Germany 30', 0, 1, '0.05'),
];

function instrument(name: string, type: string, displayName: string, pipLocation: number, displayPrecision: number, marginRate: string): Json {
  return {
    name,
    type,
    displayName,
    pipLocation,
    displayPrecision,
    tradeUnitsPrecision: type === 'CFD' ? 1 : 0,
    minimumTradeSize: type === 'CFD' ? '0.1' : '1',
    maximumTrailingStopDistance: '1.00000',
    minimumTrailingStopDistance: '0.00050',
    maximumPositionSize: '0',
    maximumOrderUnits: '100000000',
    marginRate,
    guaranteedStopLossOrderMode: 'DISABLED',
    tags: [{ type: 'ASSET_CLASS', name: type }],
    financing: { longRate: '-0.0285', shortRate: '0.0064', financingDaysOfWeek: [] },
  };
}

interface FakeTrade {
  id: string;
  instrument: string;
  price: string;
  openTime: string;
  initialUnits: number;
  currentUnits: number;
  realizedPL: number;
  closeTime?: string;
  takeProfitOrderID?: string;
  stopLossOrderID?: string;
  /** Transaction ids that opened and closed the trade. */
  openedBy: number;
  closedBy?: number;
}

interface FakeOrder {
  id: string;
  body: Json;
  state: 'PENDING' | 'FILLED' | 'CANCELLED';
  createdBy: number;
  cancelledBy?: number;
}

const money = (n: number): string => n.toFixed(4);

export class FakeV20Account {
  readonly id: string;
  currency = 'USD';
  alias = 'fxdesk test';
  private balance: number;
  private realizedPL = 0;
  private lastId = 0;
  private readonly transactions: Json[] = [];
  private readonly trades: FakeTrade[] = [];
  private readonly orders: FakeOrder[] = [];
  private readonly marks = new Map<string, number>();
  private readonly now: () => Date;

  constructor(options: { id: string; balance?: number; now?: () => Date }) {
    this.id = options.id;
    this.balance = options.balance ?? 100_000;
    this.now = options.now ?? (() => new Date());
    // CreateTransaction: the first transaction of every v20 account.
    this.record({ type: 'CREATE', divisionID: 4, siteID: 101, accountUserID: 1435156, accountNumber: 1, homeCurrency: this.currency });
  }

  get lastTransactionID(): string {
    return String(this.lastId);
  }

  /** The price open trades are marked at (mid, for the fake). */
  setMark(instrumentName: string, price: number): void {
    this.marks.set(instrumentName, price);
  }

  deposit(amount: number): string {
    this.balance += amount;
    return this.record({ type: 'TRANSFER_FUNDS', amount: money(amount), fundingReason: 'CLIENT_FUNDING', accountBalance: money(this.balance) });
  }

  /** A filled market order that opens a trade, with optional stop-loss and take-profit orders. */
  openTrade(spec: { instrument: string; units: number; price: string; stopLoss?: string; takeProfit?: string }): string {
    const orderId = this.record({
      type: 'MARKET_ORDER',
      instrument: spec.instrument,
      units: String(spec.units),
      timeInForce: 'FOK',
      positionFill: 'DEFAULT',
      reason: 'CLIENT_ORDER',
    });
    this.orders.push({
      id: orderId,
      body: { type: 'MARKET', instrument: spec.instrument, units: String(spec.units), timeInForce: 'FOK' },
      state: 'FILLED',
      createdBy: Number(orderId),
    });
    const fillId = this.record({
      type: 'ORDER_FILL',
      orderID: orderId,
      instrument: spec.instrument,
      units: String(spec.units),
      price: spec.price,
      fullVWAP: spec.price,
      reason: 'MARKET_ORDER',
      pl: money(0),
      financing: money(0),
      commission: money(0),
      accountBalance: money(this.balance),
      tradeOpened: { tradeID: String(Number(orderId) + 1), units: String(spec.units) },
    });
    // "OANDA-assigned TradeIDs … are derived from the TransactionID of the Transaction that opened the Trade."
    const trade: FakeTrade = {
      id: fillId,
      instrument: spec.instrument,
      price: spec.price,
      openTime: this.time(),
      initialUnits: spec.units,
      currentUnits: spec.units,
      realizedPL: 0,
      openedBy: Number(fillId),
    };
    this.trades.push(trade);
    this.setMark(spec.instrument, this.marks.get(spec.instrument) ?? Number(spec.price));
    if (spec.takeProfit) trade.takeProfitOrderID = this.dependentOrder('TAKE_PROFIT', trade, spec.takeProfit);
    if (spec.stopLoss) trade.stopLossOrderID = this.dependentOrder('STOP_LOSS', trade, spec.stopLoss);
    return trade.id;
  }

  /** Closes a whole trade at `price`, realizing its P/L and cancelling its dependent orders. */
  closeTrade(tradeId: string, price: string): void {
    const trade = this.trades.find((t) => t.id === tradeId && t.currentUnits !== 0);
    if (!trade) throw new Error(`no open trade ${tradeId}`);
    const orderId = this.record({
      type: 'MARKET_ORDER',
      instrument: trade.instrument,
      units: String(-trade.currentUnits),
      timeInForce: 'FOK',
      reason: 'TRADE_CLOSE',
      tradeClose: { tradeID: trade.id, units: 'ALL' },
    });
    this.orders.push({
      id: orderId,
      body: { type: 'MARKET', instrument: trade.instrument, units: String(-trade.currentUnits), timeInForce: 'FOK' },
      state: 'FILLED',
      createdBy: Number(orderId),
    });
    const pl = (Number(price) - Number(trade.price)) * trade.currentUnits;
    this.balance += pl;
    this.realizedPL += pl;
    const fillId = this.record({
      type: 'ORDER_FILL',
      orderID: orderId,
      instrument: trade.instrument,
      units: String(-trade.currentUnits),
      price,
      reason: 'MARKET_ORDER_TRADE_CLOSE',
      pl: money(pl),
      financing: money(0),
      commission: money(0),
      accountBalance: money(this.balance),
      tradesClosed: [{ tradeID: trade.id, units: String(-trade.currentUnits), realizedPL: money(pl), price }],
    });
    trade.realizedPL = pl;
    trade.currentUnits = 0;
    trade.closeTime = this.time();
    trade.closedBy = Number(fillId);
    for (const order of this.orders) {
      if (order.state === 'PENDING' && order.body.tradeID === trade.id) {
        order.state = 'CANCELLED';
        order.cancelledBy = Number(this.record({ type: 'ORDER_CANCEL', orderID: order.id, reason: 'LINKED_TRADE_CLOSED' }));
      }
    }
  }

  /** A resting limit order (an entry order: it carries instrument, units and price). */
  placeLimitOrder(spec: { instrument: string; units: number; price: string }): string {
    const body = {
      type: 'LIMIT',
      instrument: spec.instrument,
      units: String(spec.units),
      price: spec.price,
      timeInForce: 'GTC',
      positionFill: 'DEFAULT',
      triggerCondition: 'DEFAULT',
    };
    const id = this.record({ ...body, type: 'LIMIT_ORDER', reason: 'CLIENT_ORDER' });
    this.orders.push({ id, body, state: 'PENDING', createdBy: Number(id) });
    return id;
  }

  /** `{ account: AccountSummary, lastTransactionID }`. */
  summaryBody(): Json {
    return { account: this.summary(), lastTransactionID: this.lastTransactionID };
  }

  /** `{ account: Account, lastTransactionID }`. */
  detailsBody(): Json {
    return {
      account: {
        ...this.summary(),
        trades: this.openTrades().map((t) => this.tradeSummary(t)),
        positions: this.positions(this.instrumentsTraded()),
        orders: this.orders.filter((o) => o.state === 'PENDING').map((o) => this.order(o)),
      },
      lastTransactionID: this.lastTransactionID,
    };
  }

  /** `{ changes: AccountChanges, state: AccountChangesState, lastTransactionID }` since `since`. */
  changesBody(since: number): Json {
    const after = (id: number | undefined) => id !== undefined && id > since;
    const transactions = this.transactions.filter((t) => Number(t.id) > since);
    const touched = new Set(transactions.map((t) => t.instrument).filter((i): i is string => typeof i === 'string'));
    return {
      changes: {
        ordersCreated: this.orders.filter((o) => after(o.createdBy)).map((o) => this.order(o)),
        ordersCancelled: this.orders.filter((o) => after(o.cancelledBy)).map((o) => this.order(o)),
        ordersFilled: this.orders.filter((o) => o.state === 'FILLED' && after(o.createdBy)).map((o) => this.order(o)),
        ordersTriggered: [],
        tradesOpened: this.trades.filter((t) => after(t.openedBy) && t.currentUnits !== 0).map((t) => this.tradeSummary(t)),
        tradesReduced: [],
        tradesClosed: this.trades.filter((t) => after(t.closedBy)).map((t) => this.tradeSummary(t)),
        positions: this.positions([...touched]),
        transactions,
      },
      state: this.state(),
      lastTransactionID: this.lastTransactionID,
    };
  }

  private summary(): Json {
    return {
      id: this.id,
      alias: this.alias,
      currency: this.currency,
      balance: money(this.balance),
      createdByUserID: 1435156,
      createdTime: '2026-01-02T09:00:00.000000000Z',
      guaranteedStopLossOrderMode: 'DISABLED',
      pl: money(this.realizedPL),
      resettablePL: money(this.realizedPL),
      resettablePLTime: '0',
      financing: money(0),
      commission: money(0),
      guaranteedExecutionFees: money(0),
      marginRate: '0.02',
      openTradeCount: this.openTrades().length,
      openPositionCount: new Set(this.openTrades().map((t) => t.instrument)).size,
      pendingOrderCount: this.orders.filter((o) => o.state === 'PENDING').length,
      hedgingEnabled: false,
      ...this.priceDependentState(),
      lastTransactionID: this.lastTransactionID,
    };
  }

  /** AccountChangesState: the price-dependent fields, plus per-trade state. */
  private state(): Json {
    return {
      ...this.priceDependentState(),
      orders: [],
      trades: this.openTrades().map((t) => ({ id: t.id, unrealizedPL: money(this.tradePL(t)), marginUsed: money(this.tradeMargin(t)) })),
      positions: [],
    };
  }

  /** The fields of CalculatedAccountState, shared by AccountSummary and AccountChangesState. */
  private priceDependentState(): Json {
    const unrealized = this.unrealizedPL();
    const marginUsed = this.marginUsed();
    const nav = this.balance + unrealized;
    return {
      unrealizedPL: money(unrealized),
      NAV: money(nav),
      marginUsed: money(marginUsed),
      marginAvailable: money(nav - marginUsed),
      positionValue: money(marginUsed / 0.02),
      marginCloseoutUnrealizedPL: money(unrealized),
      marginCloseoutNAV: money(nav),
      marginCloseoutMarginUsed: money(marginUsed),
      marginCloseoutPercent: '0.00000',
      marginCloseoutPositionValue: money(marginUsed / 0.02),
      withdrawalLimit: money(Math.max(0, nav - marginUsed)),
      marginCallMarginUsed: money(marginUsed),
      marginCallPercent: '0.00000',
    };
  }

  private tradeSummary(t: FakeTrade): Json {
    return {
      id: t.id,
      instrument: t.instrument,
      price: t.price,
      openTime: t.openTime,
      state: t.currentUnits === 0 ? 'CLOSED' : 'OPEN',
      initialUnits: String(t.initialUnits),
      initialMarginRequired: money(Math.abs(t.initialUnits) * Number(t.price) * 0.02),
      currentUnits: String(t.currentUnits),
      realizedPL: money(t.realizedPL),
      unrealizedPL: money(this.tradePL(t)),
      marginUsed: money(this.tradeMargin(t)),
      financing: money(0),
      ...(t.closeTime ? { closeTime: t.closeTime, averageClosePrice: t.price } : {}),
      ...(t.takeProfitOrderID ? { takeProfitOrderID: t.takeProfitOrderID } : {}),
      ...(t.stopLossOrderID ? { stopLossOrderID: t.stopLossOrderID } : {}),
    };
  }

  private order(o: FakeOrder): Json {
    return { id: o.id, createTime: this.transactions.find((t) => t.id === o.id)?.time, state: o.state, ...o.body };
  }

  private positions(instruments: string[]): Json[] {
    return instruments.map((name) => {
      const open = this.openTrades().filter((t) => t.instrument === name);
      const side = (sign: 1 | -1): Json => {
        const trades = open.filter((t) => Math.sign(t.currentUnits) === sign);
        const units = trades.reduce((sum, t) => sum + t.currentUnits, 0);
        const pl = trades.reduce((sum, t) => sum + this.tradePL(t), 0);
        const averagePrice = units === 0 ? undefined : (trades.reduce((s, t) => s + Number(t.price) * t.currentUnits, 0) / units).toFixed(5);
        return {
          units: String(units),
          ...(averagePrice ? { averagePrice, tradeIDs: trades.map((t) => t.id) } : {}),
          pl: money(0),
          resettablePL: money(0),
          financing: money(0),
          unrealizedPL: money(pl),
        };
      };
      return {
        instrument: name,
        pl: money(this.trades.filter((t) => t.instrument === name).reduce((s, t) => s + t.realizedPL, 0)),
        resettablePL: money(0),
        financing: money(0),
        commission: money(0),
        unrealizedPL: money(open.reduce((s, t) => s + this.tradePL(t), 0)),
        marginUsed: money(open.reduce((s, t) => s + this.tradeMargin(t), 0)),
        long: side(1),
        short: side(-1),
      };
    });
  }

  private dependentOrder(type: 'TAKE_PROFIT' | 'STOP_LOSS', trade: FakeTrade, price: string): string {
    const body = { type, tradeID: trade.id, price, timeInForce: 'GTC', triggerCondition: 'DEFAULT' };
    const id = this.record({ ...body, type: `${type}_ORDER`, reason: 'ON_FILL' });
    this.orders.push({ id, body, state: 'PENDING', createdBy: Number(id) });
    return id;
  }

  private openTrades(): FakeTrade[] {
    return this.trades.filter((t) => t.currentUnits !== 0);
  }

  private instrumentsTraded(): string[] {
    return [...new Set(this.trades.map((t) => t.instrument))];
  }

  private tradePL(t: FakeTrade): number {
    return ((this.marks.get(t.instrument) ?? Number(t.price)) - Number(t.price)) * t.currentUnits;
  }

  private tradeMargin(t: FakeTrade): number {
    return Math.abs(t.currentUnits) * (this.marks.get(t.instrument) ?? Number(t.price)) * 0.02;
  }

  private unrealizedPL(): number {
    return this.openTrades().reduce((sum, t) => sum + this.tradePL(t), 0);
  }

  private marginUsed(): number {
    return this.openTrades().reduce((sum, t) => sum + this.tradeMargin(t), 0);
  }

  /** Appends a transaction (id, time, accountID, batchID, userID) and returns its id. */
  private record(fields: Json): string {
    this.lastId += 1;
    const id = String(this.lastId);
    this.transactions.push({ id, time: this.time(), userID: 1435156, accountID: this.id, batchID: id, requestID: `7981${id}`, ...fields });
    return id;
  }

  /** RFC 3339 with nanoseconds, as v20 writes DateTime. */
  private time(): string {
    return this.now()
      .toISOString()
      .replace(/\.(\d{3})Z$/, '.$1000000Z');
  }
}
