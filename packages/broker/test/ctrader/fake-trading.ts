import type { FakeSymbol } from './fake-symbols.js';

/**
 * The trading account behind the fake cTrader server: one hedged account (a new position per
 * market order), money in cents (`moneyDigits` 2), volumes in cents of units, prices on the
 * wire as doubles and kept here as integers in 1/100000. It answers the Open API's trading and
 * account messages as OpenApiMessages.proto describes them:
 * - ProtoOANewOrderReq (MARKET with relativeStopLoss / relativeTakeProfit, LIMIT and STOP with
 *   absolute stopLoss / takeProfit; "Not supported for the MARKET orders": an absolute stop on a
 *   market order is INVALID_REQUEST): a request the venue refuses on its face answers
 *   ProtoOAOrderErrorEvent (TRADING_BAD_VOLUME, TRADING_BAD_STOPS, TRADING_BAD_PRICES,
 *   TRADING_BAD_EXPIRATION_DATE, MARKET_CLOSED, SYMBOL_NOT_FOUND); an accepted one answers
 *   ORDER_ACCEPTED, then for a market order ORDER_FILLED, or ORDER_PARTIAL_FILL and
 *   ORDER_CANCELLED for the rest beyond `liquidityVolume` (IOC), ORDER_CANCELLED with no deal
 *   (FOK), ORDER_REJECTED NOT_ENOUGH_MONEY when the margin exceeds the free margin. Every event
 *   of a request carries its clientMsgId;
 * - ProtoOAClosePositionReq (POSITION_NOT_FOUND, TRADING_BAD_VOLUME, MARKET_CLOSED; a closing
 *   order with the position's label and comment, its deal with closePositionDetail),
 *   ProtoOAAmendPositionSLTPReq (both legs replaced, a leg left out removed; TRADING_BAD_STOPS
 *   within `slDistance` / `tpDistance` points of the close price or on its wrong side),
 *   ProtoOACancelOrderReq (ORDER_NOT_FOUND for an order that does not rest);
 * - on every tick: resting orders fill at their price once the market crosses it, GTD ones
 *   expire (ORDER_EXPIRED), and stops hit close their position with a STOP_LOSS_TAKE_PROFIT
 *   order (its stopPrice for a stop loss, its limitPrice for a take profit), as server events
 *   without a clientMsgId;
 * - ProtoOATraderReq, ProtoOAAssetListReq, ProtoOAReconcileReq, ProtoOADealListReq (deals
 *   executed in [from, to], at most `dealChunkSize`, the newest, with hasMore),
 *   ProtoOAOrderListReq, ProtoOAExpectedMarginReq, ProtoOAGetPositionUnrealizedPnLReq.
 */

export interface FakeAccountOptions {
  balanceCents?: number;
  /** Leverage in cents, 1:100 = 10 000. */
  leverageInCents?: number;
  /** Most volume one deal fills (cents of units): 20 lots by default. */
  liquidityVolume?: number;
  dealChunkSize?: number;
  registrationTimestamp?: number;
}

export type Answer = (payloadType: number, payload: Record<string, unknown>) => void;

export interface Position {
  positionId: number;
  symbolId: number;
  side: 'BUY' | 'SELL';
  volume: number;
  price: number;
  sl: number | undefined;
  tp: number | undefined;
  openTimestamp: number;
  label: string | undefined;
  comment: string | undefined;
  isOpen: boolean;
  closeTimestamp?: number;
  updatedAt: number;
}

interface Order {
  orderId: number;
  symbolId: number;
  side: 'BUY' | 'SELL';
  volume: number;
  orderType: 'MARKET' | 'LIMIT' | 'STOP' | 'STOP_LOSS_TAKE_PROFIT';
  status: 'ORDER_STATUS_ACCEPTED' | 'ORDER_STATUS_FILLED' | 'ORDER_STATUS_REJECTED' | 'ORDER_STATUS_EXPIRED' | 'ORDER_STATUS_CANCELLED';
  limitPrice?: number;
  stopPrice?: number;
  sl?: number;
  tp?: number;
  timeInForce: string;
  expirationTimestamp?: number;
  label?: string;
  comment?: string;
  clientOrderId?: string;
  createdAt: number;
  updatedAt: number;
  executionPrice?: number;
  executedVolume: number;
  positionId?: number;
  closingOrder: boolean;
}

