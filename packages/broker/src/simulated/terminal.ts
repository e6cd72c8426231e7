import { compareDecimal, isDecimalString, isMultipleOf, RingBuffer, subtractDecimal, type Clock, type TimerHandle } from '@fxdesk/primitives';
import { BrokerError } from '../errors.js';
import { Listeners } from '../listeners.js';
import { RETCODE, retcodeDescription } from '../mt5-retcodes.js';
import {
  endOfUtcDayMs,
  frozenOrderProblem,
  frozenStopProblem,
  pendingPriceProblem,
  pointsToPrice,
  priceToPoints,
  quoteToPoints,
  specifiedExpiryMs,
  stopDistanceProblem,
} from '../mt5-rules.js';
import {
  compareDeals,
  isDealInFilter,
  isInFilter,
  newTerminalCallStats,
  type CancelOrderRequest,
  type ClosePositionRequest,
  type DealFilter,
  type ModifyPositionRequest,
  type OrderType,
  type PendingOrderType,
  type SymbolInfo,
  type SymbolTradeMode,
  type TerminalCallStats,
  type TerminalAccount,
  type TerminalDeal,
  type TerminalFilter,
  type TerminalOrder,
  type TerminalPosition,
  type TerminalRecord,
  type TradeCheckResult,
  type TradeRequest,
  type TradeResult,
  type TradingTerminal,
} from '../terminal.js';
import type { Bar, Quote, Timeframe, Unsubscribe } from '../types.js';
import { Exposure } from './exposure.js';
import { FaultPlan, type FaultMethod, type FaultSpec } from './faults.js';
import { IndexedHeap } from './indexed-heap.js';
import {
  ownedText,
  positionOf,
  recordOf,
  restingOrderOf,
  terminalDealOf,
  terminalRecordOf,
  type HistoryRecord,
  type Position,
  type RestingOrder,
} from './kept-objects.js';
import { MAX_BAR_COUNT, type SimulatedMarket } from './market.js';
import { HOUR_MS } from './market-hours.js';
import { currencyModel, type SymbolSpec } from './symbols.js';
import { TerminalChanges } from './terminal-changes.js';
import { LIQUIDITY_LOTS, simulatedSymbolInfo } from './terminal-rules.js';
import type { SavedPosition, SavedRestingOrder, SavedTerminalState, SimulatedTerminalStore } from './terminal-store.js';
import { TriggerBook, type StopKind } from './trigger-book.js';

const COMMENT_MAX_LENGTH = 31;
/** Ticks applied to resting orders and stops in one go, at most (see processUpTo). */
const PROCESS_CHUNK_MS = HOUR_MS;

export interface SimulatedTerminalOptions {
  market: SimulatedMarket;
  /** Starting balance in `currency` (default 100000). */
  balance?: string | number;
  /** Account currency (default USD). */
  currency?: string;
  /** Account leverage: margin = notional / leverage (default 100). */
  leverage?: number;
  /** Faults armed from the start, e.g. `parseFaultSpec(process.env.SIM_TERMINAL_FAULTS)`. */
  faults?: FaultSpec[];
  /** After an injected disconnect, reconnect this long later on the market's clock; 0 stays down (default 5000). */
  reconnectAfterMs?: number;
  /**
   * Orders and deals kept for `findByComment`, the latest first; orders still resting are always
   * kept (default 50 000). In memory without a store; on a store, in the store only.
   */
  historyLimit?: number;
  /**
   * Where the account survives restarts: a terminal built on it starts from what was saved
   * (`balance` then only opens a new account). Without one, the account lives in memory.
   */
  store?: SimulatedTerminalStore;
}

/** Call counters tests can read. */
export interface SimulatedTerminalStats extends TerminalCallStats {
  /** Calls that suffered an injected fault. */
  faultsTriggered: number;
  /** order_send requests that reached the "server" and were processed (ambiguous ones included). */
  ordersProcessed: number;
}

export interface SimulatedAccountState {
  currency: string;
  balance: number;
  equity: number;
  margin: number;
  marginFree: number;
  /** Equity / margin × 100, 0 without positions. */
  marginLevel: number;
}

/** A symbol's share of the account: its trigger book and the running totals of its open positions. */
interface SymbolBook {
  spec: SymbolSpec;
  triggers: TriggerBook<RestingOrder, Position>;
  exposure: Exposure;
  /** Open positions of the symbol (the exposure is empty at 0). */
  positionCount: number;
}

/** What a request that passed every check will do. */
interface TradePlan {
  spec: SymbolSpec;
  quote: Quote;
  side: 'buy' | 'sell';
  /** Fill price (deal) or order price (pending), in points. */
  pricePoints: number;
  slPoints: number | null;
  tpPoints: number | null;
  expiresAt: number | null;
  /** Margin the trade takes, account currency (0 for pending orders). */
  margin: number;
}

type Checked = { retcode: 0; plan: TradePlan; comment: string } | { retcode: number; comment: string; quote: Quote | undefined };

function rejection(retcode: number, comment: string, quote?: Quote): Checked {
  return { retcode, comment, quote };
}

function isMarketType(type: OrderType): type is 'buy' | 'sell' {
  return type === 'buy' || type === 'sell';
}

function sideOf(type: OrderType): 'buy' | 'sell' {
  return type.startsWith('buy') ? 'buy' : 'sell';
}

/** Whether a decimal string is zero ("0", "0.0"): MT5's way of saying "no stop". */
function isZeroPrice(value: string): boolean {
  return isDecimalString(value) && compareDecimal(value, '0') === 0;
}

function priceOrNull(points: number | null, digits: number): string | null {
  return points === null ? null : pointsToPrice(points, digits);
}

