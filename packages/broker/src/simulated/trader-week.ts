/**
 * One trading week of the simulated account's trader, replayed from the week's own start.
 *
 * Weeks are independent of each other, so any week can be replayed alone, in time proportional
 * to the week and not to the account's age: the trader is flat at every week's start (it closes
 * its trades and cancels its orders one minute before the weekly close) and the balance is
 * settled back to the opening balance when the next week opens; each week has its own block of
 * transaction ids (week n: n × IDS_PER_WEEK + 1, …). Ids are therefore a pure function of the
 * seed, the opening instant and the week, the same in every process and after every restart.
 */
import type { AccountTransaction } from '../account.js';
import { hashIndex, rehash, unit } from './hash.js';
import type { SimulatedMarket } from './market.js';
import { DAY_MS, HOUR_MS, MINUTE_MS, WEEK_MS, nextWeeklyOpen } from './market-hours.js';
import { money, round, type AccountPricing } from './account-prices.js';
import type { SymbolSpec } from './symbols.js';

/**
 * Transaction ids a week may use. A week has at most 168 hours, the trader acts at most once
 * an hour, and one decision makes at most four transactions (order, fill, closing order, fill),
 * plus the week's opening transfer: 673 < 1 000.
 */
export const IDS_PER_WEEK = 1_000;
/** Chance that the trader acts in a given market hour. */
const TRADE_CHANCE_PER_HOUR = 0.3;
const MIN_HOLD_MS = 5 * MINUTE_MS;
const MAX_HOLD_MS = 36 * HOUR_MS;
/** The trader flattens this long before the weekly close (or the week's end when the market never closes). */
const FLATTEN_BEFORE_CLOSE_MS = MINUTE_MS;
/** The weekly close (Friday 22:00 UTC) comes this long after the weekly open (Sunday 22:00 UTC). */
const OPEN_TO_CLOSE_MS = 5 * DAY_MS;

export interface TradeState {
  id: string;
  spec: SymbolSpec;
  units: number;
  price: number;
  openTime: number;
  closedAt: number | null;
  realizedPL: number;
}

export interface OrderState {
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
export interface TransactionEffects {
  orderCreated?: OrderState;
  orderFilled?: OrderState;
  orderCancelled?: OrderState;
  tradeOpened?: TradeState;
  tradeClosed?: TradeState;
}

/** What a week's replay needs from its account. */
export interface TraderSettings {
  market: SimulatedMarket;
  pricing: AccountPricing;
  traderKey: number;
  tradedSpecs: SymbolSpec[];
  maxOpenTrades: number;
  openingBalance: number;
  /** When the account opened: week 0 starts here. */
  openedAt: number;
}

/** One trade the trader decides on in a given hour (all from the hash of that hour). */
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

/** The weekly open (Sunday 22:00 UTC) at or before `epochMs`. */
export function weekOpenAtOrBefore(epochMs: number): number {
  return nextWeeklyOpen(epochMs + 1) - WEEK_MS;
}

export class TraderWeek {
  /** First instant of the week (the account's opening for week 0). */
  readonly start: number;
  /** First instant of the next week. */
  readonly end: number;
  /** The trader opens nothing from here on, and closes and cancels what is left at this instant. */
  readonly flattenAt: number;
  readonly transactions: AccountTransaction[] = [];
  readonly effects: TransactionEffects[] = [];
  /** Open trades and pending orders, in the order they opened. */
  readonly openTrades = new Set<TradeState>();
  readonly pendingOrders = new Set<OrderState>();
  balance = 0;
  /** Realized this week (the settlement at the next week's open takes it away again). */
  realizedPL = 0;
  private nextId: number;
  private nextHour: number;
  private queue: TraderEvent[] = [];

  constructor(
    private readonly settings: TraderSettings,
    readonly index: number,
  ) {
    const weekOpen = weekOpenAtOrBefore(settings.openedAt) + index * WEEK_MS;
    this.start = index === 0 ? settings.openedAt : weekOpen;
    this.end = weekOpen + WEEK_MS;
    this.flattenAt = (settings.market.marketHours ? weekOpen + OPEN_TO_CLOSE_MS : this.end) - FLATTEN_BEFORE_CLOSE_MS;
    this.nextId = index * IDS_PER_WEEK + 1;
    this.nextHour = Math.ceil(this.start / HOUR_MS);
    if (index === 0) {
      this.record({ time: this.start, type: 'CREATE', reason: 'CLIENT_REQUEST' }, {});
      this.balance = settings.openingBalance;
      this.record({ time: this.start, type: 'TRANSFER_FUNDS', reason: 'ACCOUNT_TRANSFER' }, {});
    } else {
      // The weekly settlement: last week's P/L leaves (or its loss is topped up), the week starts at the opening balance.
      this.balance = settings.openingBalance;
      this.record({ time: this.start, type: 'TRANSFER_FUNDS', reason: 'ADJUSTMENT' }, {});
    }
  }

  /** The id of the week's last transaction. */
  get lastId(): number {
    return this.nextId - 1;
  }

  /** Replays the trader's decisions up to `now` (at most to the week's end). */
  advance(now: number): void {
    const upTo = Math.min(now, this.end - 1);
    while (this.nextHour * HOUR_MS <= upTo && this.nextHour * HOUR_MS < this.flattenAt) {
      const plan = this.planFor(this.nextHour);
      if (plan) this.schedule({ time: plan.openAt, kind: 'open', plan });
      this.nextHour++;
    }
    while (this.queue.length > 0 && this.queue[0]!.time <= upTo) this.handle(this.queue.shift()!);
  }