export interface Deal {
  dealId: number;
  orderId: number;
  positionId: number;
  volume: number;
  filledVolume: number;
  symbolId: number;
  time: number;
  price: number;
  side: 'BUY' | 'SELL';
  close?: { entryPrice: number; grossProfit: number; balance: number; closedVolume: number };
}

/** ProtoOAAsset ids of the fake broker, by name. */
export const FAKE_ASSETS: Record<string, number> = { EUR: 1, GBP: 2, JPY: 4, USD: 15, XAU: 41, TRY: 77 };

const PRICE_UNIT = 100_000;
const toDouble = (price: number) => price / PRICE_UNIT;
const fromDouble = (price: number) => Math.round(price * PRICE_UNIT);
const opposite = (side: 'BUY' | 'SELL') => (side === 'BUY' ? 'SELL' : 'BUY');

export class FakeTradingAccount {
  readonly depositAssetId = 15;
  balance: number;
  private readonly leverageInCents: number;
  private readonly liquidityVolume: number;
  private readonly dealChunkSize: number;
  private readonly registrationTimestamp: number;
  private readonly positions = new Map<number, Position>();
  private readonly orders = new Map<number, Order>();
  private readonly deals: Deal[] = [];
  private nextOrderId = 5_000_001;
  private nextPositionId = 7_000_001;
  private nextDealId = 9_000_001;
  private balanceVersion = 1;

  constructor(
    private readonly accountId: number,
    private readonly now: () => number,
    private readonly symbol: (id: number) => FakeSymbol | undefined,
    /** Bid and ask now, in 1/100000. */
    private readonly quote: (symbol: FakeSymbol) => { bid: number; ask: number },
    /** Whether the symbol trades now (its schedule, its holidays). */
    private readonly isTrading: (symbol: FakeSymbol) => boolean,
    private readonly push: (payloadType: number, payload: Record<string, unknown>) => void,
    options: FakeAccountOptions = {},
  ) {
    this.balance = options.balanceCents ?? 10_000_000;
    this.leverageInCents = options.leverageInCents ?? 10_000;
    this.liquidityVolume = options.liquidityVolume ?? 200_000_000;
    this.dealChunkSize = options.dealChunkSize ?? Number.POSITIVE_INFINITY;
    this.registrationTimestamp = options.registrationTimestamp ?? Date.UTC(2026, 0, 1);
  }

  /** Answers one trading or account message; false when it is none of them. */
  handle(payloadType: number, payload: Record<string, unknown>, answer: Answer): boolean {
    switch (payloadType) {
      case 2121:
        answer(2122, { ...this.account(), trader: this.trader() });
        return true;
      case 2112:
        answer(2113, { ...this.account(), asset: Object.entries(FAKE_ASSETS).map(([name, assetId]) => ({ assetId, name, displayName: name, digits: 2 })) });
        return true;
      case 2124:
        answer(2125, {
          ...this.account(),
          position: [...this.positions.values()].filter((p) => p.isOpen).map((p) => this.wirePosition(p)),
          order: [...this.orders.values()].filter((o) => o.status === 'ORDER_STATUS_ACCEPTED' && o.orderType !== 'MARKET').map((o) => this.wireOrder(o)),
        });
        return true;
      case 2133:
        answer(2134, this.dealList(payload));
        return true;
      case 2175: {
        const from = Number(payload.fromTimestamp ?? 0);
        const to = Number(payload.toTimestamp ?? Number.MAX_SAFE_INTEGER);
        const orders = [...this.orders.values()].filter((o) => o.createdAt >= from && o.createdAt <= to).map((o) => this.wireOrder(o));
        answer(2176, { ...this.account(), order: orders, hasMore: false });
        return true;
      }
      case 2139: {
        const symbol = this.symbol(Number(payload.symbolId));
        const volumes = Array.isArray(payload.volume) ? payload.volume.map(Number) : [];
        const margin = volumes.map((volume) => {
          const m = symbol ? this.marginOf(symbol, volume) : 0;
          return { volume, buyMargin: m, sellMargin: m };
        });
        answer(2140, { ...this.account(), margin, moneyDigits: 2 });
        return true;
      }
      case 2187:
        answer(2188, {
          ...this.account(),
          positionUnrealizedPnL: [...this.positions.values()]
            .filter((p) => p.isOpen)
            .map((p) => ({ positionId: p.positionId, grossUnrealizedPnL: this.pnlOf(p), netUnrealizedPnL: this.pnlOf(p) })),
          moneyDigits: 2,
        });
        return true;
      case 2106:
        this.newOrder(payload, answer);
        return true;
      case 2111:
        this.closePosition(payload, answer);
        return true;
      case 2110:
        this.amendPosition(payload, answer);
        return true;
      case 2108:
        this.cancelOrder(payload, answer);
        return true;
      default:
        return false;
    }
  }