/**
 * A simulated MetaTrader 5 terminal over the simulated market, following MT5's trade rules:
 * volume min/step/max, stops and freeze levels, filling and expiration modes, trade modes,
 * margin, market hours. Market deals fill at the ask (buy) or bid (sell) of the latest tick,
 * up to the symbol's liquidity (LIQUIDITY_LOTS): an IOC/RETURN order above it fills that much
 * (10010), a FOK order is rejected whole (10006). Pending orders rest (10008), trigger on the
 * first tick that crosses them and expire at their expiration. Positions (hedging: one per deal)
 * close when a tick reaches their SL or TP, or on request, in whole or in part, at the current
 * bid (a buy) or ask (a sell); their stops move under the same rules as an open's, and resting
 * orders can be cancelled, neither inside the freeze level. Resting orders and stops are evaluated against the
 * market's ticks, in time order, whenever the terminal is called: the outcome only depends on
 * the ticks, so it is the same whether or not the market is ticking live.
 *
 * A call costs O(1) in the number of open positions and resting orders (amortized, per symbol
 * traded): floating P/L and margin come from per-symbol running totals (exposure.ts), resting
 * orders and SL/TP levels sit in per-symbol heaps so a tick touches only the levels it reaches
 * (trigger-book.ts), and expiries in a heap by time, so nothing is walked when nothing expires.
 *
 * On a store (terminal-store.ts) the account survives restarts: a trade call (order_send, a
 * close, a modification, a cancel) answers only once what it changed is saved, with what ticks
 * changed before it; ticks after the last save are applied again after a restart, with the same
 * outcome.
 */
export class SimulatedTerminal implements TradingTerminal {
  readonly name = 'simulated';
  readonly stats: SimulatedTerminalStats = { ...newTerminalCallStats(), faultsTriggered: 0, ordersProcessed: 0 };

  private readonly market: SimulatedMarket;
  private readonly clock: Clock;
  private readonly currency: string;
  private readonly leverage: number;
  private readonly reconnectAfterMs: number;
  private balance: number;
  private connected = false;
  private readonly connectionListeners = new Listeners<boolean>();
  private readonly faults = new FaultPlan();
  /** Calls held by a `hang` or `stall` fault. */
  private hung: { release: () => void; fail: (err: Error) => void }[] = [];
  private reconnectTimer: TimerHandle | undefined;
  private readonly tradeModes = new Map<string, SymbolTradeMode>();
  private readonly historyLimit: number;
  /** Every order and deal, the latest `historyLimit` of them, when there is no store (which holds them otherwise). */
  private readonly history: RingBuffer<HistoryRecord> | undefined;
  private readonly store: SimulatedTerminalStore | undefined;
  /** Resting orders by ticket. */
  private readonly resting = new Map<string, RestingOrder>();
  /** Open positions by ticket, in opening order. */
  private readonly openPositions = new Map<string, Position>();
  /** One per symbol, in the market's table order (ticks of one instant are applied in that order). */
  private readonly books: SymbolBook[];
  private readonly bookBySymbol = new Map<string, SymbolBook>();
  /** Resting orders with an expiry, the earliest on top. */
  private readonly expiries = new IndexedHeap<RestingOrder>();
  /** Ticks up to this instant have been applied to resting orders and stops. */
  private processedUpTo: number;
  private nextTicket: number;
  private nextSeq = 1;
  private nextRequestId = 1;
  /** What changed since the last save, when there is a store. */
  private readonly changes: TerminalChanges | undefined;

  constructor(options: SimulatedTerminalOptions) {
    this.market = options.market;
    this.clock = options.market.clock;
    this.currency = options.currency ?? 'USD';
    if (!currencyModel(this.currency) || this.currency === 'XAU') throw new RangeError(`unsupported account currency ${this.currency}`);
    this.leverage = options.leverage ?? 100;
    if (!(this.leverage >= 1)) throw new RangeError('leverage must be at least 1');
    this.balance = Number(options.balance ?? 100_000);
    if (!Number.isFinite(this.balance) || this.balance < 0) throw new RangeError('balance must be a non-negative number');
    this.reconnectAfterMs = options.reconnectAfterMs ?? 5_000;
    for (const fault of options.faults ?? []) this.faults.inject(fault);
    this.historyLimit = options.historyLimit ?? 50_000;
    if (!Number.isInteger(this.historyLimit) || this.historyLimit < 1) throw new RangeError('historyLimit must be a positive integer');
    this.store = options.store;
    this.history = this.store ? undefined : new RingBuffer(this.historyLimit);
    this.books = this.market.symbols().map((spec) => ({ spec, triggers: new TriggerBook(), exposure: new Exposure(), positionCount: 0 }));
    for (const book of this.books) this.bookBySymbol.set(book.spec.symbol, book);
    this.processedUpTo = this.clock.now();
    // Tickets start at the creation instant (epoch ms): a restarted terminal starts past its predecessor's tickets.
    this.nextTicket = this.clock.now();
    const saved = options.store?.load();
    if (saved) this.restore(saved);
    // Tracked from here on: what was loaded is saved already.
    this.changes = options.store && new TerminalChanges(options.store);
  }

  // --- connection -------------------------------------------------------------------------

  async connect(): Promise<void> {
    this.cancelReconnect();
    this.setConnected(true);
  }

  /** Disconnects; calls held by a `hang` or `stall` fault fail with `disconnected`. */
  async close(): Promise<void> {
    this.cancelReconnect();
    this.setConnected(false);
    const hung = this.hung;
    this.hung = [];
    for (const call of hung) call.fail(new BrokerError('disconnected', 'the simulated terminal was closed'));
  }

  isConnected(): boolean {
    return this.connected;
  }

  onConnectionChange(listener: (connected: boolean) => void): Unsubscribe {
    return this.connectionListeners.add(listener);
  }

  /** Forces the connection state (listeners hear about a change). */
  setConnected(connected: boolean): void {
    if (connected === this.connected) return;
    this.connected = connected;
    this.connectionListeners.emit(connected);
  }

  // --- fault injection ----------------------------------------------------------------------

  injectFault(fault: FaultSpec): void {
    this.faults.inject(fault);
  }

  clearFaults(): void {
    this.faults.clear();
  }

  /** Lets every call held by a `hang` or `stall` fault answer (a hung one runs first); returns how many there were. */
  releaseHung(): number {
    const hung = this.hung;
    this.hung = [];
    for (const call of hung) call.release();
    return hung.length;
  }

