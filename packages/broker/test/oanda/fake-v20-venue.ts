/**
 * The trading side of the fake v20 server: an OANDA v20 account that trades on the simulated
 * market, answering the Order, Trade, Transaction, Pricing and Instrument endpoints as the v20
 * definitions describe them (github.com/oanda/v20-python, `order.py`, `trade.py`,
 * `transaction.py`, `pricing.py`, `instrument.py`; developer.oanda.com/rest-live-v20).
 *
 * What it models, after OANDA's documented behaviour:
 * - orders: MARKET (FOK or IOC), LIMIT and STOP (GTC or GTD), with `stopLossOnFill`,
 *   `takeProfitOnFill`, `clientExtensions` and `tradeClientExtensions`; a request OANDA would
 *   refuse is a 400 with an `orderRejectTransaction` (`rejectReason`, e.g. UNITS_MINIMUM_NOT_MET,
 *   UNITS_PRECISION_EXCEEDED, UNITS_LIMIT_EXCEEDED, TIME_IN_FORCE_GTD_TIMESTAMP_IN_PAST); an order
 *   that is created and cannot fill is a 201 with an `orderCancelTransaction` and its reason
 *   (MARKET_HALTED while the market is closed, INSUFFICIENT_MARGIN, INSUFFICIENT_LIQUIDITY,
 *   STOP_LOSS_ON_FILL_LOSS, TAKE_PROFIT_ON_FILL_LOSS);
 * - fills at the ask (buys) or the bid (sells) against `liquidityUnits` of top-of-book liquidity:
 *   an IOC market order above it fills the liquidity and cancels the rest, a FOK one is cancelled;
 * - the account is not hedging (positionFill DEFAULT = REDUCE_FIRST): an order first reduces or
 *   closes the open trades on the other side, oldest first, then opens a trade with the rest;
 * - trade ids are the ids of the fills that opened them; trades close whole or in part
 *   (PUT /trades/{specifier}/close with `units`), their stop loss and take profit are replaced or
 *   cancelled (PUT /trades/{specifier}/orders, null cancelling one), their client extensions set
 *   (PUT /trades/{specifier}/clientExtensions); `@{clientID}` specifiers find orders and trades;
 * - time moves with the market's clock: before every answer the venue replays the ticks since the
 *   last one, so resting orders fill, stops and targets close their trades (ORDER_FILL with reason
 *   STOP_LOSS_ORDER / TAKE_PROFIT_ORDER) and GTD orders expire (ORDER_CANCEL TIME_IN_FORCE_EXPIRED)
 *   at the instant they would have;
 * - money in the account currency with four decimals; P/L converted from the quote currency at the
 *   market's mid, margin = |units| × the base currency's value × the instrument's margin rate.
 * Simplifications: no financing, no commission, no trailing or guaranteed stops, no hedging.
 */
import { symbolSpec, type SymbolSpec } from '../../src/simulated/symbols.js';
import type { SimulatedMarket } from '../../src/simulated/market.js';
import type { Quote } from '../../src/types.js';

type Json = Record<string, unknown>;

export interface FakeV20VenueOptions {
  market: SimulatedMarket;
  accountId: string;
  /** The market's clock. */
  now: () => number;
  balance?: number;
  /** Units available at the best price, per side (default 1 000 000). */
  liquidityUnits?: number;
}

/** A v20 answer: status and body. */
export interface VenueAnswer {
  status: number;
  body: Json;
}

interface VenueOrder {
  id: string;
  type: 'MARKET' | 'LIMIT' | 'STOP' | 'STOP_LOSS' | 'TAKE_PROFIT';
  instrument: string;
  units: number;
  price?: string;
  timeInForce: string;
  gtdTimeMs?: number;
  createTime: string;
  state: 'PENDING' | 'FILLED' | 'CANCELLED';
  clientExtensions?: Json;
  tradeClientExtensions?: Json;
  stopLossOnFill?: Json;
  takeProfitOnFill?: Json;
  /** Dependent orders: the trade they close. */
  tradeID?: string;
  /** Trade close orders: the trade and the units to close. */
  tradeClose?: { tradeID: string; units: string };
  filledTime?: string;
  fillingTransactionID?: string;
  cancelledTime?: string;
  cancellingTransactionID?: string;
}

interface VenueTrade {
  id: string;
  instrument: string;
  price: string;
  openTime: string;
  initialUnits: number;
  currentUnits: number;
  realizedPL: number;
  clientExtensions?: Json;
  takeProfitOrderID?: string;
  stopLossOrderID?: string;
  closeTime?: string;
  closingTransactionIDs: string[];
}

/** A request field as the string it should be, or `fallback`. */
const text = (value: unknown, fallback: string): string => (typeof value === 'string' ? value : fallback);
const money = (n: number): string => (Math.abs(n) < 0.00005 ? 0 : n).toFixed(4);
const reject = (status: number, body: Json): VenueAnswer => ({ status, body });
const MAX_COUNT = 5000;
const GRANULARITY_MS: Record<string, number> = { M1: 60_000, M5: 300_000, M15: 900_000, M30: 1_800_000, H1: 3_600_000, H4: 14_400_000, D: 86_400_000 };
const TIMEFRAME_OF: Record<string, 'M1' | 'M5' | 'M15' | 'M30' | 'H1' | 'H4' | 'D1'> = {
  M1: 'M1',
  M5: 'M5',
  M15: 'M15',
  M30: 'M30',
  H1: 'H1',
  H4: 'H4',
  D: 'D1',
};

export class FakeV20Venue {
  readonly accountId: string;
  readonly currency = 'USD';
  private readonly market: SimulatedMarket;
  private readonly clock: () => number;
  private readonly liquidityUnits: number;
  private balance: number;
  private lastId = 0;
  private readonly transactions: Json[] = [];
  private readonly orders = new Map<string, VenueOrder>();
  private readonly trades = new Map<string, VenueTrade>();
  private syncedUntil: number;