  /** The positions open now, as the broker holds them (volume in cents of units, prices in 1/100000). */
  openPositions(): Readonly<Position>[] {
    return [...this.positions.values()].filter((p) => p.isOpen);
  }

  /** The deals of a position, oldest first (a closing deal carries `close`). */
  dealsOf(positionId: number): Readonly<Deal>[] {
    return this.deals.filter((d) => d.positionId === positionId);
  }

  /** One tick of the market: resting orders fill or expire, stops close their positions. */
  onTick(): void {
    const now = this.now();
    for (const order of [...this.orders.values()]) {
      if (order.status !== 'ORDER_STATUS_ACCEPTED' || order.orderType === 'MARKET') continue;
      const symbol = this.symbol(order.symbolId) as FakeSymbol;
      if (order.expirationTimestamp !== undefined && order.expirationTimestamp <= now) {
        this.setStatus(order, 'ORDER_STATUS_EXPIRED');
        this.push(2126, { ...this.account(), executionType: 'ORDER_EXPIRED', order: this.wireOrder(order), isServerEvent: true });
        continue;
      }
      if (!this.isTrading(symbol)) continue;
      const { bid, ask } = this.quote(symbol);
      const market = order.side === 'BUY' ? ask : bid;
      const price = order.orderType === 'LIMIT' ? (order.limitPrice as number) : (order.stopPrice as number);
      const isCrossed = (order.orderType === 'LIMIT') === (order.side === 'BUY') ? market <= price : market >= price;
      if (!isCrossed) continue;
      const position = this.openPosition(order, price);
      const deal = this.addDeal(order, position.positionId, order.volume, price);
      this.fill(order, price, order.volume);
      this.push(2126, {
        ...this.account(),
        executionType: 'ORDER_FILLED',
        order: this.wireOrder(order),
        position: this.wirePosition(position),
        deal: this.wireDeal(deal),
        isServerEvent: true,
      });
    }
    for (const position of [...this.positions.values()]) {
      if (!position.isOpen) continue;
      const symbol = this.symbol(position.symbolId) as FakeSymbol;
      if (!this.isTrading(symbol)) continue;
      const { bid, ask } = this.quote(symbol);
      const close = position.side === 'BUY' ? bid : ask;
      const isBuy = position.side === 'BUY';
      const slHit = position.sl !== undefined && (isBuy ? close <= position.sl : close >= position.sl);
      const tpHit = position.tp !== undefined && (isBuy ? close >= position.tp : close <= position.tp);
      if (!slHit && !tpHit) continue;
      const order = this.newOrderRecord({
        symbolId: position.symbolId,
        side: opposite(position.side),
        volume: position.volume,
        orderType: 'STOP_LOSS_TAKE_PROFIT',
        timeInForce: 'GOOD_TILL_CANCEL',
        label: position.label,
        comment: position.comment,
        positionId: position.positionId,
        closingOrder: true,
        ...(slHit ? { stopPrice: position.sl } : { limitPrice: position.tp }),
      });
      const deal = this.closeVolume(position, order, position.volume, close);
      this.push(2126, {
        ...this.account(),
        executionType: 'ORDER_FILLED',
        order: this.wireOrder(order),
        position: this.wirePosition(position),
        deal: this.wireDeal(deal),
        isServerEvent: true,
      });
    }
  }