  private planFor(hour: number): TradePlan | undefined {
    const { traderKey, tradedSpecs, market } = this.settings;
    const h1 = hashIndex(traderKey, hour);
    if (unit(h1) >= TRADE_CHANCE_PER_HOUR) return undefined;
    const h2 = rehash(h1);
    const h3 = rehash(h2);
    const h4 = rehash(h3);
    const h5 = rehash(h4);
    const openAt = hour * HOUR_MS + Math.floor(unit(h2) * 3600) * 1000;
    if (openAt >= this.flattenAt || !market.isOpen(openAt)) return undefined;
    const spec = tradedSpecs[h3 % tradedSpecs.length]!;
    const size = 1 + (h4 % 50);
    const units = (spec.type === 'METAL' ? size : size * 1000) * (h4 & 0x80 ? -1 : 1);
    const holdMs = Math.round((MIN_HOLD_MS * (MAX_HOLD_MS / MIN_HOLD_MS) ** unit(h5)) / 1000) * 1000;
    const h6 = rehash(h5);
    const limit = unit(h6) < 0.25 ? { offsetPips: 5 + (rehash(h6) % 26), waitMs: (10 + (h6 % 110)) * MINUTE_MS, fills: unit(rehash(rehash(h6))) < 0.6 } : null;
    return { spec, units, openAt, holdMs, limit };
  }

  /** Queues an event in time order (after those of the same instant); nothing outlives the week's flattening. */
  private schedule(event: TraderEvent): void {
    event.time = Math.min(event.time, this.flattenAt);
    let i = this.queue.length;
    while (i > 0 && this.queue[i - 1]!.time > event.time) i--;
    this.queue.splice(i, 0, event);
  }

  private handle(event: TraderEvent): void {
    switch (event.kind) {
      case 'open': {
        if (this.openTrades.size + this.pendingOrders.size >= this.settings.maxOpenTrades) return;
        const { plan } = event;
        if (!plan.limit) {
          this.marketOrder(plan.spec, plan.units, event.time, plan.holdMs);
          return;
        }
        const mid = this.settings.pricing.mid(plan.spec, event.time);
        const pip = 10 ** plan.spec.pipLocation;
        const price = round(mid - Math.sign(plan.units) * plan.limit.offsetPips * pip, plan.spec.digits);
        const order = this.newOrder('LIMIT', plan.spec, plan.units, price, 'GTD', event.time, 'PENDING');
        this.pendingOrders.add(order);
        this.record({ time: event.time, type: 'LIMIT_ORDER', spec: plan.spec, units: plan.units, price, reason: 'CLIENT_ORDER' }, { orderCreated: order });
        this.schedule({ time: event.time + plan.limit.waitMs, kind: 'limit-end', plan, order });
        return;
      }
      case 'limit-end': {
        const { plan, order } = event;
        this.pendingOrders.delete(order);
        const isFlattening = event.time >= this.flattenAt;
        if (isFlattening || !plan.limit!.fills || this.openTrades.size >= this.settings.maxOpenTrades) {
          order.state = 'CANCELLED';
          const reason = isFlattening ? 'CLIENT_REQUEST' : 'TIME_IN_FORCE_EXPIRED';
          this.record({ time: event.time, type: 'ORDER_CANCEL', spec: plan.spec, reason }, { orderCancelled: order });
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

  private marketOrder(spec: SymbolSpec, units: number, time: number, holdMs: number): void {
    const order = this.newOrder('MARKET', spec, units, null, 'FOK', time, 'FILLED');
    this.record({ time, type: 'MARKET_ORDER', spec, units, reason: 'CLIENT_ORDER' }, {});
    this.openTrade(order, time, this.settings.pricing.fillPrice(spec, units, time), holdMs, 'MARKET_ORDER');
  }

  private openTrade(order: OrderState, time: number, price: number, holdMs: number, reason: string): void {
    const trade: TradeState = { id: String(this.nextId), spec: order.spec, units: order.units, price, openTime: time, closedAt: null, realizedPL: 0 };
    this.openTrades.add(trade);
    this.record({ time, type: 'ORDER_FILL', spec: order.spec, units: order.units, price, pl: 0, reason }, { orderFilled: order, tradeOpened: trade });
    this.schedule({ time: time + holdMs, kind: 'close', trade });
  }

  private closeTrade(trade: TradeState, time: number): void {
    const closeUnits = -trade.units;
    const order = this.newOrder('MARKET', trade.spec, closeUnits, null, 'FOK', time, 'FILLED');
    this.record({ time, type: 'MARKET_ORDER', spec: trade.spec, units: closeUnits, reason: 'TRADE_CLOSE' }, {});
    const { pricing } = this.settings;
    const price = pricing.fillPrice(trade.spec, closeUnits, time);
    const pl = pricing.profit(trade, price, time);
    trade.closedAt = time;
    trade.realizedPL = pl;
    this.openTrades.delete(trade);
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
    return { id: String(this.nextId), type, spec, units, price, timeInForce, createTime: time, state };
  }

  private record(
    t: { time: number; type: string; reason: string; spec?: SymbolSpec; units?: number; price?: number; pl?: number },
    effects: TransactionEffects,
  ): void {
    const digits = t.spec?.digits ?? 5;
    this.transactions.push({
      id: String(this.nextId++),
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
}