  /** Changes a symbol's trade mode (e.g. `disabled` to see 10017). */
  setTradeMode(symbol: string, mode: SymbolTradeMode): void {
    this.tradeModes.set(symbol, mode);
  }

  // --- TradingTerminal ----------------------------------------------------------------------

  symbolInfo(symbol: string): Promise<SymbolInfo | null> {
    this.stats.symbolInfoCalls++;
    return this.call('symbolInfo', () => {
      const spec = this.market.spec(symbol);
      return spec ? this.infoOf(spec) : null;
    });
  }

  tick(symbol: string): Promise<Quote | null> {
    this.stats.tickCalls++;
    return this.call('tick', () => (this.market.spec(symbol) ? this.market.lastTick(symbol, this.clock.now()) : null));
  }

  orderCheck(request: TradeRequest): Promise<TradeCheckResult> {
    this.stats.orderCheckCalls++;
    return this.call('orderCheck', () => {
      const checked = this.check(request, this.clock.now());
      const state = this.accountState();
      const margin = state.margin + ('plan' in checked ? checked.plan.margin : 0);
      return {
        retcode: checked.retcode,
        comment: checked.comment,
        balance: state.balance,
        equity: state.equity,
        margin,
        marginFree: state.equity - margin,
        marginLevel: margin > 0 ? (state.equity / margin) * 100 : 0,
      };
    });
  }

  orderSend(request: TradeRequest): Promise<TradeResult> {
    this.stats.orderSendCalls++;
    return this.trade('orderSend', (now) => {
      this.stats.ordersProcessed++;
      return this.execute(request, now);
    });
  }

  async rates(symbol: string, timeframe: Timeframe, count: number): Promise<Bar[]> {
    this.stats.ratesCalls++;
    this.ensureConnected();
    if (!this.market.spec(symbol)) throw new BrokerError('not_found', `the simulated terminal does not list ${symbol}`);
    if (!Number.isInteger(count) || count < 0) throw new BrokerError('rejected', `count must be a non-negative integer, got ${count}`);
    return this.market.barsSliced(symbol, timeframe, Math.min(count, MAX_BAR_COUNT), this.clock.now());
  }

  async findByComment(commentPrefix: string, magic: number): Promise<TerminalRecord[]> {
    this.stats.findByCommentCalls++;
    this.ensureConnected();
    this.processUpTo(this.clock.now());
    const found = new Map<string, TerminalRecord>();
    const matches = (r: TerminalRecord) => r.magic === magic && r.comment.startsWith(commentPrefix);
    if (this.history) {
      for (const record of this.history) if (matches(record)) found.set(record.ticket, record);
    } else {
      // Saved rows first; what changed since the last save, as it is now, over them.
      for (const record of this.store!.findRecords(commentPrefix, magic, this.historyLimit)) found.set(record.ticket, record);
      for (const record of this.changes!.pendingRecords()) if (matches(record)) found.set(record.ticket, record);
    }
    // A resting order is found even when the history has moved past its placement.
    for (const { record } of this.resting.values()) if (matches(record)) found.set(record.ticket, record);
    return [...found.values()].sort((a, b) => b.time - a.time || Number(b.ticket) - Number(a.ticket)).map(terminalRecordOf);
  }

  /** Deals of the history (the latest `historyLimit` orders and deals), SL and TP exits the ticks made included. */
  deals(filter: DealFilter): Promise<TerminalDeal[]> {
    this.stats.dealsCalls++;
    return this.call('deals', () => {
      const found = new Map<string, TerminalDeal>();
      const take = (record: HistoryRecord) => {
        if (record.kind === 'deal' && isDealInFilter(filter, record)) found.set(record.ticket, terminalDealOf(record));
      };
      if (this.history) for (const record of this.history) take(record);
      else {
        for (const deal of this.store!.findDeals(filter, this.historyLimit)) found.set(deal.ticket, deal);
        for (const record of this.changes!.pendingRecords()) take(record);
      }
      return [...found.values()].sort(compareDeals);
    });
  }

  /** Open positions, marked to the latest ticks; the simulated account charges no swap. */
  positions(filter: TerminalFilter = {}): Promise<TerminalPosition[]> {
    this.stats.positionsCalls++;
    return this.call('positions', () => {
      const now = this.clock.now();
      const open: TerminalPosition[] = [];
      for (const position of this.openPositions.values()) if (isInFilter(filter, position.symbol)) open.push(this.terminalPositionOf(position, now));
      return open;
    });
  }

  orders(filter: TerminalFilter = {}): Promise<TerminalOrder[]> {
    this.stats.ordersCalls++;
    return this.call('orders', () => {
      const pending: TerminalOrder[] = [];
      for (const order of this.resting.values()) if (isInFilter(filter, order.record.symbol)) pending.push(this.terminalOrderOf(order));
      return pending;
    });
  }

  /** A deal of the opposite side at the current bid (closing a buy) or ask, booking its profit to the balance. */
  closePosition(request: ClosePositionRequest): Promise<TradeResult> {
    this.stats.closePositionCalls++;
    return this.trade('closePosition', (now) => this.closeByRequest(request, now));
  }

  modifyPosition(request: ModifyPositionRequest): Promise<TradeResult> {
    this.stats.modifyPositionCalls++;
    return this.trade('modifyPosition', (now) => this.modifyByRequest(request, now));
  }

  cancelOrder(request: CancelOrderRequest): Promise<TradeResult> {
    this.stats.cancelOrderCalls++;
    return this.trade('cancelOrder', (now) => this.cancelByRequest(request, now));
  }

  /** Balance, equity and margin now, at the leverage the terminal was opened with. */
  async accountInfo(): Promise<TerminalAccount> {
    this.ensureConnected();
    const { currency, balance, equity, margin, marginFree } = this.accountState();
    return { currency, balance, equity, margin, marginFree, leverage: this.leverage };
  }

  // --- account views (not part of TradingTerminal) -----------------------------------------

  /** Balance, equity and margin now. */
  accountState(): SimulatedAccountState {
    const now = this.clock.now();
    this.processUpTo(now);
    return this.stateAt(now);
  }

  // --- internals ---------------------------------------------------------------------------