  private newOrder(payload: Record<string, unknown>, answer: Answer): void {
    const reject = (errorCode: string, description: string) => answer(2132, { ...this.account(), errorCode, description });
    const symbol = this.symbol(Number(payload.symbolId));
    if (!symbol) return reject('SYMBOL_NOT_FOUND', 'Symbol not found');
    if (!this.isTrading(symbol)) return reject('MARKET_CLOSED', 'Market is closed');
    const volume = Number(payload.volume);
    if (!this.isValidVolume(symbol, volume)) return reject('TRADING_BAD_VOLUME', `Invalid volume ${volume}`);
    const orderType = String(payload.orderType);
    const side = String(payload.tradeSide) as 'BUY' | 'SELL';
    const { bid, ask } = this.quote(symbol);
    const now = this.now();
    const timeInForce = typeof payload.timeInForce === 'string' ? payload.timeInForce : orderType === 'MARKET' ? 'IMMEDIATE_OR_CANCEL' : 'GOOD_TILL_CANCEL';
    const expiration = payload.expirationTimestamp === undefined ? undefined : Number(payload.expirationTimestamp);
    let sl: number | undefined;
    let tp: number | undefined;
    let price: number;
    if (orderType === 'MARKET') {
      if (payload.stopLoss !== undefined || payload.takeProfit !== undefined)
        return reject('INVALID_REQUEST', 'Absolute stopLoss / takeProfit are not supported for MARKET orders');
      price = side === 'BUY' ? ask : bid;
      const direction = side === 'BUY' ? 1 : -1;
      if (payload.relativeStopLoss !== undefined) {
        if (!(Number(payload.relativeStopLoss) > 0)) return reject('TRADING_BAD_STOPS', 'Invalid relative stop loss');
        sl = price - direction * Number(payload.relativeStopLoss);
      }
      if (payload.relativeTakeProfit !== undefined) {
        if (!(Number(payload.relativeTakeProfit) > 0)) return reject('TRADING_BAD_STOPS', 'Invalid relative take profit');
        tp = price + direction * Number(payload.relativeTakeProfit);
      }
    } else if (orderType === 'LIMIT' || orderType === 'STOP') {
      const given = orderType === 'LIMIT' ? payload.limitPrice : payload.stopPrice;
      if (typeof given !== 'number' || !(given > 0)) return reject('TRADING_BAD_PRICES', 'Invalid price');
      price = fromDouble(given);
      const market = side === 'BUY' ? ask : bid;
      const isBelow = (orderType === 'LIMIT') === (side === 'BUY');
      if (isBelow ? price >= market : price <= market)
        return reject('TRADING_BAD_PRICES', `A ${side} ${orderType} must be ${isBelow ? 'below' : 'above'} the market`);
      if (timeInForce === 'GOOD_TILL_DATE' && !(expiration !== undefined && expiration > now))
        return reject('TRADING_BAD_EXPIRATION_DATE', 'Invalid expiration');
      sl = typeof payload.stopLoss === 'number' ? fromDouble(payload.stopLoss) : undefined;
      tp = typeof payload.takeProfit === 'number' ? fromDouble(payload.takeProfit) : undefined;
    } else {
      return reject('INVALID_REQUEST', `order type ${orderType} is not supported by the fake`);
    }
    const stops = this.stopsProblem(symbol, side, orderType === 'MARKET' ? (side === 'BUY' ? bid : ask) : price, sl, tp);
    if (stops) return reject('TRADING_BAD_STOPS', stops);
    const order = this.newOrderRecord({
      symbolId: symbol.symbolId,
      side,
      volume,
      orderType,
      timeInForce,
      label: optionalText(payload.label),
      comment: optionalText(payload.comment),
      clientOrderId: optionalText(payload.clientOrderId),
      sl,
      tp,
      closingOrder: false,
      ...(orderType === 'LIMIT' ? { limitPrice: price } : orderType === 'STOP' ? { stopPrice: price } : {}),
      ...(timeInForce === 'GOOD_TILL_DATE' ? { expirationTimestamp: expiration } : {}),
    });
    const event = (executionType: string, extra: Record<string, unknown> = {}) =>
      answer(2126, { ...this.account(), executionType, order: this.wireOrder(order), ...extra });
    event('ORDER_ACCEPTED');
    if (orderType !== 'MARKET') return;
    if (this.marginOf(symbol, volume) > this.freeMargin()) {
      this.setStatus(order, 'ORDER_STATUS_REJECTED');
      return event('ORDER_REJECTED', { errorCode: 'NOT_ENOUGH_MONEY' });
    }
    const filled = Math.min(volume, this.liquidityVolume);
    if (filled < volume && timeInForce === 'FILL_OR_KILL') {
      this.setStatus(order, 'ORDER_STATUS_CANCELLED');
      return event('ORDER_CANCELLED');
    }
    const position = this.openPosition(order, price, filled);
    const deal = this.addDeal(order, position.positionId, filled, price, volume);
    this.fill(order, price, filled);
    if (filled === volume) return event('ORDER_FILLED', { position: this.wirePosition(position), deal: this.wireDeal(deal) });
    order.status = 'ORDER_STATUS_ACCEPTED';
    event('ORDER_PARTIAL_FILL', { position: this.wirePosition(position), deal: this.wireDeal(deal) });
    this.setStatus(order, 'ORDER_STATUS_CANCELLED');
    event('ORDER_CANCELLED', { position: this.wirePosition(position) });
  }

