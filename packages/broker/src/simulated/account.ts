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
import { deriveKey, hashIndex, hashString, rehash, unit } from './hash.js';
import type { SimulatedMarket } from './market.js';
import { DAY_MS, HOUR_MS, MINUTE_MS, nextWeeklyOpen } from './market-hours.js';
import { currencyModel, type SymbolSpec, type SymbolTier } from './symbols.js';

/** The simulated trader's history starts here unless told otherwise (ids stay stable across restarts). */
export const DEFAULT_ACCOUNT_OPENED_AT = Date.UTC(2026, 0, 1);
/** Chance that the trader acts in a given market hour. */
const TRADE_CHANCE_PER_HOUR = 0.3;
const TRADED_SYMBOLS = ['EURUSD', 'GBPUSD', 'USDJPY', 'AUDUSD', 'USDCAD', 'EURJPY', 'GBPJPY', 'EURGBP', 'XAUUSD'];
const MIN_HOLD_MS = 5 * MINUTE_MS;
const MAX_HOLD_MS = 36 * HOUR_MS;
const MARGIN_RATE: Record<SymbolTier, string> = { major: '0.0333', cross: '0.05', metal: '0.05' };

export interface SimulatedAccountOptions {
  market: SimulatedMarket;
  /** Balance transferred in when the account opens (default 100000). */
  balance?: string | number;
  /** Account currency (default USD). */
  currency?: string;
  /** When the account opened and its trader started (epoch ms). Default 2026-01-01T00:00Z, or 7 days before now when that is earlier. */
  openedAt?: number;
  alias?: string;
  /** The trader never holds more open trades than this (default 5). */
  maxOpenTrades?: number;
}

interface TradeState {
  id: string;
  spec: SymbolSpec;
  units: number;
  price: number;
  openTime: number;
  closedAt: number | null;
  realizedPL: number;
}

interface OrderState {
  id: string;
  type: 'MARKET' | 'LIMIT';
  spec: SymbolSpec;
  units: number;
  price: number | null;
  timeInForce: 'FOK' | 'GTD';
  createTime: number;
  state: 'PENDING' | 'FILLED' | 'CANCELLED';
}

/** What one transaction did, for `changesSince`. */
interface TransactionEffects {
  orderCreated?: OrderState;
  orderFilled?: OrderState;
  orderCancelled?: OrderState;
  tradeOpened?: TradeState;
  tradeClosed?: TradeState;
}

/** One trade the simulated trader decides on in a given hour (all from the hash of that hour). */
interface TradePlan {
  spec: SymbolSpec;
  units: number;
  openAt: number;
  holdMs: number;
  limit: { offsetPips: number; waitMs: number; fills: boolean } | null;
}

type TraderEvent =
  | { time: number; kind: 'open'; plan: TradePlan }
  | { time: number; kind: 'limit-end'; plan: TradePlan; order: OrderState }
  | { time: number; kind: 'close'; trade: TradeState };

/**
 * A simulated OANDA-style account over the simulated market. A simulated trader acts on it:
 * in each market hour a hash of (seed, hour) decides whether it opens a trade, on which
 * instrument, which way, how large, whether through a limit order (filled or expired), and how
 * long it holds it. The whole history is therefore a pure function of the seed, the opening
 * instant and the clock: it is replayed up to now on each call, transaction ids are stable
 * across restarts, and the transaction log grows as time passes. Open trades are marked to the
 * market's latest ticks. Limit orders fill at their price when the plan says so (a
 * simplification: the market is not checked to have crossed them); financing is not charged.
 */
export class SimulatedAccount implements AccountReader {
  readonly name = 'simulated';
  readonly id: string;
  private readonly market: SimulatedMarket;
  private readonly currency: string;
  private readonly alias: string;
  private readonly maxOpenTrades: number;
  private readonly openedAt: number;
  private readonly traderKey: number;
  private readonly tradedSpecs: SymbolSpec[];

  private balance = 0;
  private realizedPL = 0;
  private readonly transactions: AccountTransaction[] = [];
  private readonly effects: TransactionEffects[] = [];
  private readonly trades: TradeState[] = [];
  private readonly orders: OrderState[] = [];
  private queue: TraderEvent[] = [];
  private nextHour: number;

