import { addDecimal, compareDecimal, isDecimalString, systemClock, type Clock } from '@fxdesk/primitives';
import type { z } from 'zod';
import { BrokerError } from '../errors.js';
import { VenueConnection } from '../venue-connection.js';
import { RETCODE, retcodeDescription } from '../mt5-retcodes.js';
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
import { isConnectionLoss, retryAfterOf, parseErrorBody } from './error-mapping.js';
import { metaApiClients, untilSynchronized, type MetaApiClients, type MetaApiConnectionOptions } from './clients.js';
import { MetaApiHttp, parseBody, type HttpAnswer } from './http-client.js';
import {
  barsOf,
  cancelBodyOf,
  closeBodyOf,
  decimalOf,
  METAAPI_COMMENT_LENGTH,
  metaApiOrderType,
  modifyBodyOf,
  newestFirst,
  oldestFirst,
  pendingOrderOf,
  positionOf,
  quoteOf,
  recordOfDeal,
  recordOfOrder,
  symbolInfoOf,
  terminalDealOf,
  tradeBodyOf,
} from './normalize.js';
import { checkMargin, checkResultOf, preCheck } from './order-check.js';
import { allPages, candlesBackwards, HISTORY_SLACK_MS, historyDealsBetween, timeRangePath } from './reads.js';
import { verdictOf } from './retcodes.js';
import {
  AccountInformationSchema,
  DealsSchema,
  HistoryOrdersSchema,
  MarginSchema,
  OrdersSchema,
  PositionsSchema,
  SymbolPriceSchema,
  SymbolSpecificationSchema,
  TradeResponseSchema,
  type WireDeal,
  type WirePosition,
  type WireSymbolPrice,
  type WireSymbolSpecification,
} from './wire.js';

export interface MetaApiTerminalOptions extends MetaApiConnectionOptions {
  /** Longest wait for a read (default 10 000 ms). */
  timeoutMs?: number;
  /** Longest wait for POST /trade (default 60 000 ms); silence past it is an ambiguous timeout. */
  tradeTimeoutMs?: number;
  /** Period of the account-information probe that detects a lost or restored terminal; 0 turns it off (default 15 000 ms). */
  healthIntervalMs?: number;
  /** How far back `findByComment` searches the history (default 7 days). */
  historyLookbackMs?: number;
  /** Longest `findByComment`, waiting for a synchronized terminal included (default 60 000 ms). */
  reconcileTimeoutMs?: number;
  clock?: Clock;
}

/** Calls the terminal received, by method (for /metrics), and account-information probes. */
export interface MetaApiTerminalStats extends TerminalCallStats {
  healthChecks: number;
}

/** MT5 TRADE_RETCODE_TOO_MANY_REQUESTS, "Too frequent requests". */
const TOO_MANY_REQUESTS = 10024;
/** Without a position id, a fill's deals are looked for this far back. */
const RECENT_DEALS_MS = 10 * 60_000;

/** What MetaApi answered a POST /trade, in MT5 terms. */
interface TradeAnswer {
  retcode: number;
  comment: string;
  order: string | null;
  position: string | null;
}

const isFill = (retcode: number) => retcode === RETCODE.DONE || retcode === RETCODE.DONE_PARTIAL;
const notNull = <T>(value: T | null): value is T => value !== null;

/**
 * A MetaTrader 5 terminal driven through MetaApi's REST API (metaapi.cloud/docs/client/restApi):
 * account information, symbol specification and current price for the pre-check, POST /trade for
 * order_send and for closing, modifying and cancelling (POSITION_CLOSE_ID, POSITION_PARTIAL,
 * POSITION_MODIFY, ORDER_CANCEL), open positions and orders, history orders and deals for
 * reconciliation, the market data API for candles.
 *
 * POST /trade is sent once and never retried: silence past `tradeTimeoutMs` is an ambiguous
 * `timeout`, a connection that breaks under way and MetaApi's -11 (delivered, result unknown) an
 * ambiguous `disconnected`. Idempotent GETs are tried once more after a dropped connection or a
 * 500/502/503. A lost connection (a broken link to MetaApi, a 504 "not connected to broker",
 * -10/-11 on a trade) marks the terminal disconnected: calls are refused until the health probe
 * (or `connect()`) finds MetaApi answering account information again.
 */
