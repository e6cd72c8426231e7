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
import { AccountPricing, MARGIN_RATE, money } from './account-prices.js';
import { deriveKey, hashString } from './hash.js';
import type { SimulatedMarket } from './market.js';
import { DAY_MS, WEEK_MS } from './market-hours.js';
import { currencyModel } from './symbols.js';
import { IDS_PER_WEEK, TraderWeek, weekOpenAtOrBefore, type OrderState, type TradeState, type TraderSettings, type TransactionEffects } from './trader-week.js';

/** The simulated trader's history starts here unless told otherwise (ids stay stable across restarts). */
export const DEFAULT_ACCOUNT_OPENED_AT = Date.UTC(2026, 0, 1);
const TRADED_SYMBOLS = ['EURUSD', 'GBPUSD', 'USDJPY', 'AUDUSD', 'USDCAD', 'EURJPY', 'GBPJPY', 'EURGBP', 'XAUUSD'];

export interface SimulatedAccountOptions {
  market: SimulatedMarket;
  /** Balance transferred in when the account opens, and restored at each weekly settlement (default 100000). */
  balance?: string | number;
  /** Account currency (default USD). */
  currency?: string;
  /** When the account opened and its trader started (epoch ms). Default 2026-01-01T00:00Z, or 7 days before now when that is earlier. */
  openedAt?: number;
  alias?: string;
  /** The trader never holds more open trades than this (default 5). */
  maxOpenTrades?: number;
}

/**
 * A simulated OANDA-style account over the simulated market. A simulated trader acts on it:
 * in each market hour a hash of (seed, hour) decides whether it opens a trade, on which
 * instrument, which way, how large, whether through a limit order (filled or expired), and how
 * long it holds it; it is flat one minute before each weekly close, and each week opens with a
 * settlement back to the opening balance (trader-week.ts). The history is therefore a pure
 * function of the seed, the opening instant and the clock, replayed week by week: transaction
 * ids are stable across restarts, and answering costs what the current week costs, whatever
 * the account's age. Memory holds the current week and the one before it; changes since an
 * older id are replayed again, week by week, when asked for. Open trades are marked to the
 * market's latest ticks. Limit orders fill at their price when the plan says so (a
 * simplification: the market is not checked to have crossed them); financing is not charged.
 */
export class SimulatedAccount implements AccountReader {
  readonly name = 'simulated';
  readonly id: string;
  private readonly market: SimulatedMarket;
  private readonly currency: string;
  private readonly alias: string;
  private readonly pricing: AccountPricing;
  private readonly trader: TraderSettings;
  /** The week of now, replayed up to now, and the week before it once known. */
  private current: TraderWeek | undefined;
  private previous: TraderWeek | undefined;

  constructor(options: SimulatedAccountOptions) {
    this.market = options.market;
    this.currency = options.currency ?? 'USD';
    if (!currencyModel(this.currency) || this.currency === 'XAU') throw new RangeError(`unsupported account currency ${this.currency}`);
    this.alias = options.alias ?? 'Simulated';
    const now = this.market.clock.now();
    const openedAt = options.openedAt ?? Math.min(DEFAULT_ACCOUNT_OPENED_AT, Math.floor((now - 7 * DAY_MS) / DAY_MS) * DAY_MS);
    const seedKey = hashString(this.market.seed);
    const number = 1_000_000 + (deriveKey(seedKey, 'account-id') % 9_000_000);
    this.id = `101-004-${number}-001`;
    const openingBalance = Number(options.balance ?? 100_000);
    if (!Number.isFinite(openingBalance) || openingBalance < 0) throw new RangeError('balance must be a non-negative number');
    this.pricing = new AccountPricing(this.market, this.currency);
    this.trader = {
      market: this.market,
      pricing: this.pricing,
      traderKey: deriveKey(seedKey, 'account-trader'),
      tradedSpecs: TRADED_SYMBOLS.map((s) => this.market.spec(s)!),
      maxOpenTrades: options.maxOpenTrades ?? 5,
      openingBalance,
      openedAt,
    };
  }

  async summary(): Promise<AccountSummary> {
    const { now, week } = this.catchUp();
    return this.summaryAt(week, now);
  }