  constructor(options: SimulatedAccountOptions) {
    this.market = options.market;
    this.currency = options.currency ?? 'USD';
    if (!currencyModel(this.currency) || this.currency === 'XAU') throw new RangeError(`unsupported account currency ${this.currency}`);
    this.alias = options.alias ?? 'Simulated';
    this.maxOpenTrades = options.maxOpenTrades ?? 5;
    const now = this.market.clock.now();
    this.openedAt = options.openedAt ?? Math.min(DEFAULT_ACCOUNT_OPENED_AT, Math.floor((now - 7 * DAY_MS) / DAY_MS) * DAY_MS);
    const seedKey = hashString(this.market.seed);
    this.traderKey = deriveKey(seedKey, 'account-trader');
    const number = 1_000_000 + (deriveKey(seedKey, 'account-id') % 9_000_000);
    this.id = `101-004-${number}-001`;
    this.tradedSpecs = TRADED_SYMBOLS.map((s) => this.market.spec(s)!);
    this.nextHour = Math.ceil(this.openedAt / HOUR_MS);

    const opening = Number(options.balance ?? 100_000);
    if (!Number.isFinite(opening) || opening < 0) throw new RangeError('balance must be a non-negative number');
    this.record({ time: this.openedAt, type: 'CREATE', reason: 'CLIENT_REQUEST' }, {});
    this.balance = opening;
    this.record({ time: this.openedAt, type: 'TRANSFER_FUNDS', reason: 'ACCOUNT_TRANSFER' }, {});
  }

  async summary(): Promise<AccountSummary> {
    const now = this.catchUp();
    return this.summaryAt(now);
  }

  async details(): Promise<AccountDetails> {
    const now = this.catchUp();
    return {
      ...this.summaryAt(now),
      positions: this.positionsAt(now),
      trades: this.openTrades().map((t) => this.tradeView(t, now)),
      orders: this.orders.filter((o) => o.state === 'PENDING').map((o) => this.orderView(o)),
    };
  }

  async instruments(names?: string[]): Promise<Instrument[]> {
    const wanted = names && names.length > 0 ? new Set(names) : undefined;
    return this.market
      .symbols()
      .filter((spec) => !wanted || wanted.has(spec.instrument))
      .map((spec) => ({
        name: spec.instrument,
        type: spec.type,
        displayName: `${spec.base}/${spec.quote}`,
        pipLocation: spec.pipLocation,
        displayPrecision: spec.digits,
        tradeUnitsPrecision: 0,
        minimumTradeSize: '1',
        maximumOrderUnits: spec.type === 'METAL' ? '10000' : '100000000',
        marginRate: MARGIN_RATE[spec.tier],
      }));
  }

  async changesSince(sinceTransactionId: string): Promise<AccountChanges> {
    const now = this.catchUp();
    const since = /^\d{1,15}$/.test(sinceTransactionId) ? Number(sinceTransactionId) : Number.NaN;
    const last = this.transactions.length;
    if (!(since <= last)) {
      throw new BrokerError('not_found', `transaction ${sinceTransactionId} does not exist (last is ${last})`, { venueCode: '404' });
    }
    const window = this.effects.slice(since);
    const collect = <T>(pick: (e: TransactionEffects) => T | undefined): T[] =>
      window.map(pick).filter((x): x is T => x !== undefined);
    const tradesOpened = collect((e) => e.tradeOpened);
    const tradesClosed = collect((e) => e.tradeClosed);
    const touched = new Set([...tradesOpened, ...tradesClosed].map((t) => t.spec.instrument));
    const summary = this.summaryAt(now);
    return {
      sinceTransactionId: String(since),
      lastTransactionId: String(last),
      ordersCreated: collect((e) => e.orderCreated).map((o) => this.orderView(o)),
      ordersCancelled: collect((e) => e.orderCancelled).map((o) => this.orderView(o)),
      ordersFilled: collect((e) => e.orderFilled).map((o) => this.orderView(o)),
      tradesOpened: tradesOpened.map((t) => this.tradeView(t, now)),
      tradesReduced: [],
      tradesClosed: tradesClosed.map((t) => this.tradeView(t, now)),
      positions: [...touched].map((instrument) => this.positionOf(instrument, now)),
      transactions: this.transactions.slice(since),
      state: {
        nav: summary.nav,
        unrealizedPL: summary.unrealizedPL,
        marginUsed: summary.marginUsed,
        marginAvailable: summary.marginAvailable,
      },
    };
  }