export class MetaApiTerminal implements TradingTerminal {
  readonly name = 'metaapi';
  readonly stats: MetaApiTerminalStats = { ...newTerminalCallStats(), healthChecks: 0 };

  private readonly clock: Clock;
  private readonly clients: MetaApiClients;
  private readonly client: MetaApiHttp;
  private readonly timeoutMs: number;
  private readonly tradeTimeoutMs: number;
  private readonly historyLookbackMs: number;
  private readonly reconcileTimeoutMs: number;
  private readonly link: VenueConnection;

  constructor(options: MetaApiTerminalOptions) {
    this.clock = options.clock ?? systemClock;
    this.clients = metaApiClients(options, this.clock);
    this.client = this.clients.client;
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.tradeTimeoutMs = options.tradeTimeoutMs ?? 60_000;
    this.historyLookbackMs = options.historyLookbackMs ?? 7 * 86_400_000;
    this.reconcileTimeoutMs = options.reconcileTimeoutMs ?? 60_000;
    // GET account-information: answered, MetaApi's terminal is up; any failure but throttling (a lost link, a revoked token, silence) means it cannot be traded on now.
    this.link = new VenueConnection({
      clock: this.clock,
      healthIntervalMs: options.healthIntervalMs ?? 15_000,
      probe: () => {
        this.stats.healthChecks++;
        return this.client.get(`${this.clients.accountPath}/account-information`, {}, AccountInformationSchema, this.timeoutMs);
      },
    });
  }

  /** HTTP requests sent to MetaApi and not yet answered. */
  get requestsInFlight(): number {
    return this.clients.requestsInFlight();
  }

  // --- connection -------------------------------------------------------------------------

  /** Connected once MetaApi answers the account's information (its terminal is up); keeps probing afterwards. */
  async connect(): Promise<void> {
    if (this.link.isClosed) throw new BrokerError('disconnected', 'the MetaApi terminal was closed');
    try {
      await this.link.probe();
    } finally {
      this.link.scheduleHealth();
    }
  }

  /** Stops probing and fails every request under way with `disconnected`. Final: connect() refuses afterwards. */
  async close(): Promise<void> {
    this.link.close();
    await this.clients.close();
  }

  isConnected(): boolean {
    return this.link.isConnected;
  }

  onConnectionChange(listener: (connected: boolean) => void): Unsubscribe {
    return this.link.onChange(listener);
  }

  private ensureConnected(): void {
    if (!this.link.isConnected) throw new BrokerError('disconnected', 'the MetaApi terminal is disconnected');
  }

  /** Runs a call while connected; a lost connection on the way marks the terminal down. */
  private async guarded<T>(call: () => Promise<T>): Promise<T> {
    this.ensureConnected();
    try {
      return await call();
    } catch (err) {
      if (isConnectionLoss(err)) this.link.set(false);
      throw err;
    }
  }

  // --- reads --------------------------------------------------------------------------------

  private get<S extends z.ZodType>(path: string, schema: S, query: Record<string, string | undefined> = {}): Promise<z.output<S>> {
    return this.client.get(`${this.clients.accountPath}${path}`, query, schema, this.timeoutMs);
  }

  /** A read whose 404 NotFoundError means "no such thing" (an unlisted symbol). */
  private async orNull<T>(read: Promise<T>): Promise<T | null> {
    try {
      return await read;
    } catch (err) {
      if (err instanceof BrokerError && err.kind === 'not_found') return null;
      throw err;
    }
  }

  private specification(symbol: string): Promise<WireSymbolSpecification | null> {
    return this.orNull(this.get(`/symbols/${encodeURIComponent(symbol)}/specification`, SymbolSpecificationSchema));
  }

  /** keepSubscription: "the account will get a long-term subscription … you will get updated value faster". */
  private price(symbol: string): Promise<WireSymbolPrice | null> {
    return this.orNull(this.get(`/symbols/${encodeURIComponent(symbol)}/current-price`, SymbolPriceSchema, { keepSubscription: 'true' }));
  }

  symbolInfo(symbol: string): Promise<SymbolInfo | null> {
    this.stats.symbolInfoCalls++;
    return this.guarded(async () => {
      const spec = await this.specification(symbol);
      return spec ? symbolInfoOf(spec) : null;
    });
  }