  constructor(options: FakeV20VenueOptions) {
    this.market = options.market;
    this.clock = options.now;
    this.accountId = options.accountId;
    this.balance = options.balance ?? 100_000;
    this.liquidityUnits = options.liquidityUnits ?? 1_000_000;
    this.syncedUntil = this.now();
    this.record({ type: 'CREATE', homeCurrency: this.currency, accountNumber: 1 });
    this.record({ type: 'TRANSFER_FUNDS', amount: money(this.balance), fundingReason: 'CLIENT_FUNDING', accountBalance: money(this.balance) });
  }

  get lastTransactionID(): string {
    return String(this.lastId);
  }

  /** Instrument definitions of the market's symbols (Instrument). */
  instruments(names?: string[]): Json[] {
    return this.market
      .symbols()
      .filter((s) => !names || names.includes(s.instrument))
      .map((s) => ({
        name: s.instrument,
        type: s.type,
        displayName: `${s.base}/${s.quote}`,
        pipLocation: s.pipLocation,
        displayPrecision: s.digits,
        tradeUnitsPrecision: 0,
        minimumTradeSize: '1',
        maximumTrailingStopDistance: '1.00000',
        minimumTrailingStopDistance: '0.00050',
        maximumPositionSize: '0',
        maximumOrderUnits: '100000000',
        marginRate: this.marginRate(s),
        guaranteedStopLossOrderMode: 'DISABLED',
      }));
  }

  /** Catches the account up with the market, then answers `{ account: AccountSummary, lastTransactionID }`. */
  summaryBody(): Json {
    this.sync();
    const unrealized = this.openTrades().reduce((sum, t) => sum + this.unrealizedPL(t), 0);
    const marginUsed = this.openTrades().reduce((sum, t) => sum + this.margin(t.instrument, t.currentUnits), 0);
    const nav = this.balance + unrealized;
    return {
      account: {
        id: this.accountId,
        alias: 'fxdesk fake venue',
        currency: this.currency,
        balance: money(this.balance),
        NAV: money(nav),
        unrealizedPL: money(unrealized),
        pl: money(this.balance - 100_000),
        marginUsed: money(marginUsed),
        marginAvailable: money(nav - marginUsed),
        marginRate: '0.0333',
        openTradeCount: this.openTrades().length,
        openPositionCount: new Set(this.openTrades().map((t) => t.instrument)).size,
        pendingOrderCount: [...this.orders.values()].filter((o) => o.state === 'PENDING').length,
        hedgingEnabled: false,
        lastTransactionID: this.lastTransactionID,
      },
      lastTransactionID: this.lastTransactionID,
    };
  }

  /** `GET /v3/accounts/{id}`: `{ account: Account, lastTransactionID }`, the summary with the open trades, their positions and the pending orders. */
  detailsBody(): Json {
    const { account } = this.summaryBody();
    return {
      account: {
        ...(account as Json),
        trades: this.openTrades().map((t) => this.tradeSummary(t)),
        positions: this.positions([...new Set(this.openTrades().map((t) => t.instrument))]),
        orders: [...this.orders.values()].filter((o) => o.state === 'PENDING').map((o) => this.orderBody(o)),
      },
      lastTransactionID: this.lastTransactionID,
    };
  }

  /**
   * `GET /changes?sinceTransactionID=N`: `{ changes: AccountChanges, state: AccountChangesState,
   * lastTransactionID }`, what the transactions after N did; 416 for an N past the last one.
   */
  changes(query: URLSearchParams): VenueAnswer {
    const summary = this.summaryBody().account as Json;
    const sinceText = query.get('sinceTransactionID');
    if (sinceText === null || !/^\d+$/.test(sinceText)) return reject(400, { errorMessage: "Invalid value specified for 'sinceTransactionID'" });
    const since = Number(sinceText);
    if (since > this.lastId) {
      return reject(416, { errorCode: 'INVALID_RANGE', errorMessage: 'The sinceTransactionID is beyond the last transaction of the Account.' });
    }
    const after = (id: string | undefined) => id !== undefined && Number(id) > since;
    const orders = [...this.orders.values()];
    const trades = [...this.trades.values()];
    const transactions = this.transactions.filter((t) => Number(t.id) > since);
    const touched = new Set(transactions.map((t) => t.instrument).filter((i): i is string => typeof i === 'string'));
    const isClosedSince = (t: VenueTrade) => t.currentUnits === 0 && after(t.closingTransactionIDs.at(-1));
    return {
      status: 200,
      body: {
        changes: {
          ordersCreated: orders.filter((o) => after(o.id)).map((o) => this.orderBody(o)),
          ordersCancelled: orders.filter((o) => after(o.cancellingTransactionID)).map((o) => this.orderBody(o)),
          ordersFilled: orders.filter((o) => after(o.fillingTransactionID)).map((o) => this.orderBody(o)),
          ordersTriggered: [],
          tradesOpened: trades.filter((t) => after(t.id) && t.currentUnits !== 0).map((t) => this.tradeSummary(t)),
          tradesReduced: trades.filter((t) => t.currentUnits !== 0 && !after(t.id) && after(t.closingTransactionIDs.at(-1))).map((t) => this.tradeSummary(t)),
          tradesClosed: trades.filter(isClosedSince).map((t) => this.tradeSummary(t)),
          positions: this.positions([...touched]),
          transactions,
        },
        state: { NAV: summary.NAV, unrealizedPL: summary.unrealizedPL, marginUsed: summary.marginUsed, marginAvailable: summary.marginAvailable },
        lastTransactionID: this.lastTransactionID,
      },
    };
  }