  private ensureConnected(): void {
    if (!this.connected) throw new BrokerError('disconnected', 'the simulated terminal is disconnected');
  }

  /** A trade request: through the connection check and the armed faults, answered once what it changed is saved. */
  private trade(method: FaultMethod, run: (now: number) => TradeResult): Promise<TradeResult> {
    return this.call(method, async () => {
      const result = run(this.clock.now());
      await this.save(method);
      return result;
    });
  }

  /** Runs a call through the connection check and the armed faults. */
  private async call<T>(method: FaultMethod, run: () => T | Promise<T>): Promise<T> {
    this.ensureConnected();
    const fault = this.faults.take(method);
    if (fault) this.stats.faultsTriggered++;
    const runNow = (): T | Promise<T> => {
      this.processUpTo(this.clock.now());
      return run();
    };
    switch (fault) {
      case 'timeout':
        throw new BrokerError('timeout', `${method}: no answer from the simulated terminal (injected timeout)`);
      case 'disconnect':
        this.dropConnection();
        throw new BrokerError('disconnected', `${method}: the simulated terminal lost its connection (injected)`);
      case 'ambiguous':
        await runNow();
        throw new BrokerError('timeout', `${method}: the request reached the simulated server but its answer was lost (injected)`);
      case 'hang':
        await this.holdUntilReleased();
        return runNow();
      case 'stall': {
        const result = await runNow();
        await this.holdUntilReleased();
        return result;
      }
      default:
        return runNow();
    }
  }

  /** Waits for `releaseHung()` (or fails with `disconnected` at `close()`). */
  private holdUntilReleased(): Promise<void> {
    return new Promise<void>((release, fail) => this.hung.push({ release, fail }));
  }

  private dropConnection(): void {
    this.setConnected(false);
    if (this.reconnectAfterMs > 0 && !this.reconnectTimer) {
      this.reconnectTimer = this.clock
        .setTimeout(() => {
          this.reconnectTimer = undefined;
          this.setConnected(true);
        }, this.reconnectAfterMs)
        .unref();
    }
  }

  private cancelReconnect(): void {
    if (this.reconnectTimer) this.clock.clearTimer(this.reconnectTimer);
    this.reconnectTimer = undefined;
  }

  private infoOf(spec: SymbolSpec): SymbolInfo {
    return simulatedSymbolInfo(spec, this.tradeModes.get(spec.symbol) ?? 'full');
  }

  /** MT5's checks, in the order a trade server applies them; retcode 0 carries the plan. */
  private check(request: TradeRequest, now: number): Checked {
    const spec = this.market.spec(request.symbol);
    if (!spec) return rejection(RETCODE.INVALID, `unknown symbol ${request.symbol}`);
    const info = this.infoOf(spec);
    const side = sideOf(request.type);
    const isDeal = request.action === 'deal';
    if (isDeal !== isMarketType(request.type)) {
      return rejection(RETCODE.INVALID, `order type ${request.type} does not go with action ${request.action}`);
    }
    if (info.tradeMode === 'disabled') return rejection(RETCODE.TRADE_DISABLED, `trading ${spec.symbol} is disabled`);
    if (info.tradeMode === 'close_only') return rejection(RETCODE.CLOSE_ONLY, `${spec.symbol} is close-only`);
    if (info.tradeMode === 'long_only' && side === 'sell') return rejection(RETCODE.LONG_ONLY, `${spec.symbol} is long-only`);
    if (info.tradeMode === 'short_only' && side === 'buy') return rejection(RETCODE.SHORT_ONLY, `${spec.symbol} is short-only`);

    const volumeProblem = this.volumeProblem(request.volume, info);
    if (volumeProblem) return rejection(RETCODE.INVALID_VOLUME, volumeProblem);
    if (request.filling !== undefined && !info.fillingModes.includes(request.filling)) {
      return rejection(RETCODE.INVALID_FILL, `filling mode ${request.filling} is not allowed for ${spec.symbol}`);
    }
    if (!this.market.isOpen(now)) return rejection(RETCODE.MARKET_CLOSED, 'market is closed');
    const quote = this.market.lastTick(spec.symbol, now);
    if (!quote) return rejection(RETCODE.PRICE_OFF, `no quotes for ${spec.symbol}`);

    const bid = quoteToPoints(quote.bid, spec.digits);
    const ask = quoteToPoints(quote.ask, spec.digits);
    let pricePoints = side === 'buy' ? ask : bid;
    if (request.price !== undefined) {
      const requested = priceToPoints(request.price, spec.digits);
      if (requested === null) return rejection(RETCODE.INVALID_PRICE, `price ${request.price} is not a valid ${spec.digits}-digit price`, quote);
      if (!isDeal) pricePoints = requested;
    } else if (!isDeal) {
      return rejection(RETCODE.INVALID_PRICE, 'a pending order needs a price', quote);
    }
    if (!isDeal) {
      const problem = pendingPriceProblem(request.type, pricePoints, { bid, ask }, info.stopsLevel);
      if (problem) return rejection(RETCODE.INVALID_PRICE, problem, quote);
    }

    // Stops are measured from the price the position closes at (bid for a buy), or the order price.
    const stopBase = isDeal ? (side === 'buy' ? bid : ask) : pricePoints;
    const stops = stopsOf(request, spec.digits, side, stopBase, info.stopsLevel);
    if ('problem' in stops) return rejection(RETCODE.INVALID_STOPS, stops.problem, quote);

    let expiresAt: number | null = null;
    if (!isDeal) {
      const expiry = expiryOf(request, info, now);
      if ('problem' in expiry) return rejection(RETCODE.INVALID_EXPIRATION, expiry.problem, quote);
      expiresAt = expiry.expiresAt;
    }

    const margin = isDeal ? this.marginFor(spec, Number(request.volume), now) : 0;
    if (isDeal) {
      const state = this.stateAt(now);
      if (margin > state.marginFree) {
        return rejection(RETCODE.NO_MONEY, `margin ${margin.toFixed(2)} ${this.currency} exceeds free margin ${state.marginFree.toFixed(2)}`, quote);
      }
    }
    return {
      retcode: 0,
      comment: 'Done',
      plan: { spec, quote, side, pricePoints, slPoints: stops.sl, tpPoints: stops.tp, expiresAt, margin },
    };
  }