  async close(): Promise<void> {}

  // --- the simulated trader ----------------------------------------------------------------

  /** Replays the trader's decisions up to now; returns now. */
  private catchUp(): number {
    const now = this.market.clock.now();
    while (this.nextHour * HOUR_MS <= now) {
      const plan = this.planFor(this.nextHour);
      if (plan) this.schedule({ time: plan.openAt, kind: 'open', plan });
      this.nextHour++;
    }
    while (this.queue.length > 0 && this.queue[0]!.time <= now) this.handle(this.queue.shift()!);
    return now;
  }

  private planFor(hour: number): TradePlan | undefined {
    const h1 = hashIndex(this.traderKey, hour);
    if (unit(h1) >= TRADE_CHANCE_PER_HOUR) return undefined;
    const h2 = rehash(h1);
    const h3 = rehash(h2);
    const h4 = rehash(h3);
    const h5 = rehash(h4);
    const openAt = hour * HOUR_MS + Math.floor(unit(h2) * 3600) * 1000;
    if (!this.market.isOpen(openAt)) return undefined;
    const spec = this.tradedSpecs[h3 % this.tradedSpecs.length]!;
    const size = 1 + (h4 % 50);
    const units = (spec.type === 'METAL' ? size : size * 1000) * (h4 & 0x80 ? -1 : 1);
    const holdMs = Math.round((MIN_HOLD_MS * (MAX_HOLD_MS / MIN_HOLD_MS) ** unit(h5)) / 1000) * 1000;
    const h6 = rehash(h5);
    const limit =
      unit(h6) < 0.25
        ? { offsetPips: 5 + (rehash(h6) % 26), waitMs: (10 + (h6 % 110)) * MINUTE_MS, fills: unit(rehash(rehash(h6))) < 0.6 }
        : null;
    return { spec, units, openAt, holdMs, limit };
  }

  private schedule(event: TraderEvent): void {
    // Nothing happens while the market is closed: such events wait for the next open.
    if (!this.market.isOpen(event.time)) event.time = nextWeeklyOpen(event.time) + MINUTE_MS;
    let i = this.queue.length;
    while (i > 0 && this.queue[i - 1]!.time > event.time) i--;
    this.queue.splice(i, 0, event);
  }

  private handle(event: TraderEvent): void {
    switch (event.kind) {
      case 'open': {
        if (this.openTrades().length + this.pendingCount() >= this.maxOpenTrades) return;
        const { plan } = event;
        if (!plan.limit) {
          this.marketOrder(plan.spec, plan.units, event.time, plan.holdMs, 'CLIENT_ORDER');
          return;
        }
        const mid = this.mid(plan.spec, event.time);
        const pip = 10 ** plan.spec.pipLocation;
        const price = round(mid - Math.sign(plan.units) * plan.limit.offsetPips * pip, plan.spec.digits);
        const order = this.newOrder('LIMIT', plan.spec, plan.units, price, 'GTD', event.time, 'PENDING');
        this.record(
          { time: event.time, type: 'LIMIT_ORDER', spec: plan.spec, units: plan.units, price, reason: 'CLIENT_ORDER' },
          { orderCreated: order },
        );
        this.schedule({ time: event.time + plan.limit.waitMs, kind: 'limit-end', plan, order });
        return;
      }
      case 'limit-end': {
        const { plan, order } = event;
        if (!plan.limit!.fills || this.openTrades().length >= this.maxOpenTrades) {
          order.state = 'CANCELLED';
          this.record({ time: event.time, type: 'ORDER_CANCEL', spec: plan.spec, reason: 'TIME_IN_FORCE_EXPIRED' }, { orderCancelled: order });
          return;
        }
        order.state = 'FILLED';
        this.openTrade(order, event.time, order.price!, plan.holdMs, 'LIMIT_ORDER');
        return;
      }
      case 'close':
        this.closeTrade(event.trade, event.time);
    }
  }