  /** `GET /pricing?instruments=A,B`: `{ prices: [ClientPrice], time }`. */
  pricing(instruments: string[]): VenueAnswer {
    this.sync();
    const unknown = instruments.filter((i) => !this.specOf(i));
    if (instruments.length === 0 || unknown.length > 0) return reject(400, { errorMessage: "Invalid value specified for 'instruments'" });
    const prices = instruments.map((i) => this.priceOf(i)).filter((p) => p !== null);
    return { status: 200, body: { prices, time: this.time() } };
  }

  /** A ClientPrice of the instrument's latest tick, or null before its first. */
  priceOf(instrument: string, quote: Quote | null = null): Json | null {
    const spec = this.specOf(instrument)!;
    const tick = quote ?? this.market.lastTick(spec.symbol);
    if (!tick) return null;
    const tradeable = this.market.isOpen(this.now());
    const factor = this.market.rate(spec.quote, this.currency) ?? 1;
    return {
      type: 'PRICE',
      instrument,
      time: this.time(tick.time),
      tradeable,
      status: tradeable ? 'tradeable' : 'non-tradeable',
      bids: [{ price: this.priceText(spec, tick.bid), liquidity: this.liquidityUnits }],
      asks: [{ price: this.priceText(spec, tick.ask), liquidity: this.liquidityUnits }],
      closeoutBid: this.priceText(spec, tick.bid),
      closeoutAsk: this.priceText(spec, tick.ask),
      quoteHomeConversionFactors: { positiveUnits: factor.toFixed(8), negativeUnits: factor.toFixed(8) },
    };
  }

  /** `GET /v3/instruments/{instrument}/candles` with price, granularity, count, from, to, includeFirst. */
  candles(instrument: string, query: URLSearchParams): VenueAnswer {
    const spec = this.specOf(instrument);
    if (!spec) return reject(404, { errorMessage: `Instrument ${instrument} not found` });
    const granularity = query.get('granularity') ?? 'S5';
    const periodMs = GRANULARITY_MS[granularity];
    const timeframe = TIMEFRAME_OF[granularity];
    if (!periodMs || !timeframe) return reject(400, { errorMessage: "Invalid value specified for 'granularity'" });
    const now = this.now();
    const from = query.get('from') === null ? undefined : Date.parse(query.get('from')!);
    const to = query.get('to') === null ? undefined : Date.parse(query.get('to')!);
    if (to !== undefined && to > now) return reject(400, { errorMessage: "Invalid value specified for 'to'. Time is in the future" });
    const countText = query.get('count');
    if (countText !== null && from !== undefined && to !== undefined)
      return reject(400, { errorMessage: "'count' cannot be specified with both 'from' and 'to'" });
    const count = countText === null ? 500 : Number(countText);
    if (!Number.isInteger(count) || count < 1 || count > MAX_COUNT)
      return reject(400, { errorMessage: "Invalid value specified for 'count': maximum is 5000" });
    let bars;
    if (from !== undefined) {
      const start = query.get('includeFirst') === 'false' ? Math.floor(from / periodMs) * periodMs + periodMs : Math.floor(from / periodMs) * periodMs;
      const end = to ?? now;
      if ((end - start) / periodMs > MAX_COUNT) {
        return reject(400, {
          errorMessage: "Invalid value specified for 'to'. Time range specified generates more than the maximum allowed number of candles (5000)",
        });
      }
      const closedUntil = Math.min(end, Math.floor(now / periodMs) * periodMs);
      // "Count should not be specified if both the start and end parameters are provided, as the time range … will determine the number of candlesticks".
      const inRange = this.market.barsBetween(spec.symbol, timeframe, start, closedUntil);
      bars = to === undefined ? inRange.slice(0, count) : inRange;
    } else {
      bars = this.market.bars(spec.symbol, timeframe, count, to ?? now).filter((b) => to === undefined || b.time * 1000 + periodMs <= to);
    }
    const components = query.get('price') ?? 'M';
    const candles = bars.map((bar) => {
      const half = ((bar.spread ?? 0) * spec.point) / 2;
      const ohlc = (shift: number) => ({
        o: this.priceText(spec, bar.open + shift),
        h: this.priceText(spec, bar.high + shift),
        l: this.priceText(spec, bar.low + shift),
        c: this.priceText(spec, bar.close + shift),
      });
      return {
        time: this.time(bar.time * 1000),
        volume: bar.tickVolume,
        complete: bar.closed,
        ...(components.includes('B') ? { bid: ohlc(0) } : {}),
        ...(components.includes('A') ? { ask: ohlc(2 * half) } : {}),
        ...(components.includes('M') ? { mid: ohlc(half) } : {}),
      };
    });
    return { status: 200, body: { instrument, granularity, candles } };
  }

  // --- orders ------------------------------------------------------------------------------