  private volumeProblem(volume: string, info: SymbolInfo): string | undefined {
    if (!isDecimalString(volume) || volume.startsWith('-') || volume.startsWith('+')) return `volume ${JSON.stringify(volume)} is not a decimal`;
    if (compareDecimal(volume, info.volumeMin) < 0) return `volume ${volume} is below the minimum ${info.volumeMin}`;
    if (compareDecimal(volume, info.volumeMax) > 0) return `volume ${volume} is above the maximum ${info.volumeMax}`;
    if (!isMultipleOf(volume, info.volumeStep)) return `volume ${volume} is not a multiple of the step ${info.volumeStep}`;
    return undefined;
  }

  private execute(request: TradeRequest, now: number): TradeResult {
    const checked = this.check(request, now);
    const requestId = this.issueRequestId();
    if (!('plan' in checked)) return emptyResult(checked.retcode, checked.comment, requestId, checked.quote);
    const { plan } = checked;
    const digits = plan.spec.digits;
    const addOrder = (state: TerminalRecord['state']) =>
      this.addRecord({
        kind: 'order',
        symbol: plan.spec.symbol,
        type: request.type,
        volume: request.volume,
        price: pointsToPrice(plan.pricePoints, digits),
        magic: request.magic,
        comment: ownedText(request.comment.slice(0, COMMENT_MAX_LENGTH)),
        time: now,
        position: null,
        state,
      });

    if (request.action === 'pending') {
      const record = addOrder('placed');
      this.rest(record, plan);
      return {
        ...emptyResult(RETCODE.PLACED, retcodeDescription(RETCODE.PLACED), requestId, plan.quote),
        order: record.ticket,
        volume: request.volume,
        price: record.price,
      };
    }

    if (request.price !== undefined && request.deviation !== undefined) {
      const requested = priceToPoints(request.price, digits)!;
      const moved = Math.abs(plan.pricePoints - requested);
      if (moved > request.deviation) {
        return emptyResult(RETCODE.REQUOTE, `price moved ${moved} points, deviation ${request.deviation}`, requestId, plan.quote);
      }
    }
    const liquidity = LIQUIDITY_LOTS[plan.spec.tier];
    const isPartial = compareDecimal(request.volume, liquidity) > 0;
    if (isPartial && request.filling === 'FOK') {
      return emptyResult(RETCODE.REJECT, `fill or kill: only ${liquidity} lots available at the price`, requestId, plan.quote);
    }
    const filled = isPartial ? liquidity : request.volume;
    const order = addOrder(isPartial ? 'partially_filled' : 'filled');
    const deal = this.openPosition(order, filled, plan.pricePoints, plan.slPoints, plan.tpPoints, now);
    const retcode = isPartial ? RETCODE.DONE_PARTIAL : RETCODE.DONE;
    return {
      ...emptyResult(retcode, retcodeDescription(retcode), requestId, plan.quote),
      deal: deal.ticket,
      order: order.ticket,
      position: deal.position,
      volume: filled,
      price: deal.price,
    };
  }

  /** MT5's checks of a close, in a trade server's order. It fills in full: a position is never larger than what one deal fills. */
  private closeByRequest(request: ClosePositionRequest, now: number): TradeResult {
    const requestId = this.issueRequestId();
    const position = this.openPositions.get(request.position);
    if (!position) return emptyResult(RETCODE.POSITION_CLOSED, `position ${request.position} is not open`, requestId);
    const { spec } = this.bookOf(position.symbol);
    const volumeProblem = this.volumeProblem(request.volume, this.infoOf(spec));
    if (volumeProblem) return emptyResult(RETCODE.INVALID_VOLUME, volumeProblem, requestId);
    if (compareDecimal(request.volume, position.volume) > 0) {
      return emptyResult(RETCODE.INVALID_CLOSE_VOLUME, `volume ${request.volume} is above the position's ${position.volume}`, requestId);
    }
    const quote = this.quoteFor(spec, now);
    if (!('bid' in quote)) return emptyResult(quote.retcode, quote.comment, requestId);
    const closePoints = quoteToPoints(position.side === 'buy' ? quote.bid : quote.ask, spec.digits);
    const fields = {
      symbol: position.symbol,
      type: position.side === 'buy' ? ('sell' as const) : ('buy' as const),
      volume: request.volume,
      price: pointsToPrice(closePoints, spec.digits),
      magic: request.magic,
      comment: ownedText(request.comment.slice(0, COMMENT_MAX_LENGTH)),
      time: now,
      position: position.ticket,
      state: 'filled' as const,
    };
    const order = this.addRecord({ kind: 'order', ...fields });
    const profit = this.bookClose(position, request.volume, closePoints, now);
    const deal = this.addRecord({ kind: 'deal', ...fields, dealOrder: order.ticket, entry: 'out', reason: 'expert', profit });
    return {
      ...emptyResult(RETCODE.DONE, retcodeDescription(RETCODE.DONE), requestId, quote),
      deal: deal.ticket,
      order: order.ticket,
      position: position.ticket,
      volume: request.volume,
      price: deal.price,
    };
  }