  private closePosition(payload: Record<string, unknown>, answer: Answer): void {
    const reject = (errorCode: string, description: string) =>
      answer(2132, { ...this.account(), errorCode, description, positionId: Number(payload.positionId) });
    const position = this.positions.get(Number(payload.positionId));
    if (!position?.isOpen) return reject('POSITION_NOT_FOUND', 'Position not found');
    const symbol = this.symbol(position.symbolId) as FakeSymbol;
    if (!this.isTrading(symbol)) return reject('MARKET_CLOSED', 'Market is closed');
    const volume = Number(payload.volume);
    if (!this.isValidVolume(symbol, volume) || volume > position.volume) return reject('TRADING_BAD_VOLUME', `Invalid volume ${volume}`);
    const { bid, ask } = this.quote(symbol);
    const order = this.newOrderRecord({
      symbolId: position.symbolId,
      side: opposite(position.side),
      volume,
      orderType: 'MARKET',
      timeInForce: 'IMMEDIATE_OR_CANCEL',
      label: position.label,
      comment: position.comment,
      positionId: position.positionId,
      closingOrder: true,
    });
    answer(2126, { ...this.account(), executionType: 'ORDER_ACCEPTED', order: this.wireOrder(order), position: this.wirePosition(position) });
    const deal = this.closeVolume(position, order, volume, position.side === 'BUY' ? bid : ask);
    answer(2126, {
      ...this.account(),
      executionType: 'ORDER_FILLED',
      order: this.wireOrder(order),
      position: this.wirePosition(position),
      deal: this.wireDeal(deal),
    });
  }