  private marketOrder(spec: SymbolSpec, units: number, time: number, holdMs: number, reason: string): void {
    const order = this.newOrder('MARKET', spec, units, null, 'FOK', time, 'FILLED');
    this.record({ time, type: 'MARKET_ORDER', spec, units, reason }, {});
    this.openTrade(order, time, this.fillPrice(spec, units, time), holdMs, 'MARKET_ORDER');
  }

  private openTrade(order: OrderState, time: number, price: number, holdMs: number, reason: string): void {
    const trade: TradeState = {
      id: String(this.transactions.length + 1),
      spec: order.spec,
      units: order.units,
      price,
      openTime: time,
      closedAt: null,
      realizedPL: 0,
    };
    this.trades.push(trade);
    this.record(
      { time, type: 'ORDER_FILL', spec: order.spec, units: order.units, price, pl: 0, reason },
      { orderFilled: order, tradeOpened: trade },
    );
    this.schedule({ time: time + holdMs, kind: 'close', trade });
  }

  private closeTrade(trade: TradeState, time: number): void {
    const closeUnits = -trade.units;
    const order = this.newOrder('MARKET', trade.spec, closeUnits, null, 'FOK', time, 'FILLED');
    this.record({ time, type: 'MARKET_ORDER', spec: trade.spec, units: closeUnits, reason: 'TRADE_CLOSE' }, {});
    const price = this.fillPrice(trade.spec, closeUnits, time);
    const pl = this.profit(trade, price, time);
    trade.closedAt = time;
    trade.realizedPL = pl;
    this.balance += pl;
    this.realizedPL += pl;
    this.record(
      { time, type: 'ORDER_FILL', spec: trade.spec, units: closeUnits, price, pl, reason: 'MARKET_ORDER_TRADE_CLOSE' },
      { orderFilled: order, tradeClosed: trade },
    );
  }

  private newOrder(
    type: OrderState['type'],
    spec: SymbolSpec,
    units: number,
    price: number | null,
    timeInForce: OrderState['timeInForce'],
    time: number,
    state: OrderState['state'],
  ): OrderState {
    const order: OrderState = { id: String(this.transactions.length + 1), type, spec, units, price, timeInForce, createTime: time, state };
    this.orders.push(order);
    return order;
  }

  private record(
    t: { time: number; type: string; reason: string; spec?: SymbolSpec; units?: number; price?: number; pl?: number },
    effects: TransactionEffects,
  ): void {
    const digits = t.spec?.digits ?? 5;
    this.transactions.push({
      id: String(this.transactions.length + 1),
      time: new Date(t.time).toISOString(),
      type: t.type,
      instrument: t.spec?.instrument ?? null,
      units: t.units === undefined ? null : String(t.units),
      price: t.price === undefined ? null : t.price.toFixed(digits),
      pl: t.pl === undefined ? null : money(t.pl),
      accountBalance: money(this.balance),
      reason: t.reason,
    });
    this.effects.push(effects);
  }

  // --- views -------------------------------------------------------------------------------

  private openTrades(): TradeState[] {
    return this.trades.filter((t) => t.closedAt === null);
  }

  private pendingCount(): number {
    return this.orders.filter((o) => o.state === 'PENDING').length;
  }

  private summaryAt(now: number): AccountSummary {
    const open = this.openTrades();
    const unrealized = open.reduce((sum, t) => sum + this.unrealized(t, now), 0);
    const marginUsed = open.reduce((sum, t) => sum + this.margin(t, now), 0);
    const nav = this.balance + unrealized;
    return {
      id: this.id,
      alias: this.alias,
      currency: this.currency,
      balance: money(this.balance),
      nav: money(nav),
      unrealizedPL: money(unrealized),
      realizedPL: money(this.realizedPL),
      marginUsed: money(marginUsed),
      marginAvailable: money(nav - marginUsed),
      marginRate: MARGIN_RATE.major,
      openTradeCount: open.length,
      openPositionCount: new Set(open.map((t) => t.spec.instrument)).size,
      pendingOrderCount: this.pendingCount(),
      lastTransactionId: String(this.transactions.length),
      asOf: new Date(now).toISOString(),
    };
  }