  /** MT5's checks of a TRADE_ACTION_SLTP: the new stops as an open checks them, against the close price, and the freeze level. */
  private modifyByRequest(request: ModifyPositionRequest, now: number): TradeResult {
    const requestId = this.issueRequestId();
    const position = this.openPositions.get(request.position);
    if (!position) return emptyResult(RETCODE.POSITION_CLOSED, `position ${request.position} is not open`, requestId);
    const { spec } = this.bookOf(position.symbol);
    const quote = this.quoteFor(spec, now);
    if (!('bid' in quote)) return emptyResult(quote.retcode, quote.comment, requestId);
    const stops = parsedStops(request, spec.digits);
    if ('problem' in stops) return emptyResult(RETCODE.INVALID_STOPS, stops.problem, requestId, quote);
    if (stops.sl === position.slPoints && stops.tp === position.tpPoints) {
      return emptyResult(RETCODE.NO_CHANGES, retcodeDescription(RETCODE.NO_CHANGES), requestId, quote);
    }
    const { stopsLevel, freezeLevel } = this.infoOf(spec);
    const { side } = position;
    const base = quoteToPoints(side === 'buy' ? quote.bid : quote.ask, spec.digits);
    const problem = stopsProblem(stops, side, base, stopsLevel);
    if (problem) return emptyResult(RETCODE.INVALID_STOPS, problem, requestId, quote);
    const frozen = frozenStopProblem('sl', position.slPoints, side, base, freezeLevel) ?? frozenStopProblem('tp', position.tpPoints, side, base, freezeLevel);
    if (frozen) return emptyResult(RETCODE.FROZEN, frozen, requestId, quote);
    this.setStops(position, stops);
    return { ...emptyResult(RETCODE.DONE, retcodeDescription(RETCODE.DONE), requestId, quote), position: position.ticket };
  }

  /** MT5's checks of a TRADE_ACTION_REMOVE: the order rests, the market is open, the order is outside the freeze level. */
  private cancelByRequest(request: CancelOrderRequest, now: number): TradeResult {
    const requestId = this.issueRequestId();
    const order = this.resting.get(request.order);
    if (!order) return emptyResult(RETCODE.INVALID, `order ${request.order} is not resting`, requestId);
    const { record } = order;
    const { spec } = this.bookOf(record.symbol);
    const quote = this.quoteFor(spec, now);
    if (!('bid' in quote)) return emptyResult(quote.retcode, quote.comment, requestId);
    const market = { bid: quoteToPoints(quote.bid, spec.digits), ask: quoteToPoints(quote.ask, spec.digits) };
    const frozen = frozenOrderProblem(record.type as PendingOrderType, order.pricePoints, market, this.infoOf(spec).freezeLevel);
    if (frozen) return emptyResult(RETCODE.FROZEN, frozen, requestId, quote);
    record.state = 'cancelled';
    this.unrest(order);
    return { ...emptyResult(RETCODE.DONE, retcodeDescription(RETCODE.DONE), requestId, quote), order: record.ticket };
  }

  /** The quote a request on an open position or a resting order trades at, or why there is none. */
  private quoteFor(spec: SymbolSpec, now: number): Quote | { retcode: number; comment: string } {
    if (this.infoOf(spec).tradeMode === 'disabled') return { retcode: RETCODE.TRADE_DISABLED, comment: `trading ${spec.symbol} is disabled` };
    if (!this.market.isOpen(now)) return { retcode: RETCODE.MARKET_CLOSED, comment: 'market is closed' };
    return this.market.lastTick(spec.symbol, now) ?? { retcode: RETCODE.PRICE_OFF, comment: `no quotes for ${spec.symbol}` };
  }

  private terminalPositionOf(position: Position, now: number): TerminalPosition {
    const { digits } = this.bookOf(position.symbol).spec;
    return {
      ticket: position.ticket,
      symbol: position.symbol,
      side: position.side,
      volume: position.volume,
      openPrice: pointsToPrice(position.openPoints, digits),
      sl: priceOrNull(position.slPoints, digits),
      tp: priceOrNull(position.tpPoints, digits),
      profit: this.profitOf(position, now),
      swap: 0,
      magic: position.magic,
      comment: position.comment,
      openTime: position.time,
    };
  }

  private terminalOrderOf(order: RestingOrder): TerminalOrder {
    const { record } = order;
    const { digits } = this.bookOf(record.symbol).spec;
    return {
      ticket: record.ticket,
      symbol: record.symbol,
      type: record.type as PendingOrderType,
      volume: record.volume,
      price: record.price,
      sl: priceOrNull(order.slPoints, digits),
      tp: priceOrNull(order.tpPoints, digits),
      magic: record.magic,
      comment: record.comment,
      time: record.time,
      expiration: order.expiresAt,
    };
  }

  private issueRequestId(): string {
    return `sim-${this.nextRequestId++}`;
  }

  private addRecord(fields: Omit<TerminalRecord, 'ticket'> & Partial<HistoryRecord>): HistoryRecord {
    const record = recordOf(this.issueTicket(), fields);
    this.history?.push(record);
    this.changes?.recordChanged(record);
    return record;
  }

  private issueTicket(): string {
    return String(this.nextTicket++);
  }

  private bookOf(symbol: string): SymbolBook {
    return this.bookBySymbol.get(symbol)!;
  }

  /** Makes a placed pending order rest. */
  private rest(record: HistoryRecord, plan: TradePlan): void {
    const { pricePoints, slPoints, tpPoints, expiresAt } = plan;
    this.addResting({ record, seq: this.nextSeq++, pricePoints, slPoints, tpPoints, expiresAt });
  }

  /** Puts a resting order in its symbol's trigger book (and the expiry heap). */
  private addResting(saved: SavedRestingOrder): void {
    const order = restingOrderOf(saved);
    const { record } = order;
    const type = record.type as Exclude<OrderType, 'buy' | 'sell'>;
    order.trigger = this.bookOf(record.symbol).triggers.addOrder(order, type, order.pricePoints, order.seq);
    if (order.expiresAt !== null) order.expiry = this.expiries.push(order, order.expiresAt, order.seq);
    this.resting.set(record.ticket, order);
    this.changes?.orderRested(order);
  }

  /** Takes a resting order out of the book, the expiry heap and the resting set. */
  private unrest(order: RestingOrder): void {
    if (order.trigger) this.bookOf(order.record.symbol).triggers.remove(order.trigger);
    if (order.expiry) this.expiries.remove(order.expiry);
    this.resting.delete(order.record.ticket);
    this.changes?.orderUnrested(order);
  }