  async details(): Promise<AccountDetails> {
    const { now, week } = this.catchUp();
    return {
      ...this.summaryAt(week, now),
      positions: this.positionsAt(week, now),
      trades: [...week.openTrades].map((t) => this.tradeView(t, now)),
      orders: [...week.pendingOrders].map((o) => this.orderView(o)),
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

  /**
   * What changed after `sinceTransactionId`. The current and the previous week answer from
   * memory; an id from an older week replays the weeks since then (each alone, see
   * trader-week.ts), so the answer is exact whatever the id, at a cost that grows with its age,
   * with a turn of the event loop after each week replayed.
   */
  async changesSince(sinceTransactionId: string): Promise<AccountChanges> {
    const { now, week } = this.catchUp();
    const since = /^\d{1,15}$/.test(sinceTransactionId) ? Number(sinceTransactionId) : Number.NaN;
    const last = week.lastId;
    if (!(since <= last)) {
      throw new BrokerError('not_found', `transaction ${sinceTransactionId} does not exist (last is ${last})`, { venueCode: '404' });
    }
    const transactions: AccountTransaction[] = [];
    const effects: TransactionEffects[] = [];
    for (let index = Math.floor(since / IDS_PER_WEEK); index <= week.index; index++) {
      // The week read at the start: the clock may cross into a new week while older ones replay.
      const past = index === week.index ? week : this.weekAt(index);
      past.transactions.forEach((t, i) => {
        if (Number(t.id) <= since) return;
        transactions.push(t);
        effects.push(past.effects[i]!);
      });
      // A week replayed from its start costs a few milliseconds: the event loop turns between two.
      if (index < week.index - 1) await new Promise((resolve) => setImmediate(resolve));
    }
    const collect = <T>(pick: (e: TransactionEffects) => T | undefined): T[] => effects.map(pick).filter((x): x is T => x !== undefined);
    const tradesOpened = collect((e) => e.tradeOpened);
    const tradesClosed = collect((e) => e.tradeClosed);
    const touched = new Set([...tradesOpened, ...tradesClosed].map((t) => t.spec.instrument));
    const summary = this.summaryAt(week, now);
    return {
      sinceTransactionId: String(since),
      lastTransactionId: String(last),
      ordersCreated: collect((e) => e.orderCreated).map((o) => this.orderView(o)),
      ordersCancelled: collect((e) => e.orderCancelled).map((o) => this.orderView(o)),
      ordersFilled: collect((e) => e.orderFilled).map((o) => this.orderView(o)),
      tradesOpened: tradesOpened.map((t) => this.tradeView(t, now)),
      tradesReduced: [],
      tradesClosed: tradesClosed.map((t) => this.tradeView(t, now)),
      positions: [...touched].map((instrument) => this.positionOf(week, instrument, now)),
      transactions,
      state: {
        nav: summary.nav,
        unrealizedPL: summary.unrealizedPL,
        marginUsed: summary.marginUsed,
        marginAvailable: summary.marginAvailable,
      },
    };
  }

  async close(): Promise<void> {}

  /** Transactions held in memory (the current week's and the previous week's), for monitoring and tests. */
  get retainedTransactionCount(): number {
    return (this.current?.transactions.length ?? 0) + (this.previous?.transactions.length ?? 0);
  }

  // --- the week window ----------------------------------------------------------------------

  /** Replays the current week up to now (starting a new one when the clock has moved past it). */
  private catchUp(): { now: number; week: TraderWeek } {
    const now = this.market.clock.now();
    // A clock stepping back across a week boundary keeps the week it has.
    const index = Math.max(0, this.current?.index ?? 0, Math.floor((now - weekOpenAtOrBefore(this.trader.openedAt)) / WEEK_MS));
    if (this.current?.index !== index) {
      const ended = this.current;
      ended?.advance(ended.end);
      this.previous = ended?.index === index - 1 ? ended : undefined;
      this.current = new TraderWeek(this.trader, index);
    }
    this.current.advance(now);
    return { now, week: this.current };
  }

  /** A week up to the current one: from memory, or replayed whole (and kept if it is the previous week). */
  private weekAt(index: number): TraderWeek {
    if (index === this.current?.index) return this.current;
    if (index === this.previous?.index) return this.previous;
    const week = new TraderWeek(this.trader, index);
    week.advance(week.end);
    if (index === this.current!.index - 1) this.previous = week;
    return week;
  }

  // --- views -------------------------------------------------------------------------------

  private summaryAt(week: TraderWeek, now: number): AccountSummary {
    const open = [...week.openTrades];
    const unrealized = open.reduce((sum, t) => sum + this.pricing.unrealized(t, now), 0);
    const marginUsed = open.reduce((sum, t) => sum + this.pricing.margin(t, now), 0);
    const nav = week.balance + unrealized;
    return {
      id: this.id,
      alias: this.alias,
      currency: this.currency,
      balance: money(week.balance),
      nav: money(nav),
      unrealizedPL: money(unrealized),
      realizedPL: money(week.realizedPL),
      marginUsed: money(marginUsed),
      marginAvailable: money(nav - marginUsed),
      marginRate: MARGIN_RATE.major,
      openTradeCount: open.length,
      openPositionCount: new Set(open.map((t) => t.spec.instrument)).size,
      pendingOrderCount: week.pendingOrders.size,
      lastTransactionId: String(week.lastId),
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
      unrealizedPL: money(isOpen ? this.pricing.unrealized(trade, now) : 0),
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

  private positionsAt(week: TraderWeek, now: number): Position[] {
    const instruments = new Set([...week.openTrades].map((t) => t.spec.instrument));
    return [...instruments].map((instrument) => this.positionOf(week, instrument, now));
  }

  private positionOf(week: TraderWeek, instrument: string, now: number): Position {
    const open = [...week.openTrades].filter((t) => t.spec.instrument === instrument);
    const side = (trades: TradeState[]): PositionSide => {
      const units = trades.reduce((sum, t) => sum + t.units, 0);
      const digits = trades[0]?.spec.digits ?? 5;
      const average = units === 0 ? null : trades.reduce((sum, t) => sum + t.price * t.units, 0) / units;
      return {
        units: String(units),
        averagePrice: average === null ? null : average.toFixed(digits),
        unrealizedPL: money(trades.reduce((sum, t) => sum + this.pricing.unrealized(t, now), 0)),
        tradeIds: trades.map((t) => t.id),
      };
    };
    const long = side(open.filter((t) => t.units > 0));
    const short = side(open.filter((t) => t.units < 0));
    return {
      instrument,
      long,
      short,
      unrealizedPL: money(open.reduce((sum, t) => sum + this.pricing.unrealized(t, now), 0)),
      marginUsed: money(open.reduce((sum, t) => sum + this.pricing.margin(t, now), 0)),
    };
  }
}