  /** `POST /orders` with `{ order: OrderRequest }`. */
  createOrder(body: Json): VenueAnswer {
    this.sync();
    const request = (body.order ?? {}) as Json;
    const type = request.type as string;
    const instrument = text(request.instrument, '');
    const spec = this.specOf(instrument);
    const rejectType = `${type}_ORDER_REJECT`;
    const refuse = (rejectReason: string, errorMessage: string) => {
      const tx = this.record({ ...request, type: rejectType, rejectReason, reason: 'CLIENT_ORDER' });
      return reject(400, {
        orderRejectTransaction: tx,
        relatedTransactionIDs: [tx.id],
        lastTransactionID: this.lastTransactionID,
        errorCode: rejectReason,
        errorMessage,
      });
    };
    if (!['MARKET', 'LIMIT', 'STOP'].includes(type)) return reject(400, { errorCode: 'INVALID_ORDER_TYPE', errorMessage: 'The order type is not supported' });
    if (!spec) return refuse('INSTRUMENT_NOT_TRADEABLE', 'The instrument specified is not tradeable by the Account');
    const unitsText = text(request.units, '');
    if (!/^-?\d+(\.\d+)?$/.test(unitsText) || Number(unitsText) === 0) return refuse('UNITS_INVALID', 'The units specified are invalid');
    if (!Number.isInteger(Number(unitsText)))
      return refuse('UNITS_PRECISION_EXCEEDED', 'The units specified contain more precision than is allowed for the instrument');
    if (Math.abs(Number(unitsText)) < 1) return refuse('UNITS_MINIMUM_NOT_MET', 'The units specified are less than the minimum trade size');
    if (Math.abs(Number(unitsText)) > 100_000_000) return refuse('UNITS_LIMIT_EXCEEDED', 'The units specified exceed the maximum number of units allowed');
    const timeInForce = text(request.timeInForce, type === 'MARKET' ? 'FOK' : 'GTC');
    if (type === 'MARKET' && !['FOK', 'IOC'].includes(timeInForce)) return refuse('TIME_IN_FORCE_INVALID', 'Market orders must be FOK or IOC');
    let gtdTimeMs: number | undefined;
    if (timeInForce === 'GTD') {
      gtdTimeMs = Date.parse(String(request.gtdTime));
      if (Number.isNaN(gtdTimeMs)) return refuse('TIME_IN_FORCE_GTD_TIMESTAMP_MISSING', 'A GTD order needs a gtdTime');
      if (gtdTimeMs <= this.now()) return refuse('TIME_IN_FORCE_GTD_TIMESTAMP_IN_PAST', 'The gtdTime is in the past');
    }
    if (type !== 'MARKET' && !/^\d+(\.\d+)?$/.test(text(request.price, ''))) return refuse('PRICE_INVALID', 'The price specified is invalid');
    const order: VenueOrder = {
      id: '',
      type: type as VenueOrder['type'],
      instrument,
      units: Number(unitsText),
      price: type === 'MARKET' ? undefined : String(request.price),
      timeInForce,
      gtdTimeMs,
      createTime: this.time(),
      state: 'PENDING',
      clientExtensions: request.clientExtensions as Json | undefined,
      tradeClientExtensions: request.tradeClientExtensions as Json | undefined,
      stopLossOnFill: request.stopLossOnFill as Json | undefined,
      takeProfitOnFill: request.takeProfitOnFill as Json | undefined,
    };
    const created = this.record({ ...request, type: `${type}_ORDER`, timeInForce, positionFill: 'DEFAULT', reason: 'CLIENT_ORDER' });
    order.id = created.id as string;
    this.orders.set(order.id, order);
    const answer: Json = { orderCreateTransaction: created };
    if (type === 'MARKET') Object.assign(answer, this.fillNow(order, this.market.lastTick(spec.symbol)));
    const related = this.transactions.filter((t) => Number(t.id) >= Number(order.id)).map((t) => t.id);
    return { status: 201, body: { ...answer, relatedTransactionIDs: related, lastTransactionID: this.lastTransactionID } };
  }

  /** `PUT /orders/{specifier}/cancel`. */
  cancelOrder(specifier: string): VenueAnswer {
    this.sync();
    const order = this.findOrder(specifier);
    if (!order || order.state !== 'PENDING' || order.type === 'MARKET') {
      const tx = this.record({ type: 'ORDER_CANCEL_REJECT', orderID: order?.id ?? specifier, rejectReason: 'ORDER_DOESNT_EXIST' });
      return reject(404, {
        orderCancelRejectTransaction: tx,
        lastTransactionID: this.lastTransactionID,
        errorCode: 'ORDER_DOESNT_EXIST',
        errorMessage: 'The Order specified does not exist',
      });
    }
    const tx = this.cancel(order, 'CLIENT_REQUEST');
    return { status: 200, body: { orderCancelTransaction: tx, relatedTransactionIDs: [tx.id], lastTransactionID: this.lastTransactionID } };
  }

  /** `GET /orders/{specifier}`. */
  getOrder(specifier: string): VenueAnswer {
    this.sync();
    const order = this.findOrder(specifier);
    if (!order) return reject(404, { errorCode: 'NO_SUCH_ORDER', errorMessage: 'The Order specified does not exist' });
    return { status: 200, body: { order: this.orderBody(order), lastTransactionID: this.lastTransactionID } };
  }

  /** `GET /pendingOrders`. */
  pendingOrders(): Json {
    this.sync();
    const orders = [...this.orders.values()].filter((o) => o.state === 'PENDING').map((o) => this.orderBody(o));
    return { orders, lastTransactionID: this.lastTransactionID };
  }

  // --- trades ------------------------------------------------------------------------------

  /** `GET /openTrades`. */
  openTradesBody(): Json {
    this.sync();
    return { trades: this.openTrades().map((t) => this.tradeBody(t)), lastTransactionID: this.lastTransactionID };
  }

  /** `GET /trades/{specifier}`. */
  getTrade(specifier: string): VenueAnswer {
    this.sync();
    const trade = this.findTrade(specifier);
    if (!trade) return reject(404, { errorCode: 'NO_SUCH_TRADE', errorMessage: 'The Trade specified does not exist' });
    return { status: 200, body: { trade: this.tradeBody(trade), lastTransactionID: this.lastTransactionID } };
  }