  private amendPosition(payload: Record<string, unknown>, answer: Answer): void {
    const reject = (errorCode: string, description: string) =>
      answer(2132, { ...this.account(), errorCode, description, positionId: Number(payload.positionId) });
    const position = this.positions.get(Number(payload.positionId));
    if (!position?.isOpen) return reject('POSITION_NOT_FOUND', 'Position not found');
    const symbol = this.symbol(position.symbolId) as FakeSymbol;
    const { bid, ask } = this.quote(symbol);
    const sl = typeof payload.stopLoss === 'number' ? fromDouble(payload.stopLoss) : undefined;
    const tp = typeof payload.takeProfit === 'number' ? fromDouble(payload.takeProfit) : undefined;
    const problem = this.stopsProblem(symbol, position.side, position.side === 'BUY' ? bid : ask, sl, tp);
    if (problem) return reject('TRADING_BAD_STOPS', problem);
    position.sl = sl;
    position.tp = tp;
    position.updatedAt = this.now();
    answer(2126, { ...this.account(), executionType: 'ORDER_REPLACED', position: this.wirePosition(position) });
  }

  private cancelOrder(payload: Record<string, unknown>, answer: Answer): void {
    const order = this.orders.get(Number(payload.orderId));
    if (!order || order.status !== 'ORDER_STATUS_ACCEPTED' || order.orderType === 'MARKET') {
      return answer(2132, { ...this.account(), errorCode: 'ORDER_NOT_FOUND', description: 'Order not found', orderId: Number(payload.orderId) });
    }
    this.setStatus(order, 'ORDER_STATUS_CANCELLED');
    answer(2126, { ...this.account(), executionType: 'ORDER_CANCELLED', order: this.wireOrder(order) });
  }

  /** A stop loss and a take profit on their side of `base` (the close price, or a pending order's price), at least the symbol's distance away. */
  private stopsProblem(symbol: FakeSymbol, side: 'BUY' | 'SELL', base: number, sl: number | undefined, tp: number | undefined): string | undefined {
    const direction = side === 'BUY' ? 1 : -1;
    const point = 10 ** (5 - symbol.digits);
    if (sl !== undefined && (base - sl) * direction < (symbol.slDistance ?? 0) * point)
      return `stop loss ${toDouble(sl)} is too close to or on the wrong side of ${toDouble(base)}`;
    if (tp !== undefined && (tp - base) * direction < (symbol.tpDistance ?? 0) * point)
      return `take profit ${toDouble(tp)} is too close to or on the wrong side of ${toDouble(base)}`;
    return undefined;
  }

  private isValidVolume(symbol: FakeSymbol, volume: number): boolean {
    const terms = volumeTerms(symbol);
    return Number.isSafeInteger(volume) && volume >= terms.minVolume && volume <= terms.maxVolume && volume % terms.stepVolume === 0;
  }

  private newOrderRecord(fields: Omit<Order, 'orderId' | 'status' | 'createdAt' | 'updatedAt' | 'executedVolume'>): Order {
    const now = this.now();
    const order: Order = { ...fields, orderId: this.nextOrderId++, status: 'ORDER_STATUS_ACCEPTED', createdAt: now, updatedAt: now, executedVolume: 0 };
    this.orders.set(order.orderId, order);
    return order;
  }

  private setStatus(order: Order, status: Order['status']): void {
    order.status = status;
    order.updatedAt = this.now();
  }

  private fill(order: Order, price: number, volume: number): void {
    order.executedVolume += volume;
    order.executionPrice = price;
    this.setStatus(order, 'ORDER_STATUS_FILLED');
  }

  private openPosition(order: Order, price: number, volume = order.volume): Position {
    const now = this.now();
    const position: Position = {
      positionId: this.nextPositionId++,
      symbolId: order.symbolId,
      side: order.side,
      volume,
      price,
      sl: order.sl,
      tp: order.tp,
      openTimestamp: now,
      label: order.label,
      comment: order.comment,
      isOpen: true,
      updatedAt: now,
    };
    this.positions.set(position.positionId, position);
    order.positionId = position.positionId;
    return position;
  }

  private addDeal(order: Order, positionId: number, filledVolume: number, price: number, volume = filledVolume): Deal {
    const deal: Deal = {
      dealId: this.nextDealId++,
      orderId: order.orderId,
      positionId,
      volume,
      filledVolume,
      symbolId: order.symbolId,
      time: this.now(),
      price,
      side: order.side,
    };
    this.deals.push(deal);
    return deal;
  }