  tick(symbol: string): Promise<Quote | null> {
    this.stats.tickCalls++;
    return this.guarded(async () => {
      const price = await this.price(symbol);
      return price ? quoteOf(price) : null;
    });
  }

  /**
   * The most recent `count` bars from the market data API, which pages backwards from
   * `startTime` ("candles are loaded in backwards direction, so this should be the latest
   * time"), at most 1000 a page.
   */
  rates(symbol: string, timeframe: Timeframe, count: number): Promise<Bar[]> {
    this.stats.ratesCalls++;
    return this.guarded(async () => {
      if (!Number.isInteger(count) || count < 0) throw new BrokerError('rejected', `count must be a non-negative integer, got ${count}`);
      const candles = await candlesBackwards(this.clients, symbol, timeframe, { count }, this.timeoutMs);
      return count === 0 ? [] : barsOf(candles, timeframe, this.clock.now()).slice(-count);
    });
  }

  // --- order_check --------------------------------------------------------------------------

  /** MT5 order_check emulated from MetaApi's data (see `preCheck` for what is checked). */
  orderCheck(request: TradeRequest): Promise<TradeCheckResult> {
    this.stats.orderCheckCalls++;
    return this.guarded(async () => {
      const [spec, account, price] = await Promise.all([
        this.specification(request.symbol),
        this.get('/account-information', AccountInformationSchema),
        this.price(request.symbol),
      ]);
      if (!spec) return checkResultOf({ retcode: RETCODE.INVALID, comment: `unknown symbol ${request.symbol}` }, account, undefined);
      const verdict = preCheck({ request, spec, info: symbolInfoOf(spec), account, price, nowMs: this.clock.now() });
      if (verdict.retcode !== RETCODE.OK || request.action !== 'deal' || !price) return checkResultOf(verdict, account, undefined);
      const margin = await this.margin(request, price);
      return checkResultOf(checkMargin(margin, account), account, margin);
    });
  }

  /** POST calculate-margin ("Calculates margin required to open a trade"): `{ symbol, type, volume, openPrice }`. */
  private async margin(request: TradeRequest, price: WireSymbolPrice): Promise<number | undefined> {
    const body = {
      symbol: request.symbol,
      type: metaApiOrderType(request.type),
      volume: Number(request.volume),
      openPrice: request.type === 'buy' ? price.ask : price.bid,
    };
    const path = this.client.pathFor(`${this.clients.accountPath}/calculate-margin`);
    const answer = await this.client.send('POST', path, body, this.timeoutMs);
    if (answer.status !== 200) throw this.client.errorOf(answer);
    return parseBody(MarginSchema, answer.text, path).margin;
  }

  // --- trades -------------------------------------------------------------------------------

  /**
   * POST /trade, exactly once. The MetatraderTradeResponse becomes an MqlTradeResult; a fill's
   * deal ticket, volume and price come from the position's history deals (MetaApi's response has
   * only orderId and positionId).
   */
  orderSend(request: TradeRequest): Promise<TradeResult> {
    this.stats.orderSendCalls++;
    return this.guarded(async () => {
      const answer = await this.trade(tradeBodyOf(request), request.action);
      const { retcode, comment, order, position } = answer;
      if (retcode === RETCODE.PLACED) return { ...emptyResult(retcode, comment), order, volume: request.volume, price: request.price ?? null };
      if (!isFill(retcode)) return { ...emptyResult(retcode, comment), order, position };
      // The order's deals; without an order id, the position's opening deals.
      const isOwn = (d: WireDeal) => (order !== null ? d.orderId === order : d.entryType !== 'DEAL_ENTRY_OUT');
      return { ...(await this.fillOf(answer, request.volume, isOwn)), order, position };
    });
  }