  /** `PUT /trades/{specifier}/close` with `{ units: "ALL" | DecimalNumber }`. */
  closeTrade(specifier: string, body: Json): VenueAnswer {
    this.sync();
    const trade = this.findTrade(specifier);
    if (!trade || trade.currentUnits === 0) return reject(404, { errorCode: 'NO_SUCH_TRADE', errorMessage: 'The Trade specified does not exist' });
    const unitsText = text(body.units, 'ALL');
    const units = unitsText === 'ALL' ? Math.abs(trade.currentUnits) : Number(unitsText);
    const refuse = (rejectReason: string, errorMessage: string) => {
      const tx = this.record({
        type: 'MARKET_ORDER_REJECT',
        instrument: trade.instrument,
        units: String(-Math.sign(trade.currentUnits) * units),
        rejectReason,
        reason: 'TRADE_CLOSE',
        tradeClose: { tradeID: trade.id, units: unitsText },
      });
      return reject(400, { orderRejectTransaction: tx, errorCode: rejectReason, errorMessage, lastTransactionID: this.lastTransactionID });
    };
    if (!Number.isFinite(units) || units <= 0) return refuse('CLOSE_TRADE_UNITS_INVALID', 'The units specified to close are invalid');
    if (!Number.isInteger(units)) return refuse('UNITS_PRECISION_EXCEEDED', 'The units specified contain more precision than is allowed for the instrument');
    if (units > Math.abs(trade.currentUnits)) return refuse('CLOSE_TRADE_UNITS_EXCEED_TRADE_SIZE', 'The units specified exceed the size of the Trade');
    const orderUnits = -Math.sign(trade.currentUnits) * units;
    const created = this.record({
      type: 'MARKET_ORDER',
      instrument: trade.instrument,
      units: String(orderUnits),
      timeInForce: 'FOK',
      positionFill: 'REDUCE_ONLY',
      reason: 'TRADE_CLOSE',
      tradeClose: { tradeID: trade.id, units: unitsText },
    });
    const order: VenueOrder = {
      id: created.id as string,
      type: 'MARKET',
      instrument: trade.instrument,
      units: orderUnits,
      timeInForce: 'FOK',
      createTime: this.time(),
      state: 'PENDING',
      tradeClose: { tradeID: trade.id, units: unitsText },
    };
    this.orders.set(order.id, order);
    const answer = this.fillNow(order, this.market.lastTick(this.specOf(trade.instrument)!.symbol));
    return { status: 200, body: { orderCreateTransaction: created, ...answer, lastTransactionID: this.lastTransactionID } };
  }

  /** `PUT /trades/{specifier}/orders` with `stopLoss` / `takeProfit` details, null cancelling one. */
  setDependentOrders(specifier: string, body: Json): VenueAnswer {
    this.sync();
    const trade = this.findTrade(specifier);
    if (!trade || trade.currentUnits === 0) return reject(404, { errorCode: 'NO_SUCH_TRADE', errorMessage: 'The Trade specified does not exist' });
    const answer: Json = {};
    for (const [leg, type] of [
      ['takeProfit', 'TAKE_PROFIT'],
      ['stopLoss', 'STOP_LOSS'],
    ] as const) {
      if (!(leg in body)) continue;
      const details = body[leg] as Json | null;
      const key = leg === 'takeProfit' ? 'takeProfitOrderID' : 'stopLossOrderID';
      const existing = trade[key] ? this.orders.get(trade[key]) : undefined;
      if (existing?.state === 'PENDING') answer[`${leg}OrderCancelTransaction`] = this.cancel(existing, details ? 'CLIENT_REQUEST_REPLACED' : 'CLIENT_REQUEST');
      trade[key] = undefined;
      if (details) {
        const order = this.dependentOrder(type, trade, String(details.price), existing ? 'REPLACEMENT' : 'CLIENT_ORDER');
        answer[`${leg}OrderTransaction`] = this.transactions.at(-1);
        trade[key] = order.id;
      }
    }
    // A stop or target already crossed fills at once ("…OrderFillTransaction: only provided if the new … Order was immediately filled").
    const tick = this.market.lastTick(this.specOf(trade.instrument)!.symbol);
    if (tick) {
      for (const id of [trade.stopLossOrderID, trade.takeProfitOrderID]) {
        const order = id ? this.orders.get(id) : undefined;
        if (order?.state === 'PENDING' && this.isTriggered(order, tick)) {
          const fill = this.fillNow(order, tick);
          answer[order.type === 'STOP_LOSS' ? 'stopLossOrderFillTransaction' : 'takeProfitOrderFillTransaction'] = fill.orderFillTransaction;
        }
      }
    }
    return { status: 200, body: { ...answer, lastTransactionID: this.lastTransactionID } };
  }

  /** `PUT /trades/{specifier}/clientExtensions` with `{ clientExtensions }`. */
  setTradeClientExtensions(specifier: string, body: Json): VenueAnswer {
    this.sync();
    const trade = this.findTrade(specifier);
    if (!trade || trade.currentUnits === 0) return reject(404, { errorCode: 'NO_SUCH_TRADE', errorMessage: 'The Trade specified does not exist' });
    const extensions = { ...trade.clientExtensions, ...(body.clientExtensions as Json) };
    trade.clientExtensions = extensions;
    const tx = this.record({ type: 'TRADE_CLIENT_EXTENSIONS_MODIFY', tradeID: trade.id, tradeClientExtensionsModify: body.clientExtensions });
    return { status: 200, body: { tradeClientExtensionsModifyTransaction: tx, relatedTransactionIDs: [tx.id], lastTransactionID: this.lastTransactionID } };
  }

  // --- transactions ------------------------------------------------------------------------