  private closeVolume(position: Position, order: Order, volume: number, price: number): Deal {
    const symbol = this.symbol(position.symbolId) as FakeSymbol;
    const grossProfit = this.profitOf(symbol, position.side, position.price, price, volume);
    this.balance += grossProfit;
    this.balanceVersion++;
    position.volume -= volume;
    position.updatedAt = this.now();
    if (position.volume === 0) {
      position.isOpen = false;
      position.closeTimestamp = this.now();
    }
    const deal = this.addDeal(order, position.positionId, volume, price);
    deal.close = { entryPrice: position.price, grossProfit, balance: this.balance, closedVolume: volume };
    this.fill(order, price, volume);
    return deal;
  }

  /** Profit in cents of moving `volume` from `open` to `close`, converted to USD at the close for a USD-based symbol. */
  private profitOf(symbol: FakeSymbol, side: 'BUY' | 'SELL', open: number, close: number, volume: number): number {
    const units = volume / 100;
    const quoteProfit = ((close - open) / PRICE_UNIT) * units * (side === 'BUY' ? 1 : -1);
    const usd = symbol.symbolName.endsWith('USD') ? quoteProfit : quoteProfit / (close / PRICE_UNIT);
    return Math.round(usd * 100);
  }

  private pnlOf(position: Position): number {
    const symbol = this.symbol(position.symbolId) as FakeSymbol;
    const { bid, ask } = this.quote(symbol);
    return this.profitOf(symbol, position.side, position.price, position.side === 'BUY' ? bid : ask, position.volume);
  }

  /** Margin in cents: the units' value in USD over the leverage. */
  private marginOf(symbol: FakeSymbol, volume: number): number {
    const units = volume / 100;
    const { bid, ask } = this.quote(symbol);
    const usdValue = symbol.symbolName.startsWith('USD') ? units : (units * (bid + ask)) / 2 / PRICE_UNIT;
    return Math.round((usdValue / (this.leverageInCents / 100)) * 100);
  }

  private usedMargin(): number {
    let sum = 0;
    for (const p of this.positions.values()) if (p.isOpen) sum += this.marginOf(this.symbol(p.symbolId) as FakeSymbol, p.volume);
    return sum;
  }

  private freeMargin(): number {
    let pnl = 0;
    for (const p of this.positions.values()) if (p.isOpen) pnl += this.pnlOf(p);
    return this.balance + pnl - this.usedMargin();
  }

  private dealList(payload: Record<string, unknown>): Record<string, unknown> {
    const from = Number(payload.fromTimestamp ?? 0);
    const to = Number(payload.toTimestamp ?? Number.MAX_SAFE_INTEGER);
    const maxRows = payload.maxRows === undefined ? Number.POSITIVE_INFINITY : Number(payload.maxRows);
    const matching = this.deals.filter((d) => d.time >= from && d.time <= to);
    const size = Math.min(maxRows, this.dealChunkSize);
    const kept = matching.slice(Math.max(0, matching.length - size));
    return { ...this.account(), deal: kept.map((d) => this.wireDeal(d)), hasMore: kept.length < matching.length };
  }

  private account(): { ctidTraderAccountId: number } {
    return { ctidTraderAccountId: this.accountId };
  }

  private trader(): Record<string, unknown> {
    return {
      ctidTraderAccountId: this.accountId,
      balance: this.balance,
      balanceVersion: this.balanceVersion,
      depositAssetId: this.depositAssetId,
      leverageInCents: this.leverageInCents,
      traderLogin: 3_101_202,
      brokerName: 'FakeBroker',
      registrationTimestamp: this.registrationTimestamp,
      accountType: 'HEDGED',
      moneyDigits: 2,
    };
  }