  /**
   * Reads the position (GET …/positions with refreshTerminalState, "whether to refresh terminal
   * state before retrieving the data") to send POSITION_CLOSE_ID for its whole volume or
   * POSITION_PARTIAL for part of it. A position it does not find (10036) or a volume above the
   * open one (10038) is answered without sending anything.
   */
  closePosition(request: ClosePositionRequest): Promise<TradeResult> {
    this.stats.closePositionCalls++;
    return this.guarded(async () => {
      const { volume } = request;
      if (!isDecimalString(volume) || compareDecimal(volume, '0') <= 0) {
        return emptyResult(RETCODE.INVALID_VOLUME, `volume ${JSON.stringify(volume)} is not a positive decimal; not sent`);
      }
      const open = (await this.positionsBeforeSending()).find((p) => p.id === request.position);
      if (!open) return emptyResult(RETCODE.POSITION_CLOSED, `position ${request.position} is not open at MetaApi; not sent`);
      const openVolume = decimalOf(open.volume);
      if (compareDecimal(volume, openVolume) > 0) {
        return emptyResult(RETCODE.INVALID_CLOSE_VOLUME, `volume ${volume} is above the position's ${openVolume}; not sent`);
      }
      const answer = await this.trade(closeBodyOf(request, compareDecimal(volume, openVolume) === 0), 'deal');
      const position = answer.position ?? request.position;
      if (!isFill(answer.retcode)) return { ...emptyResult(answer.retcode, answer.comment), order: answer.order };
      // MT5 closes with an order of its own and its deal: the deals of that order.
      const isOwn = (d: WireDeal) => answer.order !== null && d.orderId === answer.order;
      return { ...(await this.fillOf({ ...answer, position }, volume, isOwn)), order: answer.order, position };
    });
  }

  /** POST /trade POSITION_MODIFY, exactly once (see `modifyBodyOf` for a null leg). */
  modifyPosition(request: ModifyPositionRequest): Promise<TradeResult> {
    this.stats.modifyPositionCalls++;
    return this.guarded(async () => {
      const { retcode, comment, position } = await this.trade(modifyBodyOf(request), 'deal');
      return { ...emptyResult(retcode, comment), position: retcode === RETCODE.DONE ? (position ?? request.position) : null };
    });
  }

  /** POST /trade ORDER_CANCEL, exactly once. */
  cancelOrder(request: CancelOrderRequest): Promise<TradeResult> {
    this.stats.cancelOrderCalls++;
    return this.guarded(async () => {
      const { retcode, comment, order } = await this.trade(cancelBodyOf(request), 'deal');
      return { ...emptyResult(retcode, comment), order: retcode === RETCODE.DONE ? (order ?? request.order) : null };
    });
  }

  /**
   * POST /trade, exactly once, and its answer in MT5 terms: 0 / ERR_NO_ERROR is DONE for a deal
   * (a close, a modification and a cancel included) and PLACED for a pending order.
   */
  private async trade(body: Record<string, unknown>, action: TradeRequest['action']): Promise<TradeAnswer> {
    const path = this.client.pathFor(`${this.clients.accountPath}/trade`);
    const refused = (retcode: number, comment: string): TradeAnswer => ({ retcode, comment, order: null, position: null });
    let answer: HttpAnswer;
    try {
      answer = await this.client.send('POST', path, body, this.tradeTimeoutMs);
    } catch (err) {
      // Our own pacing refused it unsent: the same answer as MetaApi's 429, nothing traded.
      if (err instanceof BrokerError && err.kind === 'rate_limited') return refused(TOO_MANY_REQUESTS, err.message);
      throw err;
    }
    const { status, text } = answer;
    // Refused before the terminal saw it: MT5's own codes say what happened.
    if (status === 400) return refused(RETCODE.INVALID, `MetaApi refused the request: ${parseErrorBody(text).message ?? 'ValidationError'}`);
    if (status === 429) {
      const retryAfter = retryAfterOf(parseErrorBody(text), answer.retryAfter, this.clock.now());
      return refused(TOO_MANY_REQUESTS, `MetaApi is throttling trades${retryAfter === undefined ? '' : `; retry after ${retryAfter} s`}`);
    }
    if (status >= 500 && status !== 504) {
      throw new BrokerError('timeout', `MetaApi answered the trade with HTTP ${status}: it may or may not have been executed`, { venueCode: String(status) });
    }
    if (status !== 200) throw this.client.errorOf(answer);
    let response;
    try {
      response = parseBody(TradeResponseSchema, text, path);
    } catch (err) {
      throw new BrokerError('disconnected', 'MetaApi answered the trade with a body that cannot be read: it may or may not have been executed', { cause: err });
    }
    const verdict = verdictOf(response, action);
    if (verdict.lost) {
      this.link.set(false);
      throw new BrokerError('disconnected', `MetaApi: ${response.stringCode} ${response.message}`.trim(), { venueCode: String(response.numericCode) });
    }
    if (verdict.terminalDisconnected) this.link.set(false);
    return {
      retcode: verdict.retcode,
      comment: [response.message || retcodeDescription(verdict.retcode), verdict.note].filter(Boolean).join('; '),
      order: response.orderId ?? null,
      position: response.positionId ?? null,
    };
  }