  /** `GET /transactions?from&to&pageSize`: the id range of the time range, as page URLs. */
  transactionPages(baseUrl: string, query: URLSearchParams): VenueAnswer {
    this.sync();
    const from = Date.parse(query.get('from') ?? '1970-01-01T00:00:00Z');
    const to = Date.parse(query.get('to') ?? this.time());
    const pageSize = Number(query.get('pageSize') ?? 100);
    if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 1000) return reject(400, { errorMessage: "Invalid value specified for 'pageSize'" });
    const inRange = this.transactions.filter((t) => Date.parse(t.time as string) >= from && Date.parse(t.time as string) <= to);
    const pages: string[] = [];
    for (let i = 0; i < inRange.length; i += pageSize) {
      const page = inRange.slice(i, i + pageSize);
      pages.push(`${baseUrl}/v3/accounts/${this.accountId}/transactions/idrange?from=${page[0]!.id as string}&to=${page.at(-1)!.id as string}`);
    }
    return {
      status: 200,
      body: { from: this.time(from), to: this.time(to), pageSize, count: inRange.length, pages, lastTransactionID: this.lastTransactionID },
    };
  }

  /** `GET /transactions/idrange?from&to`: at most 1000 transactions, ids inclusive. */
  transactionRange(query: URLSearchParams): VenueAnswer {
    this.sync();
    const from = Number(query.get('from'));
    const to = Number(query.get('to'));
    if (!Number.isInteger(from) || !Number.isInteger(to) || from < 1) return reject(400, { errorMessage: "Invalid value specified for 'from'" });
    const transactions = this.transactions.filter((t) => Number(t.id) >= from && Number(t.id) <= to).slice(0, 1000);
    return { status: 200, body: { transactions, lastTransactionID: this.lastTransactionID } };
  }

  // --- the market's clock --------------------------------------------------------------------

  /** Replays the ticks since the last answer: resting orders fill, stops and targets trigger, GTD orders expire. */
  sync(): void {
    const now = this.now();
    if (now <= this.syncedUntil) return;
    const from = this.syncedUntil;
    this.syncedUntil = now;
    const pending = () => [...this.orders.values()].filter((o) => o.state === 'PENDING' && o.type !== 'MARKET');
    const instruments = [...new Set(pending().map((o) => o.instrument))];
    const events: { time: number; tick?: Quote; instrument: string }[] = [];
    for (const instrument of instruments) {
      for (const tick of this.market.ticksBetween(this.specOf(instrument)!.symbol, from + 1, now + 1)) events.push({ time: tick.time, tick, instrument });
    }
    for (const order of pending())
      if (order.gtdTimeMs !== undefined && order.gtdTimeMs <= now) events.push({ time: order.gtdTimeMs, instrument: order.instrument });
    events.sort((a, b) => a.time - b.time || (a.tick ? 1 : -1));
    for (const event of events) {
      for (const order of pending().filter((o) => o.instrument === event.instrument)) {
        if (order.state !== 'PENDING') continue;
        if (order.gtdTimeMs !== undefined && order.gtdTimeMs <= event.time) {
          this.cancel(order, 'TIME_IN_FORCE_EXPIRED', event.time);
        } else if (event.tick && this.isTriggered(order, event.tick)) {
          this.fillNow(order, event.tick, event.time);
        }
      }
    }
  }

  // --- internals ---------------------------------------------------------------------------

  private isTriggered(order: VenueOrder, tick: Quote): boolean {
    const price = Number(order.price);
    if (order.type === 'LIMIT') return order.units > 0 ? tick.ask <= price : tick.bid >= price;
    if (order.type === 'STOP') return order.units > 0 ? tick.ask >= price : tick.bid <= price;
    const trade = this.trades.get(order.tradeID ?? '');
    if (!trade || trade.currentUnits === 0) return false;
    const isLong = trade.currentUnits > 0;
    const close = isLong ? tick.bid : tick.ask;
    if (order.type === 'TAKE_PROFIT') return isLong ? close >= price : close <= price;
    return isLong ? close <= price : close >= price;
  }

  /** Fills (or cancels) an order against `tick`: the fill and any cancel transactions, as the response fields name them. */
  private fillNow(order: VenueOrder, tick: Quote | null, atMs = this.now()): Json {
    if (!tick || !this.market.isOpen(atMs)) return { orderCancelTransaction: this.cancel(order, 'MARKET_HALTED', atMs) };
    const spec = this.specOf(order.instrument)!;
    const isBuy = order.units > 0;
    const price = isBuy ? tick.ask : tick.bid;
    let units = order.units;
    if (order.type === 'STOP_LOSS' || order.type === 'TAKE_PROFIT') {
      const trade = this.trades.get(order.tradeID!)!;
      units = -trade.currentUnits;
    }
    const isEntry = order.type === 'MARKET' || order.type === 'LIMIT' || order.type === 'STOP';
    if (isEntry && !order.tradeClose) {
      const closeLeg = isBuy ? tick.bid : tick.ask;
      const sl = order.stopLossOnFill?.price === undefined ? undefined : Number(order.stopLossOnFill.price);
      const tp = order.takeProfitOnFill?.price === undefined ? undefined : Number(order.takeProfitOnFill.price);
      if (sl !== undefined && (isBuy ? sl >= closeLeg : sl <= closeLeg)) return { orderCancelTransaction: this.cancel(order, 'STOP_LOSS_ON_FILL_LOSS', atMs) };
      if (tp !== undefined && (isBuy ? tp <= price : tp >= price)) return { orderCancelTransaction: this.cancel(order, 'TAKE_PROFIT_ON_FILL_LOSS', atMs) };
      const summary = this.summaryBody().account as Json;
      if (this.margin(order.instrument, units) > Number(summary.marginAvailable))
        return { orderCancelTransaction: this.cancel(order, 'INSUFFICIENT_MARGIN', atMs) };
      if (Math.abs(units) > this.liquidityUnits) {
        if (order.timeInForce !== 'IOC') return { orderCancelTransaction: this.cancel(order, 'INSUFFICIENT_LIQUIDITY', atMs) };
        units = Math.sign(units) * this.liquidityUnits;
      }
    }
    const priceText = this.priceText(spec, price);
    const fill: Json = {
      type: 'ORDER_FILL',
      orderID: order.id,
      ...(order.clientExtensions?.id ? { clientOrderID: order.clientExtensions.id } : {}),
      instrument: order.instrument,
      units: String(units),
      price: priceText,
      fullVWAP: priceText,
      fullPrice: this.priceOf(order.instrument, tick),
      reason: order.tradeClose ? 'MARKET_ORDER_TRADE_CLOSE' : `${order.type}_ORDER`,
      financing: money(0),
      commission: money(0),
      guaranteedExecutionFee: money(0),
    };
    let remaining = units;
    let pl = 0;
    const closing = order.tradeClose
      ? [this.trades.get(order.tradeClose.tradeID)!]
      : order.tradeID
        ? [this.trades.get(order.tradeID)!]
        : this.openTrades().filter((t) => t.instrument === order.instrument && Math.sign(t.currentUnits) === -Math.sign(units));
    const closed: Json[] = [];
    let reduced: Json | undefined;
    const fillId = String(this.lastId + 1);
    for (const trade of closing) {
      if (remaining === 0) break;
      const take = Math.sign(remaining) * Math.min(Math.abs(remaining), Math.abs(trade.currentUnits));
      const tradePL = (price - Number(trade.price)) * -take * (this.market.rate(spec.quote, this.currency, atMs) ?? 1);
      pl += tradePL;
      trade.currentUnits += take;
      trade.realizedPL += tradePL;
      trade.closingTransactionIDs.push(fillId);
      remaining -= take;
      const effect = {
        tradeID: trade.id,
        units: String(take),
        price: priceText,
        realizedPL: money(tradePL),
        financing: money(0),
        guaranteedExecutionFee: money(0),
        halfSpreadCost: money(0),
      };
      if (trade.currentUnits === 0) closed.push(effect);
      else reduced = effect;
    }
    if (closed.length > 0) fill.tradesClosed = closed;
    if (reduced) fill.tradeReduced = reduced;
    if (remaining !== 0 && isEntry && !order.tradeClose) {
      fill.tradeOpened = {
        tradeID: fillId,
        units: String(remaining),
        price: priceText,
        ...(order.tradeClientExtensions ? { clientExtensions: order.tradeClientExtensions } : {}),
      };
    }
    this.balance += pl;
    fill.pl = money(pl);
    fill.accountBalance = money(this.balance);
    const fillTx = this.record(fill, atMs);
    order.state = 'FILLED';
    order.filledTime = fillTx.time as string;
    order.fillingTransactionID = fillTx.id as string;
    const answer: Json = { orderFillTransaction: fillTx };
    for (const trade of closing.filter((t) => t.currentUnits === 0 && !t.closeTime)) {
      trade.closeTime = fillTx.time as string;
      for (const id of [trade.stopLossOrderID, trade.takeProfitOrderID]) {
        const dependent = id ? this.orders.get(id) : undefined;
        if (dependent?.state === 'PENDING') this.cancel(dependent, 'LINKED_TRADE_CLOSED', atMs);
      }
    }
    if (fill.tradeOpened) {
      const trade: VenueTrade = {
        id: fillId,
        instrument: order.instrument,
        price: priceText,
        openTime: fillTx.time as string,
        initialUnits: remaining,
        currentUnits: remaining,
        realizedPL: 0,
        clientExtensions: order.tradeClientExtensions,
        closingTransactionIDs: [],
      };
      this.trades.set(trade.id, trade);
      if (order.takeProfitOnFill) trade.takeProfitOrderID = this.dependentOrder('TAKE_PROFIT', trade, String(order.takeProfitOnFill.price), 'ON_FILL', atMs).id;
      if (order.stopLossOnFill) trade.stopLossOrderID = this.dependentOrder('STOP_LOSS', trade, String(order.stopLossOnFill.price), 'ON_FILL', atMs).id;
    }
    if (remaining !== 0 && order.timeInForce === 'IOC' && Math.abs(units) < Math.abs(order.units)) {
      answer.orderCancelTransaction = this.record({ type: 'ORDER_CANCEL', orderID: order.id, reason: 'INSUFFICIENT_LIQUIDITY' }, atMs);
    }
    return answer;
  }

  private dependentOrder(type: 'TAKE_PROFIT' | 'STOP_LOSS', trade: VenueTrade, price: string, reason: string, atMs = this.now()): VenueOrder {
    const tx = this.record({ type: `${type}_ORDER`, tradeID: trade.id, price, timeInForce: 'GTC', triggerCondition: 'DEFAULT', reason }, atMs);
    const order: VenueOrder = {
      id: tx.id as string,
      type,
      instrument: trade.instrument,
      units: -trade.currentUnits,
      price,
      timeInForce: 'GTC',
      createTime: tx.time as string,
      state: 'PENDING',
      tradeID: trade.id,
    };
    this.orders.set(order.id, order);
    return order;
  }

  private cancel(order: VenueOrder, reason: string, atMs = this.now()): Json {
    const tx = this.record(
      { type: 'ORDER_CANCEL', orderID: order.id, ...(order.clientExtensions?.id ? { clientOrderID: order.clientExtensions.id } : {}), reason },
      atMs,
    );
    order.state = 'CANCELLED';
    order.cancelledTime = tx.time as string;
    order.cancellingTransactionID = tx.id as string;
    return tx;
  }

  /** An id, or `@clientID` ("Either the Order's OANDA-assigned OrderID or the Order's client-provided ClientID prefixed by the '@' symbol"). */
  private findOrder(specifier: string): VenueOrder | undefined {
    if (!specifier.startsWith('@')) return this.orders.get(specifier);
    return [...this.orders.values()].find((o) => o.clientExtensions?.id === specifier.slice(1));
  }

  private findTrade(specifier: string): VenueTrade | undefined {
    if (!specifier.startsWith('@')) return this.trades.get(specifier);
    return [...this.trades.values()].find((t) => t.clientExtensions?.id === specifier.slice(1));
  }

  private orderBody(o: VenueOrder): Json {
    return {
      id: o.id,
      createTime: o.createTime,
      state: o.state,
      type: o.type,
      ...(o.tradeID ? { tradeID: o.tradeID } : { instrument: o.instrument, units: String(o.units) }),
      ...(o.price ? { price: o.price } : {}),
      timeInForce: o.timeInForce,
      ...(o.gtdTimeMs !== undefined ? { gtdTime: this.time(o.gtdTimeMs) } : {}),
      positionFill: 'DEFAULT',
      triggerCondition: 'DEFAULT',
      ...(o.clientExtensions ? { clientExtensions: o.clientExtensions } : {}),
      ...(o.tradeClientExtensions ? { tradeClientExtensions: o.tradeClientExtensions } : {}),
      ...(o.stopLossOnFill ? { stopLossOnFill: o.stopLossOnFill } : {}),
      ...(o.takeProfitOnFill ? { takeProfitOnFill: o.takeProfitOnFill } : {}),
      ...(o.fillingTransactionID ? { fillingTransactionID: o.fillingTransactionID, filledTime: o.filledTime } : {}),
      ...(o.cancellingTransactionID ? { cancellingTransactionID: o.cancellingTransactionID, cancelledTime: o.cancelledTime } : {}),
    };
  }

  private tradeBody(t: VenueTrade): Json {
    const dependent = (id: string | undefined) => {
      const order = id ? this.orders.get(id) : undefined;
      return order?.state === 'PENDING' ? this.orderBody(order) : undefined;
    };
    const takeProfitOrder = dependent(t.takeProfitOrderID);
    const stopLossOrder = dependent(t.stopLossOrderID);
    return {
      id: t.id,
      instrument: t.instrument,
      price: t.price,
      openTime: t.openTime,
      state: t.currentUnits === 0 ? 'CLOSED' : 'OPEN',
      initialUnits: String(t.initialUnits),
      initialMarginRequired: money(this.margin(t.instrument, t.initialUnits)),
      currentUnits: String(t.currentUnits),
      realizedPL: money(t.realizedPL),
      unrealizedPL: money(this.unrealizedPL(t)),
      marginUsed: money(this.margin(t.instrument, t.currentUnits)),
      financing: money(0),
      closingTransactionIDs: t.closingTransactionIDs,
      ...(t.closeTime ? { closeTime: t.closeTime } : {}),
      ...(t.clientExtensions ? { clientExtensions: t.clientExtensions } : {}),
      ...(takeProfitOrder ? { takeProfitOrder } : {}),
      ...(stopLossOrder ? { stopLossOrder } : {}),
    };
  }

  /** TradeSummary: a trade with its dependent orders by id. */
  private tradeSummary(t: VenueTrade): Json {
    const { takeProfitOrder, stopLossOrder, ...trade } = this.tradeBody(t);
    return {
      ...trade,
      ...(takeProfitOrder ? { takeProfitOrderID: t.takeProfitOrderID } : {}),
      ...(stopLossOrder ? { stopLossOrderID: t.stopLossOrderID } : {}),
    };
  }

  /** Position: per instrument, the open trades of each side (the account is not hedging: one side holds units). */
  private positions(instruments: string[]): Json[] {
    return instruments.map((instrument) => {
      const open = this.openTrades().filter((t) => t.instrument === instrument);
      const side = (sign: 1 | -1): Json => {
        const trades = open.filter((t) => Math.sign(t.currentUnits) === sign);
        const units = trades.reduce((sum, t) => sum + t.currentUnits, 0);
        const spec = this.specOf(instrument)!;
        const averagePrice = units === 0 ? undefined : this.priceText(spec, trades.reduce((s, t) => s + Number(t.price) * t.currentUnits, 0) / units);
        return {
          units: String(units),
          ...(averagePrice ? { averagePrice, tradeIDs: trades.map((t) => t.id) } : {}),
          pl: money(trades.reduce((s, t) => s + t.realizedPL, 0)),
          financing: money(0),
          unrealizedPL: money(trades.reduce((s, t) => s + this.unrealizedPL(t), 0)),
        };
      };
      return {
        instrument,
        pl: money([...this.trades.values()].filter((t) => t.instrument === instrument).reduce((s, t) => s + t.realizedPL, 0)),
        financing: money(0),
        commission: money(0),
        unrealizedPL: money(open.reduce((s, t) => s + this.unrealizedPL(t), 0)),
        marginUsed: money(open.reduce((s, t) => s + this.margin(t.instrument, t.currentUnits), 0)),
        long: side(1),
        short: side(-1),
      };
    });
  }

  private openTrades(): VenueTrade[] {
    return [...this.trades.values()].filter((t) => t.currentUnits !== 0);
  }

  /** Marked at the close price: the bid for a long trade, the ask for a short one. */
  private unrealizedPL(t: VenueTrade): number {
    const spec = this.specOf(t.instrument)!;
    const tick = this.market.lastTick(spec.symbol);
    if (!tick) return 0;
    const close = t.currentUnits > 0 ? tick.bid : tick.ask;
    return (close - Number(t.price)) * t.currentUnits * (this.market.rate(spec.quote, this.currency) ?? 1);
  }

  private margin(instrument: string, units: number): number {
    const spec = this.specOf(instrument)!;
    return Math.abs(units) * (this.market.rate(spec.base, this.currency) ?? 1) * Number(this.marginRate(spec));
  }

  private marginRate(spec: SymbolSpec): string {
    return spec.type === 'CURRENCY' ? '0.0333' : '0.05';
  }

  private specOf(instrument: string): SymbolSpec | undefined {
    const spec = symbolSpec(instrument.replace('_', ''));
    return spec?.instrument === instrument ? spec : undefined;
  }

  private priceText(spec: SymbolSpec, price: number): string {
    return price.toFixed(spec.digits);
  }

  private now(): number {
    return this.clock();
  }

  /** Appends a transaction (id, time, accountID, batchID, userID) and returns it. */
  private record(fields: Json, atMs = this.now()): Json {
    this.lastId += 1;
    const id = String(this.lastId);
    const tx = { ...fields, id, time: this.time(atMs), userID: 1435156, accountID: this.accountId, batchID: id, requestID: `7981${id}` };
    this.transactions.push(tx);
    return tx;
  }

  /** RFC 3339 with nanoseconds, as v20 writes DateTime. */
  private time(atMs = this.now()): string {
    return new Date(atMs).toISOString().replace(/\.(\d{3})Z$/, '.$1000000Z');
  }
}