  /** A deal that opens a position from `order` (MT5: the position id is the order's ticket). */
  private openPosition(
    order: HistoryRecord,
    volume: string,
    pricePoints: number,
    slPoints: number | null,
    tpPoints: number | null,
    time: number,
  ): HistoryRecord {
    const side = sideOf(order.type);
    order.position = order.ticket;
    this.changes?.recordChanged(order);
    this.addPosition({
      ticket: order.ticket,
      seq: this.nextSeq++,
      symbol: order.symbol,
      side,
      volume,
      openPoints: pricePoints,
      slPoints,
      tpPoints,
      magic: order.magic,
      comment: order.comment,
      time,
    });
    return this.addRecord({
      kind: 'deal',
      symbol: order.symbol,
      type: side,
      volume,
      price: pointsToPrice(pricePoints, this.bookOf(order.symbol).spec.digits),
      magic: order.magic,
      comment: order.comment,
      time,
      position: order.ticket,
      state: order.state === 'partially_filled' ? 'partially_filled' : 'filled',
      dealOrder: order.ticket,
      entry: 'in',
      reason: 'expert',
    });
  }

  /** Adds an open position to its symbol's exposure and its SL and TP to the trigger book. */
  private addPosition(saved: SavedPosition): void {
    const book = this.bookOf(saved.symbol);
    const position = positionOf(saved);
    this.openPositions.set(position.ticket, position);
    book.exposure.add(position.side, position.hundredths, position.openPoints);
    book.positionCount++;
    this.placeStops(position);
    this.changes?.positionChanged(position);
  }

  /** Puts a position's SL and TP in its symbol's trigger book. */
  private placeStops(position: Position): void {
    const { triggers } = this.bookOf(position.symbol);
    const { side, seq, slPoints, tpPoints } = position;
    position.slStop = slPoints === null ? undefined : triggers.addStop(position, side, 'sl', slPoints, seq);
    position.tpStop = tpPoints === null ? undefined : triggers.addStop(position, side, 'tp', tpPoints, seq);
  }

  private removeStops(position: Position): void {
    const { triggers } = this.bookOf(position.symbol);
    if (position.slStop) triggers.remove(position.slStop);
    if (position.tpStop) triggers.remove(position.tpStop);
  }

  private setStops(position: Position, { sl, tp }: Stops): void {
    this.removeStops(position);
    position.slPoints = sl;
    position.tpPoints = tp;
    this.placeStops(position);
    this.changes?.positionChanged(position);
  }

  /** Takes `volume` off a position at `closePoints` and books its profit to the balance (answered); the whole volume closes it. */
  private bookClose(position: Position, volume: string, closePoints: number, time: number): number {
    const book = this.bookOf(position.symbol);
    const profit = this.profitAtPoints(position, closePoints, volume, time);
    this.balance += profit;
    // Volumes are on the 0.01 step, as an open's are.
    const hundredths = Math.round(Number(volume) * 100);
    book.exposure.remove(position.side, hundredths, position.openPoints);
    if (hundredths < position.hundredths) {
      position.volume = subtractDecimal(position.volume, volume);
      position.hundredths -= hundredths;
      this.changes?.positionChanged(position);
      return profit;
    }
    this.openPositions.delete(position.ticket);
    this.changes?.positionClosed(position.ticket);
    book.positionCount--;
    this.removeStops(position);
    return profit;
  }

  /** Takes up the account a store saved: its resting orders and positions, counters and balance (the history stays in the store). */
  private restore(saved: SavedTerminalState): void {
    this.balance = saved.balance;
    this.processedUpTo = saved.processedUpTo;
    this.nextTicket = saved.nextTicket;
    this.nextSeq = saved.nextSeq;
    for (const order of saved.resting) this.addResting({ ...order, record: recordOf(order.record.ticket, order.record) });
    for (const position of saved.positions) this.addPosition(position);
  }

  /** Saves what changed since the last save, with the account, when there is a store. */
  private async save(method: FaultMethod): Promise<void> {
    if (!this.changes) return;
    const account = { balance: this.balance, processedUpTo: this.processedUpTo, nextTicket: this.nextTicket, nextSeq: this.nextSeq };
    try {
      await this.changes.save(account, this.historyLimit);
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      // Ambiguous: the order exists in this process but may be gone after a restart.
      throw new BrokerError('timeout', `${method} was executed but the simulated terminal could not save it: ${reason}`, { cause: err });
    }
  }

  /**
   * Applies every tick after the last processed instant up to `now` to resting orders and stops:
   * only the ticks of symbols that have any, in time order (one instant's in table order, as the
   * market emits them), with expiries in between. A long quiet spell is taken an hour at a time,
   * so its ticks are never all held at once.
   */
  private processUpTo(now: number): void {
    while (this.processedUpTo < now) {
      const upTo = Math.min(now, this.processedUpTo + PROCESS_CHUNK_MS);
      const ticks: Quote[] = [];
      let symbols = 0;
      for (const book of this.books) {
        if (book.triggers.size === 0) continue;
        symbols++;
        for (const tick of this.market.ticksBetween(book.spec.symbol, this.processedUpTo + 1, upTo + 1)) ticks.push(tick);
      }
      // Array sort is stable: ticks of one instant keep the table order.
      if (symbols > 1) ticks.sort((a, b) => a.time - b.time);
      for (const tick of ticks) {
        this.expireOrders(tick.time);
        this.applyTick(tick);
      }
      this.expireOrders(upTo);
      this.processedUpTo = upTo;
    }
  }

  /** Expires the orders whose expiry is at or before `now`: O(1) when none is due. */
  private expireOrders(now: number): void {
    for (let next = this.expiries.peek(); next && next.key <= now; next = this.expiries.peek()) {
      const order = next.value;
      order.record.state = 'expired';
      this.unrest(order);
    }
  }

  private applyTick(tick: Quote): void {
    const book = this.bookOf(tick.symbol);
    const bid = quoteToPoints(tick.bid, book.spec.digits);
    const ask = quoteToPoints(tick.ask, book.spec.digits);
    // Stops are taken first: a position this tick opens is first checked against the next tick.
    const reached = book.triggers.takeReachedStops(bid, ask);
    for (const order of book.triggers.takeTriggeredOrders(bid, ask)) this.activate(order, book.spec, bid, ask, tick.time);
    for (const { position, kind } of reached) this.stopOut(position, position.side === 'buy' ? bid : ask, kind, tick.time);
  }