  private wireOrder(o: Order): Record<string, unknown> {
    return {
      orderId: o.orderId,
      tradeData: {
        symbolId: o.symbolId,
        volume: o.volume,
        tradeSide: o.side,
        openTimestamp: o.createdAt,
        ...(o.label === undefined ? {} : { label: o.label }),
        ...(o.comment === undefined ? {} : { comment: o.comment }),
      },
      orderType: o.orderType,
      orderStatus: o.status,
      utcLastUpdateTimestamp: o.updatedAt,
      executedVolume: o.executedVolume,
      timeInForce: o.timeInForce,
      closingOrder: o.closingOrder,
      ...(o.expirationTimestamp === undefined ? {} : { expirationTimestamp: o.expirationTimestamp }),
      ...(o.executionPrice === undefined ? {} : { executionPrice: toDouble(o.executionPrice) }),
      ...(o.limitPrice === undefined ? {} : { limitPrice: toDouble(o.limitPrice) }),
      ...(o.stopPrice === undefined ? {} : { stopPrice: toDouble(o.stopPrice) }),
      ...(o.sl === undefined || o.orderType === 'MARKET' ? {} : { stopLoss: toDouble(o.sl) }),
      ...(o.tp === undefined || o.orderType === 'MARKET' ? {} : { takeProfit: toDouble(o.tp) }),
      ...(o.clientOrderId === undefined ? {} : { clientOrderId: o.clientOrderId }),
      ...(o.positionId === undefined ? {} : { positionId: o.positionId }),
    };
  }

  private wirePosition(p: Position): Record<string, unknown> {
    return {
      positionId: p.positionId,
      tradeData: {
        symbolId: p.symbolId,
        volume: p.volume,
        tradeSide: p.side,
        openTimestamp: p.openTimestamp,
        ...(p.label === undefined ? {} : { label: p.label }),
        ...(p.comment === undefined ? {} : { comment: p.comment }),
        ...(p.closeTimestamp === undefined ? {} : { closeTimestamp: p.closeTimestamp }),
      },
      positionStatus: p.isOpen ? 'POSITION_STATUS_OPEN' : 'POSITION_STATUS_CLOSED',
      swap: 0,
      price: toDouble(p.price),
      ...(p.sl === undefined ? {} : { stopLoss: toDouble(p.sl) }),
      ...(p.tp === undefined ? {} : { takeProfit: toDouble(p.tp) }),
      utcLastUpdateTimestamp: p.updatedAt,
      commission: 0,
      usedMargin: p.isOpen ? this.marginOf(this.symbol(p.symbolId) as FakeSymbol, p.volume) : 0,
      moneyDigits: 2,
    };
  }

  private wireDeal(d: Deal): Record<string, unknown> {
    return {
      dealId: d.dealId,
      orderId: d.orderId,
      positionId: d.positionId,
      volume: d.volume,
      filledVolume: d.filledVolume,
      symbolId: d.symbolId,
      createTimestamp: d.time,
      executionTimestamp: d.time,
      utcLastUpdateTimestamp: d.time,
      executionPrice: toDouble(d.price),
      tradeSide: d.side,
      dealStatus: d.filledVolume < d.volume ? 'PARTIALLY_FILLED' : 'FILLED',
      commission: 0,
      moneyDigits: 2,
      ...(d.close
        ? {
            closePositionDetail: {
              entryPrice: toDouble(d.close.entryPrice),
              grossProfit: d.close.grossProfit,
              swap: 0,
              commission: 0,
              balance: d.close.balance,
              closedVolume: d.close.closedVolume,
              moneyDigits: 2,
            },
          }
        : {}),
    };
  }
}

/** The volume terms of a symbol (cents of units): an FX lot is 100 000 units; 0.01 lot to 100 lots in steps of 0.01. */
export function volumeTerms(symbol: FakeSymbol): { lotSize: number; minVolume: number; maxVolume: number; stepVolume: number } {
  const lotSize = symbol.lotSize ?? 10_000_000;
  return { lotSize, minVolume: lotSize / 100, maxVolume: lotSize * 100, stepVolume: lotSize / 100 };
}

function optionalText(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