  /** The deals of a fill (those `isOwn` picks); MT5's DONE means the whole volume even when the deals cannot be read. */
  private async fillOf(answer: TradeAnswer, volume: string, isOwn: (deal: WireDeal) => boolean): Promise<TradeResult> {
    const { retcode, comment } = answer;
    const whenUnread = (why: string) => ({
      ...emptyResult(retcode, `${comment}; deal details unavailable (${why})`),
      volume: retcode === RETCODE.DONE ? volume : '0',
    });
    let deals: WireDeal[];
    try {
      deals = await this.dealsOf(answer.order, answer.position);
    } catch (err) {
      return whenUnread(err instanceof Error ? err.message : String(err));
    }
    const own = deals.filter((d) => (d.type === 'DEAL_TYPE_BUY' || d.type === 'DEAL_TYPE_SELL') && isOwn(d));
    const first = own[0];
    if (!first) return whenUnread('no deal found yet');
    return {
      ...emptyResult(retcode, comment),
      deal: first.id,
      volume: own.reduce((sum, d) => addDecimal(sum, decimalOf(d.volume ?? 0)), '0'),
      price: first.price === undefined ? null : decimalOf(first.price),
    };
  }

  /** The position's history deals, or without a position id, the deals of the last minutes (the caller keeps the order's). */
  private async dealsOf(order: string | null, position: string | null): Promise<WireDeal[]> {
    if (position !== null) return (await this.get(`/history-deals/position/${encodeURIComponent(position)}`, DealsSchema)).deals;
    if (order === null) return [];
    const now = this.clock.now();
    const range = timeRangePath(now - RECENT_DEALS_MS, now + HISTORY_SLACK_MS);
    return (await this.get(`/history-deals/time/${range}`, DealsSchema)).deals;
  }

  // --- positions and orders -----------------------------------------------------------------

  /** GET …/positions ("Response schema: Array<MetatraderPosition>"), in the order they opened. */
  positions(filter: TerminalFilter = {}): Promise<TerminalPosition[]> {
    this.stats.positionsCalls++;
    return this.guarded(async () => {
      const open = (await this.openPositions(false)).filter((p) => isInFilter(filter, p.symbol));
      return open
        .map(positionOf)
        .filter(notNull)
        .sort(oldestFirst((p) => p.openTime));
    });
  }

  /** GET …/orders: the pending ones (limits and stops), in the order they were placed. */
  orders(filter: TerminalFilter = {}): Promise<TerminalOrder[]> {
    this.stats.ordersCalls++;
    return this.guarded(async () => {
      const open = (await this.get('/orders', OrdersSchema)).filter((o) => isInFilter(filter, o.symbol));
      return open
        .map(pendingOrderOf)
        .filter(notNull)
        .sort(oldestFirst((o) => o.time));
    });
  }

  private openPositions(refreshTerminalState: boolean): Promise<WirePosition[]> {
    return this.get('/positions', PositionsSchema, refreshTerminalState ? { refreshTerminalState: 'true' } : {});
  }

  /** The positions a close reads first: a read that fails, silence included, sent no trade, so it fails definite (`unavailable`). */
  private async positionsBeforeSending(): Promise<WirePosition[]> {
    try {
      return await this.openPositions(true);
    } catch (err) {
      if (!(err instanceof BrokerError) || !err.isAmbiguous) throw err;
      if (isConnectionLoss(err)) this.link.set(false);
      throw new BrokerError('unavailable', `MetaApi did not list the positions (${err.message}); the close was not sent`, {
        venueCode: err.venueCode,
        cause: err,
      });
    }
  }

  // --- reconciliation -----------------------------------------------------------------------