  private activate(order: RestingOrder, spec: SymbolSpec, bid: number, ask: number, time: number): void {
    this.unrest(order);
    const record = order.record;
    const margin = this.marginFor(spec, Number(record.volume), time);
    if (margin > this.stateAt(time).marginFree) {
      record.state = 'cancelled';
      return;
    }
    record.state = 'filled';
    const fillPoints = sideOf(record.type) === 'buy' ? ask : bid;
    this.openPosition(record, record.volume, fillPoints, order.slPoints, order.tpPoints, time);
  }

  /** Closes a position whose SL or TP a tick reached (a deal with comment `[sl 1.0812]`). */
  private stopOut(position: Position, closePoints: number, reason: StopKind, time: number): void {
    const digits = this.bookOf(position.symbol).spec.digits;
    const profit = this.bookClose(position, position.volume, closePoints, time);
    const level = reason === 'sl' ? position.slPoints! : position.tpPoints!;
    this.addRecord({
      kind: 'deal',
      symbol: position.symbol,
      type: position.side === 'buy' ? 'sell' : 'buy',
      volume: position.volume,
      price: pointsToPrice(closePoints, digits),
      magic: position.magic,
      comment: `[${reason} ${pointsToPrice(level, digits)}]`,
      time,
      position: position.ticket,
      state: 'filled',
      dealOrder: null,
      entry: 'out',
      reason,
      profit,
    });
  }

  /** Balance, equity and margin at `time`: per symbol, one quote and two conversion rates, whatever the positions. */
  private stateAt(time: number): SimulatedAccountState {
    let profit = 0;
    let margin = 0;
    for (const { spec, exposure, positionCount } of this.books) {
      if (positionCount === 0) continue;
      const tick = this.market.lastTick(spec.symbol, time);
      if (tick) {
        const points = exposure.floatingPoints(quoteToPoints(tick.bid, spec.digits), quoteToPoints(tick.ask, spec.digits));
        profit += (points / 100 / 10 ** spec.digits) * spec.contractSize * (this.market.rate(spec.quote, this.currency, time) ?? 0);
      }
      margin += this.marginFor(spec, exposure.hundredths / 100, time);
    }
    const equity = this.balance + profit;
    return {
      currency: this.currency,
      balance: this.balance,
      equity,
      margin,
      marginFree: equity - margin,
      marginLevel: margin > 0 ? (equity / margin) * 100 : 0,
    };
  }

  private profitOf(position: Position, time: number): number {
    const spec = this.market.spec(position.symbol)!;
    const tick = this.market.lastTick(position.symbol, time);
    if (!tick) return 0;
    const closeAt = position.side === 'buy' ? tick.bid : tick.ask;
    return this.profitAtPoints(position, quoteToPoints(closeAt, spec.digits), position.volume, time);
  }

  /** The profit of `volume` lots of a position closed at `closePoints`, account currency. */
  private profitAtPoints(position: Position, closePoints: number, volume: string, time: number): number {
    const spec = this.market.spec(position.symbol)!;
    const direction = position.side === 'buy' ? 1 : -1;
    const priceMove = ((closePoints - position.openPoints) * direction) / 10 ** spec.digits;
    const quoteAmount = priceMove * Number(volume) * spec.contractSize;
    return quoteAmount * (this.market.rate(spec.quote, this.currency, time) ?? 0);
  }

  private marginFor(spec: SymbolSpec, lots: number, time: number): number {
    return ((lots * spec.contractSize) / this.leverage) * (this.market.rate(spec.base, this.currency, time) ?? 0);
  }
}

function emptyResult(retcode: number, comment: string, requestId: string, quote?: Quote): TradeResult {
  return {
    retcode,
    deal: null,
    order: null,
    position: null,
    volume: '0',
    price: null,
    bid: quote?.bid ?? null,
    ask: quote?.ask ?? null,
    comment,
    requestId,
  };
}

type Stops = { sl: number | null; tp: number | null };

/** A request's SL and TP in points (absent, null or 0: none), or what is wrong with them. */
function parsedStops(legs: { sl?: string | null; tp?: string | null }, digits: number): Stops | { problem: string } {
  const parse = (value: string | null | undefined): number | null | undefined =>
    value === undefined || value === null || isZeroPrice(value) ? null : (priceToPoints(value, digits) ?? undefined);
  const sl = parse(legs.sl);
  const tp = parse(legs.tp);
  if (sl === undefined) return { problem: `sl ${legs.sl} is not a valid ${digits}-digit price` };
  if (tp === undefined) return { problem: `tp ${legs.tp} is not a valid ${digits}-digit price` };
  return { sl, tp };
}

function stopsProblem({ sl, tp }: Stops, side: 'buy' | 'sell', base: number, stopsLevel: number): string | undefined {
  return stopDistanceProblem('sl', sl, side, base, stopsLevel) ?? stopDistanceProblem('tp', tp, side, base, stopsLevel);
}

function stopsOf(request: TradeRequest, digits: number, side: 'buy' | 'sell', base: number, stopsLevel: number): Stops | { problem: string } {
  const stops = parsedStops(request, digits);
  if ('problem' in stops) return stops;
  const problem = stopsProblem(stops, side, base, stopsLevel);
  return problem ? { problem } : stops;
}

function expiryOf(request: TradeRequest, info: SymbolInfo, now: number): { expiresAt: number | null } | { problem: string } {
  const timeType = request.timeType ?? 'GTC';
  if (!info.expirationModes.includes(timeType)) return { problem: `expiration mode ${timeType} is not allowed` };
  if (timeType === 'GTC') return { expiresAt: null };
  if (timeType === 'DAY') return { expiresAt: endOfUtcDayMs(now) };
  const expiration = request.expiration;
  if (expiration === undefined || !Number.isInteger(expiration)) return { problem: `${timeType} needs an expiration (epoch seconds)` };
  const expiresAt = specifiedExpiryMs(timeType, expiration);
  if (expiresAt <= now) return { problem: `expiration ${new Date(expiresAt).toISOString()} is not in the future` };
  return { expiresAt };
}
