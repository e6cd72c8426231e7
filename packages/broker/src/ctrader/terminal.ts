import type { Clock } from '@fxdesk/primitives';
import { BrokerError, isBrokerError } from '../errors.js';
import { Listeners } from '../listeners.js';
import { RETCODE } from '../mt5-retcodes.js';
import { priceToPoints } from '../mt5-rules.js';
import {
  compareDeals,
  isDealInFilter,
  isInFilter,
  newTerminalCallStats,
  type CancelOrderRequest,
  type ClosePositionRequest,
  type DealFilter,
  type ModifyPositionRequest,
  type SymbolInfo,
  type TerminalAccount,
  type TerminalCallStats,
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
import { CTraderAccountData, isTradingAt, type SymbolTerms } from './account-data.js';
import type { CTraderFeed } from './feed.js';
import { commentOf, magicOf } from './labels.js';
import { newOrderPayload, pointsOf, priceText, refusal, requestProblem, sideOf, symbolInfoOf } from './order-rules.js';
import { retcodeOfError } from './retcodes.js';
import { dealOf, orderTypeOf, stateOf } from './terminal-records.js';
import { TradeBudget, type TradeKind, type TradeLimit } from './trade-budget.js';
import { parsePayload } from './parse.js';
import {
  ExecutionEventSchema,
  ExpectedMarginResSchema,
  OrderErrorEventSchema,
  type ExecutionEvent,
  type WireDeal,
  type WireOrder,
  type WirePosition,
} from './trade-wire.js';
import { lotsToVolume, moneyValue, volumeToLots } from './volumes.js';
import { PayloadType, type Envelope } from './wire.js';

export interface CTraderTerminalOptions {
  /** The account's session: the one authorized connection this process holds for the account, shared with the feed's and the account reader's roles. */
  feed: CTraderFeed;
  clock: Clock;
  /** How far back `findByComment` reads the history (ProtoOADealListReq, ProtoOAOrderListReq). Default 7 days. */
  lookbackMs?: number;
  /** Longest wait for a symbol's first quote after subscribing. Default 10 s. */
  quoteTimeoutMs?: number;
  /** The trading rate limits kept (default the documented ones, `TRADE_LIMITS`). */
  tradeLimits?: Record<TradeKind, readonly TradeLimit[]>;
}

/** What a trading request came back with: the refusal, or the execution events up to the last one. */
type Answer = { kind: 'refused'; errorCode: string; description: string } | { kind: 'events'; events: ExecutionEvent[] };

/** Execution types after which a request has no more to say (a market order's fill, a refusal). */
const MARKET_DONE = new Set(['ORDER_FILLED', 'ORDER_CANCELLED', 'ORDER_REJECTED', 'ORDER_EXPIRED']);
const PENDING_DONE = new Set(['ORDER_ACCEPTED', 'ORDER_REJECTED', 'ORDER_CANCELLED']);

const DAY_MS = 86_400_000;
/** MT5 TRADE_RETCODE_TOO_MANY_REQUESTS: "Too frequent requests". */
const TOO_MANY_REQUESTS = 10024;
const MAX_TIMESTAMP_MS = 2_147_483_646_000;

/**
 * The TradingTerminal over the cTrader Open API, in MT5 terms, on the feed's authorized session
 * (one connection per account and process; see the README, "One session, three roles").
 *
 * Orders are ProtoOANewOrderReq (MARKET with relativeStopLoss / relativeTakeProfit measured from
 * the quote the terminal holds, since absolute stops are "Not supported for the MARKET orders";
 * LIMIT and STOP with absolute stopLoss / takeProfit), each carrying its MT5 comment as `comment`
 * and `clientOrderId` and its magic in `label`. The venue answers with ProtoOAExecutionEvent
 * (ORDER_ACCEPTED, ORDER_FILLED, ORDER_PARTIAL_FILL, ORDER_CANCELLED, ORDER_REJECTED) or
 * ProtoOAOrderErrorEvent, mapped to MT5 retcodes; an answer that never comes (timeout, a lost
 * connection) throws the ambiguous BrokerError and is never sent again. Closes are
 * ProtoOAClosePositionReq, stops ProtoOAAmendPositionSLTPReq, cancels ProtoOACancelOrderReq;
 * positions and orders come from ProtoOAReconcileReq, history from ProtoOADealListReq and
 * ProtoOAOrderListReq.
 */
export class CTraderTerminal implements TradingTerminal {
  readonly name = 'ctrader';
  readonly stats: TerminalCallStats = newTerminalCallStats();
  private readonly feed: CTraderFeed;
  private readonly clock: Clock;
  private readonly data: CTraderAccountData;
  private readonly lookbackMs: number;
  private readonly quoteTimeoutMs: number;
  private readonly quotes = new Map<string, Quote>();
  private readonly quoteListeners = new Listeners<Quote>();
  private readonly connectionListeners = new Listeners<boolean>();
  /**
   * The comment and magic each close was asked with: ProtoOAClosePositionReq carries neither, so
   * a closing deal is found by them only from this process's memory (by its order once answered,
   * by its position while the answer is unknown). After a restart a close shows the position's.
   */
  private readonly closesByOrder = new Map<number, { comment: string; magic: number }>();
  private readonly unansweredCloses: { positionId: number; comment: string; magic: number; sentAt: number }[] = [];
  private readonly detach: Unsubscribe[] = [];
  private readonly budget: TradeBudget;
  private wasConnected = false;

  constructor(options: CTraderTerminalOptions) {
    this.feed = options.feed;
    this.clock = options.clock;
    this.data = new CTraderAccountData(options.feed);
    this.lookbackMs = options.lookbackMs ?? 7 * DAY_MS;
    this.quoteTimeoutMs = options.quoteTimeoutMs ?? 10_000;
    this.budget = new TradeBudget(options.clock, options.tradeLimits);
    this.detach.push(
      this.feed.onQuote((quote) => {
        this.quotes.set(quote.symbol, quote);
        this.quoteListeners.emit(quote);
      }),
      this.feed.onState(({ state }) => {
        const isConnected = state === 'connected';
        if (isConnected === this.wasConnected) return;
        this.wasConnected = isConnected;
        this.connectionListeners.emit(isConnected);
      }),
    );
  }

  async connect(): Promise<void> {
    await this.feed.connect();
    await this.data.symbols();
  }

  /** Stops listening to the shared feed; the feed's owner closes the connection. */
  async close(): Promise<void> {
    for (const off of this.detach.splice(0)) off();
    this.data.close();
  }

  isConnected(): boolean {
    return this.feed.state() === 'connected';
  }

  onConnectionChange(listener: (connected: boolean) => void): Unsubscribe {
    return this.connectionListeners.add(listener);
  }

  async symbolInfo(symbol: string): Promise<SymbolInfo | null> {
    this.stats.symbolInfoCalls++;
    const terms = await this.data.terms(symbol);
    return terms ? symbolInfoOf(terms) : null;
  }

  /** The latest spot; the first call for a symbol subscribes to its spots and waits for the one the venue sends after subscribing. */
  async tick(symbol: string): Promise<Quote | null> {
    this.stats.tickCalls++;
    const known = this.quotes.get(symbol);
    if (known) return { ...known };
    if (!(await this.data.terms(symbol))) return null;
    const first = this.nextQuote(symbol);
    await this.feed.subscribe([symbol]);
    const quote = this.quotes.get(symbol) ?? (await first);
    return quote ? { ...quote } : null;
  }

  async rates(symbol: string, timeframe: Timeframe, count: number): Promise<Bar[]> {
    this.stats.ratesCalls++;
    return this.feed.trendbars(symbol, timeframe, count);
  }

  /**
   * MT5 order_check, emulated: the symbol's terms read now (schedule and holidays), the MT5
   * rules on volume, prices, stops and expiry against the current quote, and the order's margin
   * (ProtoOAExpectedMarginReq) against the free margin.
   */
  async orderCheck(request: TradeRequest): Promise<TradeCheckResult> {
    this.stats.orderCheckCalls++;
    const terms = await this.data.freshTerms(request.symbol);
    const money = await this.accountInfo();
    const result = (retcode: number, comment: string, margin = 0): TradeCheckResult => ({
      retcode,
      comment,
      balance: money.balance,
      equity: money.equity,
      margin: money.margin + margin,
      marginFree: money.marginFree - margin,
      marginLevel: money.margin + margin > 0 ? (money.equity / (money.margin + margin)) * 100 : 0,
    });
    if (!terms) return result(RETCODE.INVALID, `unknown symbol ${request.symbol}`);
    if (!isTradingAt(terms, this.clock.now())) return result(RETCODE.MARKET_CLOSED, `${request.symbol} is closed`);
    const quote = await this.tick(request.symbol);
    const problem = requestProblem(request, terms, quote, this.clock.now());
    if (problem) return result(problem.retcode, problem.comment);
    const volume = lotsToVolume(request.volume, terms.lotSize) as number;
    const margin = await this.expectedMargin(terms, volume, sideOf(request.type));
    if (margin > money.marginFree) return result(RETCODE.NO_MONEY, `margin ${margin} exceeds the free margin ${money.marginFree}`, margin);
    return result(RETCODE.OK, 'Done', margin);
  }

  async orderSend(request: TradeRequest): Promise<TradeResult> {
    this.stats.orderSendCalls++;
    const terms = await this.data.terms(request.symbol);
    if (!terms) return refusal(RETCODE.INVALID, `unknown symbol ${request.symbol}`);
    const quote = await this.tick(request.symbol);
    const problem = requestProblem(request, terms, quote, this.clock.now());
    if (problem) return refusal(problem.retcode, problem.comment, quote);
    if (!this.budget.take('newOrder')) return refusal(TOO_MANY_REQUESTS, 'over the new-order rate limit, not sent', quote);
    const isMarket = request.action === 'deal';
    const answer = await this.trade(PayloadType.NEW_ORDER_REQ, newOrderPayload(request, terms, quote as Quote), (type) =>
      (isMarket ? MARKET_DONE : PENDING_DONE).has(type),
    );
    if (answer.kind === 'refused') return refusal(retcodeOfError(answer.errorCode), answer.description, quote);
    return this.resultOf(answer.events, request, terms, quote);
  }

  async closePosition(request: ClosePositionRequest): Promise<TradeResult> {
    this.stats.closePositionCalls++;
    const position = await this.openPosition(request.position);
    if (!position) return refusal(RETCODE.POSITION_CLOSED, `position ${request.position} is not open`);
    const terms = await this.termsOf(position.tradeData.symbolId);
    const volume = lotsToVolume(request.volume, terms.lotSize);
    if (volume === null || volume <= 0 || volume % terms.stepVolume !== 0) return refusal(RETCODE.INVALID_VOLUME, `volume ${request.volume} is off the step`);
    if (volume > position.tradeData.volume) return refusal(RETCODE.INVALID_CLOSE_VOLUME, `volume ${request.volume} is above the open volume`);
    const quote = this.quotes.get(terms.name) ?? null;
    if (!this.budget.take('closePosition')) return refusal(TOO_MANY_REQUESTS, 'over the close rate limit, not sent', quote);
    const pending = { positionId: position.positionId, comment: request.comment, magic: request.magic, sentAt: this.clock.now() };
    this.unansweredCloses.push(pending);
    const answer = await this.trade(PayloadType.CLOSE_POSITION_REQ, { positionId: position.positionId, volume }, (type) => MARKET_DONE.has(type));
    if (answer.kind === 'refused') {
      this.unansweredCloses.splice(this.unansweredCloses.indexOf(pending), 1);
      return refusal(retcodeOfError(answer.errorCode), answer.description, quote);
    }
    const orderId = answer.events.find((e) => e.order)?.order?.orderId;
    if (orderId !== undefined) {
      this.unansweredCloses.splice(this.unansweredCloses.indexOf(pending), 1);
      this.closesByOrder.set(orderId, { comment: request.comment, magic: request.magic });
    }
    return this.resultOf(answer.events, { volume: request.volume, comment: request.comment }, terms, quote);
  }

  /** Both legs are sent: ProtoOAAmendPositionSLTPReq replaces the position's stops, a leg left out is removed. */
  async modifyPosition(request: ModifyPositionRequest): Promise<TradeResult> {
    this.stats.modifyPositionCalls++;
    const position = await this.openPosition(request.position);
    if (!position) return refusal(RETCODE.POSITION_CLOSED, `position ${request.position} is not open`);
    const terms = await this.termsOf(position.tradeData.symbolId);
    const sl = request.sl === null ? null : priceToPoints(request.sl, terms.digits);
    const tp = request.tp === null ? null : priceToPoints(request.tp, terms.digits);
    if ((request.sl !== null && sl === null) || (request.tp !== null && tp === null))
      return refusal(RETCODE.INVALID_STOPS, 'a stop is not a price of the symbol');
    const current = { sl: pointsOf(position.stopLoss, terms.digits), tp: pointsOf(position.takeProfit, terms.digits) };
    if (current.sl === sl && current.tp === tp) return refusal(RETCODE.NO_CHANGES, 'the stops are already these');
    if (!this.budget.take('amendProtection')) return refusal(TOO_MANY_REQUESTS, 'over the stop-change rate limit, not sent');
    const payload = {
      positionId: position.positionId,
      ...(request.sl === null ? {} : { stopLoss: Number(request.sl) }),
      ...(request.tp === null ? {} : { takeProfit: Number(request.tp) }),
    };
    const answer = await this.trade(PayloadType.AMEND_POSITION_SLTP_REQ, payload, () => true);
    if (answer.kind === 'refused') return refusal(retcodeOfError(answer.errorCode), answer.description);
    return { ...refusal(RETCODE.DONE, 'Done'), position: request.position };
  }

  async cancelOrder(request: CancelOrderRequest): Promise<TradeResult> {
    this.stats.cancelOrderCalls++;
    const orderId = Number(request.order);
    if (!Number.isSafeInteger(orderId)) return refusal(RETCODE.INVALID, `order ${request.order} is no cTrader order id`);
    if (!this.budget.take('cancelOrder')) return refusal(TOO_MANY_REQUESTS, 'over the cancel rate limit, not sent');
    const answer = await this.trade(PayloadType.CANCEL_ORDER_REQ, { orderId }, (type) => type === 'ORDER_CANCELLED' || type === 'ORDER_CANCEL_REJECTED');
    if (answer.kind === 'refused') return refusal(retcodeOfError(answer.errorCode), answer.description);
    const last = answer.events.at(-1) as ExecutionEvent;
    if (last.executionType !== 'ORDER_CANCELLED') return refusal(retcodeOfError(last.errorCode ?? 'UNABLE_TO_CANCEL_ORDER'), 'the venue refused the cancel');
    return { ...refusal(RETCODE.DONE, 'Done'), order: request.order };
  }

  async positions(filter: TerminalFilter = {}): Promise<TerminalPosition[]> {
    this.stats.positionsCalls++;
    const [{ positions }, pnl] = await Promise.all([this.data.reconcile(), this.data.unrealized()]);
    const out: TerminalPosition[] = [];
    for (const p of positions) {
      const terms = await this.termsOf(p.tradeData.symbolId);
      if (!isInFilter(filter, terms.name)) continue;
      const moneyDigits = p.moneyDigits ?? pnl.moneyDigits;
      out.push({
        ticket: String(p.positionId),
        symbol: terms.name,
        side: p.tradeData.tradeSide === 'BUY' ? 'buy' : 'sell',
        volume: volumeToLots(p.tradeData.volume, terms.lotSize),
        openPrice: priceText(p.price ?? 0, terms.digits),
        sl: p.stopLoss === undefined ? null : priceText(p.stopLoss, terms.digits),
        tp: p.takeProfit === undefined ? null : priceText(p.takeProfit, terms.digits),
        profit: moneyValue(pnl.byPosition.get(p.positionId)?.gross ?? 0, pnl.moneyDigits),
        swap: moneyValue(p.swap, moneyDigits),
        magic: magicOf(p.tradeData.label),
        comment: p.tradeData.comment ?? '',
        openTime: p.tradeData.openTimestamp ?? 0,
      });
    }
    return out.sort((a, b) => a.openTime - b.openTime || Number(a.ticket) - Number(b.ticket));
  }

  async orders(filter: TerminalFilter = {}): Promise<TerminalOrder[]> {
    this.stats.ordersCalls++;
    const { orders } = await this.data.reconcile();
    const out: TerminalOrder[] = [];
    for (const o of orders) {
      const terms = await this.termsOf(o.tradeData.symbolId);
      if (!isInFilter(filter, terms.name)) continue;
      out.push({
        ticket: String(o.orderId),
        symbol: terms.name,
        type: orderTypeOf(o) as TerminalOrder['type'],
        volume: volumeToLots(o.tradeData.volume - (o.executedVolume ?? 0), terms.lotSize),
        price: priceText(o.limitPrice ?? o.stopPrice ?? 0, terms.digits),
        sl: o.stopLoss === undefined ? null : priceText(o.stopLoss, terms.digits),
        tp: o.takeProfit === undefined ? null : priceText(o.takeProfit, terms.digits),
        magic: magicOf(o.tradeData.label),
        comment: o.tradeData.comment ?? '',
        time: o.tradeData.openTimestamp ?? 0,
        expiration: o.timeInForce === 'GOOD_TILL_DATE' ? (o.expirationTimestamp ?? null) : null,
      });
    }
    return out.sort((a, b) => a.time - b.time || Number(a.ticket) - Number(b.ticket));
  }

  /** History deals that traded in [from, to), read from the account's registration at the earliest and up to now. */
  async deals(filter: DealFilter): Promise<TerminalDeal[]> {
    this.stats.dealsCalls++;
    const trader = await this.data.trader();
    const fromMs = Math.max(filter.from, trader.registrationMs, 0);
    const toMs = Math.min(filter.to - 1, this.clock.now(), MAX_TIMESTAMP_MS);
    if (toMs < fromMs) return [];
    const history = await this.history(fromMs, toMs);
    return history.deals.filter((d) => isDealInFilter(filter, d)).sort(compareDeals);
  }

  /**
   * Orders and deals of the last `lookbackMs` whose comment starts with the prefix and whose label
   * carries `magic`, newest first: how an order answered by nothing is found.
   */
  async findByComment(commentPrefix: string, magic: number): Promise<TerminalRecord[]> {
    this.stats.findByCommentCalls++;
    const nowMs = this.clock.now();
    const { deals, orders } = await this.history(nowMs - this.lookbackMs, nowMs);
    const records: TerminalRecord[] = [];
    for (const { order, terms, comment, magic: orderMagic } of orders) {
      if (orderMagic !== magic || !comment.startsWith(commentPrefix)) continue;
      const state = stateOf(order);
      if (!state) continue;
      records.push({
        kind: 'order',
        ticket: String(order.orderId),
        symbol: terms.name,
        type: orderTypeOf(order),
        volume: volumeToLots(order.tradeData.volume, terms.lotSize),
        price: priceText(order.executionPrice ?? order.limitPrice ?? order.stopPrice ?? 0, terms.digits),
        magic: orderMagic,
        comment,
        time: order.tradeData.openTimestamp ?? order.utcLastUpdateTimestamp ?? 0,
        position: order.positionId === undefined ? null : String(order.positionId),
        state,
      });
    }
    for (const deal of deals) {
      if (deal.magic !== magic || !deal.comment.startsWith(commentPrefix)) continue;
      records.push({
        kind: 'deal',
        ticket: deal.ticket,
        symbol: deal.symbol,
        type: deal.side,
        volume: deal.volume,
        price: deal.price,
        magic: deal.magic,
        comment: deal.comment,
        time: deal.time,
        position: deal.position,
        state: 'filled',
      });
    }
    return records.sort((a, b) => b.time - a.time || (a.kind === b.kind ? 0 : a.kind === 'deal' ? -1 : 1));
  }

  /** ProtoOATraderReq's balance, the positions' margin (ProtoOAReconcileReq) and their P/L (ProtoOAGetPositionUnrealizedPnLReq). */
  async accountInfo(): Promise<TerminalAccount> {
    const [trader, { positions }, pnl] = await Promise.all([this.data.trader(), this.data.reconcile(), this.data.unrealized()]);
    const balance = moneyValue(trader.balance, trader.moneyDigits);
    let equity = balance;
    let margin = 0;
    for (const p of positions) {
      const digits = p.moneyDigits ?? trader.moneyDigits;
      equity += moneyValue(pnl.byPosition.get(p.positionId)?.gross ?? 0, pnl.moneyDigits) + moneyValue(p.swap, digits);
      margin += moneyValue(p.usedMargin ?? 0, digits);
    }
    return { currency: trader.currency, balance, equity, margin, marginFree: equity - margin, leverage: trader.leverage };
  }

  /** The deals and orders of [fromMs, toMs], each deal with its order's comment and magic (or its close's, see `closesByOrder`). */
  private async history(fromMs: number, toMs: number) {
    const [wireDeals, wireOrders] = await Promise.all([this.data.dealsBetween(fromMs, toMs), this.data.ordersBetween(fromMs, toMs)]);
    const orders: { order: WireOrder; terms: SymbolTerms; comment: string; magic: number }[] = [];
    const byId = new Map<number, { order: WireOrder; comment: string; magic: number }>();
    for (const order of wireOrders.values()) {
      const terms = await this.termsOf(order.tradeData.symbolId);
      const mark = this.closesByOrder.get(order.orderId) ?? { comment: commentOf(order), magic: magicOf(order.tradeData.label) };
      byId.set(order.orderId, { order, ...mark });
      orders.push({ order, terms, ...mark });
    }
    const deals: TerminalDeal[] = [];
    for (const deal of wireDeals) {
      if (deal.dealStatus !== 'FILLED' && deal.dealStatus !== 'PARTIALLY_FILLED') continue;
      const terms = await this.termsOf(deal.symbolId);
      const known = byId.get(deal.orderId);
      const mark = known ?? { comment: '', magic: 0 };
      const unanswered = deal.closePositionDetail ? this.unansweredCloseOf(deal) : undefined;
      deals.push(dealOf(deal, terms, unanswered ?? mark, known?.order));
    }
    return { deals, orders };
  }

  /** The close this process asked for and heard nothing back from, that made this closing deal. */
  private unansweredCloseOf(deal: WireDeal): { comment: string; magic: number } | undefined {
    if (this.closesByOrder.has(deal.orderId)) return undefined;
    const close = this.unansweredCloses.find((c) => c.positionId === deal.positionId && c.sentAt <= deal.executionTimestamp);
    if (!close) return undefined;
    this.unansweredCloses.splice(this.unansweredCloses.indexOf(close), 1);
    const mark = { comment: close.comment, magic: close.magic };
    this.closesByOrder.set(deal.orderId, mark);
    return mark;
  }

  /**
   * Sends a trading request and reads its answer: ProtoOAOrderErrorEvent, ProtoOAErrorRes with a
   * trading code, or execution events up to the one `isDone` names. A timeout or a lost connection
   * throws (ambiguous: the request may have reached the venue); nothing is sent again.
   */
  private async trade(payloadType: number, payload: Record<string, unknown>, isDone: (executionType: string) => boolean): Promise<Answer> {
    let envelopes: Envelope[];
    try {
      envelopes = await this.feed.accountExchange(payloadType, payload, (envelope) => {
        if (envelope.payloadType !== PayloadType.EXECUTION_EVENT) return true;
        const event = ExecutionEventSchema.safeParse(envelope.payload);
        return !event.success || isDone(event.data.executionType);
      });
    } catch (err) {
      if (isBrokerError(err) && (err.kind === 'rejected' || err.kind === 'not_found' || err.kind === 'rate_limited') && err.venueCode) {
        return { kind: 'refused', errorCode: err.venueCode, description: err.message };
      }
      throw err;
    }
    const last = envelopes.at(-1) as Envelope;
    if (last.payloadType === PayloadType.ORDER_ERROR_EVENT) {
      const error = OrderErrorEventSchema.safeParse(last.payload);
      if (!error.success) throw new BrokerError('protocol', 'cTrader answered a trading request with a malformed ProtoOAOrderErrorEvent');
      return {
        kind: 'refused',
        errorCode: error.data.errorCode,
        description: `cTrader ${error.data.errorCode}${error.data.description ? `: ${error.data.description}` : ''}`,
      };
    }
    const events: ExecutionEvent[] = [];
    for (const envelope of envelopes) {
      const parsed = ExecutionEventSchema.safeParse(envelope.payload);
      if (envelope.payloadType !== PayloadType.EXECUTION_EVENT || !parsed.success) {
        throw new BrokerError('protocol', `cTrader answered a trading request with a malformed or unexpected message (payload type ${envelope.payloadType})`);
      }
      events.push(parsed.data);
    }
    const final = events.at(-1) as ExecutionEvent;
    if (final.executionType === 'ORDER_REJECTED') {
      return {
        kind: 'refused',
        errorCode: final.errorCode ?? 'ORDER_REJECTED',
        description: `cTrader rejected the order${final.errorCode ? `: ${final.errorCode}` : ''}`,
      };
    }
    return { kind: 'events', events };
  }

  /** A trade's result from its execution events: the deals it made, or the order it placed. */
  private resultOf(
    events: ExecutionEvent[],
    request: Pick<TradeRequest, 'volume' | 'comment'> & Partial<TradeRequest>,
    terms: SymbolTerms,
    quote: Quote | null,
  ): TradeResult {
    const order = events.findLast((e) => e.order)?.order;
    const deals = events.map((e) => e.deal).filter((d): d is WireDeal => d !== undefined);
    const filled = deals.reduce((sum, d) => sum + d.filledVolume, 0);
    const last = events.at(-1) as ExecutionEvent;
    const base = {
      order: order ? String(order.orderId) : null,
      bid: quote?.bid ?? null,
      ask: quote?.ask ?? null,
      comment: request.comment,
      requestId: null,
    };
    if (deals.length === 0) {
      if (last.executionType === 'ORDER_ACCEPTED' && request.action === 'pending') {
        return { ...base, retcode: RETCODE.PLACED, deal: null, position: null, volume: request.volume, price: request.price ?? null };
      }
      return { ...base, retcode: RETCODE.REJECT, deal: null, position: null, volume: '0', price: null, comment: `cTrader ${last.executionType}` };
    }
    const lastDeal = deals.at(-1) as WireDeal;
    const requested = lotsToVolume(request.volume, terms.lotSize) ?? filled;
    return {
      ...base,
      retcode: filled < requested ? RETCODE.DONE_PARTIAL : RETCODE.DONE,
      deal: String(lastDeal.dealId),
      position: String(lastDeal.positionId),
      volume: volumeToLots(filled, terms.lotSize),
      price: priceText(lastDeal.executionPrice ?? 0, terms.digits),
    };
  }

  private async openPosition(ticket: string): Promise<WirePosition | undefined> {
    const { positions } = await this.data.reconcile();
    return positions.find((p) => String(p.positionId) === ticket);
  }

  private async expectedMargin(terms: SymbolTerms, volume: number, side: 'buy' | 'sell'): Promise<number> {
    const res = parsePayload(
      ExpectedMarginResSchema,
      await this.feed.accountRequest(PayloadType.EXPECTED_MARGIN_REQ, { symbolId: terms.symbolId, volume: [volume] }, PayloadType.EXPECTED_MARGIN_RES),
      PayloadType.EXPECTED_MARGIN_RES,
    );
    const estimate = res.margin.find((m) => m.volume === volume);
    return estimate ? moneyValue(side === 'buy' ? estimate.buyMargin : estimate.sellMargin, res.moneyDigits ?? 2) : 0;
  }

  private async termsOf(symbolId: number): Promise<SymbolTerms> {
    const terms = await this.data.symbolById(symbolId);
    if (!terms) throw new BrokerError('not_found', `cTrader symbol ${symbolId} is not in the catalog`);
    return terms;
  }

  private nextQuote(symbol: string): Promise<Quote | null> {
    return new Promise((resolve) => {
      const timer = this.clock.setTimeout(() => {
        off();
        resolve(null);
      }, this.quoteTimeoutMs);
      const off = this.quoteListeners.add((quote) => {
        if (quote.symbol !== symbol) return;
        this.clock.clearTimer(timer);
        off();
        resolve(quote);
      });
    });
  }
}