  /**
   * Open orders, history orders and history deals of the last `historyLookbackMs` whose comment
   * starts with `commentPrefix` (cut to MetaApi's 26 characters, as the comment was) and whose
   * magic is `magic`, newest first. The REST history routes answer a bare array whether or not the
   * terminal has synchronized its history, so the search waits first for the account to be
   * DEPLOYED and CONNECTED (within `reconcileTimeoutMs`); not synchronized by then, or a history
   * answer marked `synchronizing`, is `unavailable` rather than a possibly incomplete "not found".
   */
  findByComment(commentPrefix: string, magic: number): Promise<TerminalRecord[]> {
    this.stats.findByCommentCalls++;
    return this.guarded(async () => {
      await untilSynchronized(this.clients, this.clock, this.timeoutMs, this.clock.now() + this.reconcileTimeoutMs);
      const prefix = commentPrefix.slice(0, METAAPI_COMMENT_LENGTH);
      const now = this.clock.now();
      const [from, to] = [now - this.historyLookbackMs, now + HISTORY_SLACK_MS];
      const range = timeRangePath(from, to);
      const [open, history, deals] = await Promise.all([
        this.get('/orders', OrdersSchema),
        allPages(`/history-orders/time/${range}`, async (query) => {
          const page = await this.get(`/history-orders/time/${range}`, HistoryOrdersSchema, query);
          return { items: page.orders, synchronizing: page.synchronizing };
        }),
        historyDealsBetween(this.clients, from, to, this.timeoutMs),
      ]);
      const mine = (r: { magic?: number; comment?: string }) => (r.magic ?? 0) === magic && (r.comment ?? '').startsWith(prefix);
      const orders = [...open, ...history]
        .filter(mine)
        .map(recordOfOrder)
        .filter((r): r is TerminalRecord => r !== null);
      const partial = new Set(orders.filter((o) => o.state === 'partially_filled').map((o) => o.ticket));
      const fills = deals
        .filter(mine)
        .map((d) => recordOfDeal(d, partial))
        .filter((r): r is TerminalRecord => r !== null);
      return [...orders, ...fills].sort(newestFirst);
    });
  }

  /** GET account-information: balance, equity, margin, free margin, leverage, currency. */
  accountInfo(): Promise<TerminalAccount> {
    return this.guarded(async () => {
      const info = await this.get('/account-information', AccountInformationSchema);
      return {
        currency: info.currency,
        balance: info.balance,
        equity: info.equity,
        margin: info.margin,
        marginFree: info.freeMargin,
        leverage: info.leverage ?? null,
      };
    });
  }

  /**
   * The history deals of the filter, oldest first: GET …/history-deals/time/:startTime/:endTime
   * ("start of time range, inclusive", "end of time range, exclusive", paged by "offset" and
   * "limit … max: 1000"), or for one position GET …/history-deals/position/:positionId ("Returns
   * history deals for a specific position id"; not paged), each "Response schema:
   * Array<MetatraderDeal>". As for `findByComment`, the account must be synchronized first (within
   * `timeoutMs`), or the answer could be incomplete: `unavailable`.
   */
  deals(filter: DealFilter): Promise<TerminalDeal[]> {
    this.stats.dealsCalls++;
    return this.guarded(async () => {
      await untilSynchronized(this.clients, this.clock, this.timeoutMs, this.clock.now() + this.timeoutMs);
      let wire: WireDeal[];
      if (filter.position !== undefined) {
        const page = await this.get(`/history-deals/position/${encodeURIComponent(filter.position)}`, DealsSchema);
        if (page.synchronizing) throw new BrokerError('unavailable', 'MetaApi is still synchronizing the history deals; results would be incomplete');
        wire = page.deals;
      } else {
        wire = await historyDealsBetween(this.clients, filter.from, filter.to, this.timeoutMs);
      }
      return wire
        .map(terminalDealOf)
        .filter((d): d is TerminalDeal => d !== null && isDealInFilter(filter, d))
        .sort(compareDeals);
    });
  }
}

function emptyResult(retcode: number, comment: string): TradeResult {
  return { retcode, deal: null, order: null, position: null, volume: '0', price: null, bid: null, ask: null, comment, requestId: null };
}