  private tradeView(trade: TradeState, now: number): Trade {
    const isOpen = trade.closedAt === null;
    return {
      id: trade.id,
      instrument: trade.spec.instrument,
      currentUnits: isOpen ? String(trade.units) : '0',
      initialUnits: String(trade.units),
      price: trade.price.toFixed(trade.spec.digits),
      openTime: new Date(trade.openTime).toISOString(),
      unrealizedPL: money(isOpen ? this.unrealized(trade, now) : 0),
      stopLoss: null,
      takeProfit: null,
    };
  }

  private orderView(order: OrderState): PendingOrder {
    return {
      id: order.id,
      type: order.type,
      instrument: order.spec.instrument,
      units: String(order.units),
      price: order.price === null ? null : order.price.toFixed(order.spec.digits),
      timeInForce: order.timeInForce,
      createTime: new Date(order.createTime).toISOString(),
      state: order.state,
    };
  }

  private positionsAt(now: number): Position[] {
    const instruments = new Set(this.openTrades().map((t) => t.spec.instrument));
    return [...instruments].map((instrument) => this.positionOf(instrument, now));
  }

  private positionOf(instrument: string, now: number): Position {
    const open = this.openTrades().filter((t) => t.spec.instrument === instrument);
    const side = (trades: TradeState[]): PositionSide => {
      const units = trades.reduce((sum, t) => sum + t.units, 0);
      const digits = trades[0]?.spec.digits ?? 5;
      const average = units === 0 ? null : trades.reduce((sum, t) => sum + t.price * t.units, 0) / units;
      return {
        units: String(units),
        averagePrice: average === null ? null : average.toFixed(digits),
        unrealizedPL: money(trades.reduce((sum, t) => sum + this.unrealized(t, now), 0)),
        tradeIds: trades.map((t) => t.id),
      };
    };
    const long = side(open.filter((t) => t.units > 0));
    const short = side(open.filter((t) => t.units < 0));
    return {
      instrument,
      long,
      short,
      unrealizedPL: money(open.reduce((sum, t) => sum + this.unrealized(t, now), 0)),
      marginUsed: money(open.reduce((sum, t) => sum + this.margin(t, now), 0)),
    };
  }

  // --- prices ------------------------------------------------------------------------------

  private mid(spec: SymbolSpec, time: number): number {
    const tick = this.market.lastTick(spec.symbol, time);
    return tick ? (tick.bid + tick.ask) / 2 : this.market.midAt(spec.symbol, time);
  }

  /** Buys fill at the ask, sells at the bid. */
  private fillPrice(spec: SymbolSpec, units: number, time: number): number {
    const tick = this.market.lastTick(spec.symbol, time);
    if (!tick) return round(this.market.midAt(spec.symbol, time), spec.digits);
    return units > 0 ? tick.ask : tick.bid;
  }

  private profit(trade: TradeState, closePrice: number, time: number): number {
    const quoteAmount = (closePrice - trade.price) * trade.units;
    return quoteAmount * (this.market.rate(trade.spec.quote, this.currency, time) ?? 0);
  }

  private unrealized(trade: TradeState, now: number): number {
    return this.profit(trade, this.fillPrice(trade.spec, -trade.units, now), now);
  }

  private margin(trade: TradeState, now: number): number {
    const rate = this.market.rate(trade.spec.base, this.currency, now) ?? 0;
    return Math.abs(trade.units) * rate * Number(MARGIN_RATE[trade.spec.tier]);
  }
}

function round(value: number, digits: number): number {
  return Number(value.toFixed(digits));
}

/** Account-currency amounts as OANDA writes them: four decimals. */
function money(value: number): string {
  const text = value.toFixed(4);
  return text === '-0.0000' ? '0.0000' : text;
}
