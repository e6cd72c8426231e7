import { compareDecimal, isDecimalString, subtractDecimal, systemClock, type Clock } from '@fxdesk/primitives';
import type { z } from 'zod';
import { BrokerError } from '../errors.js';
import { VenueConnection } from '../venue-connection.js';
import { parseJsonBody } from '../http-helpers.js';
import { RETCODE, retcodeDescription } from '../mt5-retcodes.js';
import { endOfUtcDayMs, pendingPriceProblem, priceToPoints, quoteToPoints, specifiedExpiryMs, stopDistanceProblem } from '../mt5-rules.js';
import {
  compareDeals,
  isDealInFilter,
  isInFilter,
  newTerminalCallStats,
  type CancelOrderRequest,
  type ClosePositionRequest,
  type DealFilter,
  type ModifyPositionRequest,
  type PendingOrderType,
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
import { barsOfCandles, readLatestCandles } from './candles.js';
import { errorFromResponse } from './error-mapping.js';
import { oandaBaseUrl, type OandaEnvironment } from './hosts.js';
import { OandaHttpClient, type OandaAnswer } from './http-client.js';
import { extensionsOf, Ledger, magicOfTag, tagOfMagic } from './ledger.js';
import { isOnUnitStep, lotSizeOf, lotsOfUnits, symbolOfInstrument, unitsOfLots, type LotSize } from './lots.js';
import { isoTime } from './normalize.js';
import { retcodeOfReason } from './retcodes.js';
import {
  CancelAnswerSchema,
  DependentOrdersAnswerSchema,
  InstrumentListSchema,
  OrderAnswerSchema,
  OrderResponseSchema,
  OrdersResponseSchema,
  PricingResponseSchema,
  SummaryOnlySchema,
  TradeResponseSchema,
  TradesResponseSchema,
  TransactionPagesSchema,
  TransactionsResponseSchema,
  type ClientExtensions,
  type ClientPrice,
  type OrderAnswer,
  type Transaction,
  type TradingOrder,
  type WireTradeFull,
} from './trading-wire.js';
import type { WireInstrument } from './wire.js';

export interface OandaTerminalOptions {
  /** Personal access token (OANDA_API_TOKEN). */
  token: string;
  /** `{siteID}-{divisionID}-{userID}-{accountNumber}` (OANDA_ACCOUNT_ID). */
  accountId: string;
  environment?: OandaEnvironment;
  /** Overrides the REST host: a proxy, or a local fake server in tests. */
  baseUrl?: string;
  /** Every read and every trade, connection to last byte (default 10 000 ms); silence past it on a trade is an ambiguous `timeout`. */
  timeoutMs?: number;
  /** Most requests in any one second (default 100, OANDA's Best Practices). */
  requestsPerSecond?: number;
  /** Keep-alive connections to the REST host (default 2). */
  connections?: number;
  /** New connections per second, on the wall clock (default 2, OANDA's Best Practices). */
  newConnectionsPerSecond?: number;
  /** Period of the account-summary probe that finds a lost or restored connection; 0 turns it off (default 15 000 ms). */
  healthIntervalMs?: number;
  /** How far back `findByComment` reads the transaction history (default 7 days). */
  historyLookbackMs?: number;
  clock?: Clock;
}

/** "pageSize: The number of Transactions to include in each page of the results. [default=100, maximum=1000]". */
const TRANSACTION_PAGE_SIZE = 1000;
const ENTRY_ORDER_TYPES: Record<string, PendingOrderType[]> = { LIMIT: ['buy_limit', 'sell_limit'], STOP: ['buy_stop', 'sell_stop'] };

interface CatalogEntry {
  instrument: WireInstrument;
  lot: LotSize;
}

/**
 * A TradingTerminal (MT5 vocabulary) over the OANDA v20 REST API: orders
 * (`POST /v3/accounts/{id}/orders`: MARKET, LIMIT and STOP with stopLossOnFill and
 * takeProfitOnFill), open trades as positions, trade closes, dependent order changes, order
 * cancels, the transaction history as history deals, the account summary, instruments, pricing and
 * candles. Lots are units as `lots.ts` says (1 FX lot = 100 000 units), sells negative units,
 * `EURUSD` is `EUR_USD`.
 *
 * Every trade is sent once and never retried. OANDA's refusal (an `orderRejectTransaction`, or an
 * `orderCancelTransaction` of an order it created and could not fill) answers the MT5 return code
 * of its reason (`retcodes.ts`); silence past `timeoutMs` is an ambiguous `timeout`, a connection
 * lost under way an ambiguous `disconnected` (the terminal then counts itself disconnected until
 * `connect()` or the health probe reaches OANDA again). What MT5 refuses and OANDA would carry out
 * (a pending price on the wrong side of the market, which OANDA fills at once; a stop already
 * crossed, which OANDA fills at once; a modification that changes nothing) is refused here, from
 * the trade and the price read just before.
 */
export class OandaTerminal implements TradingTerminal {
  readonly name = 'oanda';
  readonly stats: TerminalCallStats = newTerminalCallStats();
  private readonly http: OandaHttpClient;
  private readonly clock: Clock;
  private readonly accountPath: string;
  private readonly historyLookbackMs: number;
  private catalog: Map<string, CatalogEntry> | undefined;
  private readonly link: VenueConnection;

  constructor(options: OandaTerminalOptions) {
    this.clock = options.clock ?? systemClock;
    this.accountPath = `/v3/accounts/${encodeURIComponent(options.accountId)}`;
    this.historyLookbackMs = options.historyLookbackMs ?? 7 * 86_400_000;
    this.http = new OandaHttpClient({
      baseUrl: oandaBaseUrl(options.environment ?? 'practice', options.baseUrl),
      token: options.token,
      timeoutMs: options.timeoutMs ?? 10_000,
      requestsPerSecond: options.requestsPerSecond,
      connections: options.connections,
      newConnectionsPerSecond: options.newConnectionsPerSecond,
      clock: this.clock,
    });
    this.link = new VenueConnection({
      clock: this.clock,
      healthIntervalMs: options.healthIntervalMs ?? 15_000,
      probe: () => this.http.get(`${this.accountPath}/summary`, {}, SummaryOnlySchema),
    });
  }

  /** HTTP requests sent to OANDA and not yet answered. */
  get requestsInFlight(): number {
    return this.http.requestsInFlight;
  }

  // --- connection ------------------------------------------------------------------------

  /** Connected once OANDA answers the account summary and the instruments; keeps probing afterwards. */
  async connect(): Promise<void> {
    if (this.link.isClosed) throw new BrokerError('disconnected', 'the OANDA terminal was closed');
    try {
      await this.link.probe();
      await this.loadCatalog();
    } finally {
      this.link.scheduleHealth();
    }
  }

  async close(): Promise<void> {
    this.link.close();
    await this.http.close();
  }

  isConnected(): boolean {
    return this.link.isConnected;
  }

  onConnectionChange(listener: (connected: boolean) => void): Unsubscribe {
    return this.link.onChange(listener);
  }

  /** Runs a call while connected; a connection lost on the way marks the terminal down. */
  private async guarded<T>(call: () => Promise<T>): Promise<T> {
    if (!this.link.isConnected) throw new BrokerError('disconnected', 'the OANDA terminal is disconnected');
    try {
      return await call();
    } catch (err) {
      if (err instanceof BrokerError && (err.kind === 'disconnected' || (err.kind === 'unavailable' && err.venueCode === undefined))) this.link.set(false);
      throw err;
    }
  }

  // --- catalog and market data -------------------------------------------------------------

  /** GET /instruments: every instrument the account may trade, by MT5 symbol. */
  private async loadCatalog(): Promise<Map<string, CatalogEntry>> {
    const body = await this.http.get(`${this.accountPath}/instruments`, {}, InstrumentListSchema);
    this.catalog = new Map(body.instruments.map((instrument) => [symbolOfInstrument(instrument.name), { instrument, lot: lotSizeOf(instrument) }]));
    return this.catalog;
  }

  private async entryOf(symbol: string): Promise<CatalogEntry | undefined> {
    return (this.catalog ?? (await this.loadCatalog())).get(symbol);
  }

  private lotOf = (instrument: string): LotSize => this.catalog?.get(symbolOfInstrument(instrument))?.lot ?? lotSizeOf({ name: instrument, type: 'CURRENCY' });

  symbolInfo(symbol: string): Promise<SymbolInfo | null> {
    this.stats.symbolInfoCalls++;
    return this.guarded(async () => {
      const entry = await this.entryOf(symbol);
      return entry ? symbolInfoOf(symbol, entry) : null;
    });
  }

  tick(symbol: string): Promise<Quote | null> {
    this.stats.tickCalls++;
    return this.guarded(async () => {
      const entry = await this.entryOf(symbol);
      if (!entry) return null;
      const price = await this.price(entry.instrument.name);
      return price ? quoteOf(symbol, price) : null;
    });
  }

  /** GET /pricing?instruments=X: the instrument's current ClientPrice. */
  private async price(instrument: string): Promise<ClientPrice | undefined> {
    const body = await this.http.get(`${this.accountPath}/pricing`, { instruments: instrument }, PricingResponseSchema);
    return body.prices.find((p) => p.instrument === instrument);
  }

  /** The latest `count` candles (`readCandles`): bid OHLC, as MT5 charts its bars. */
  rates(symbol: string, timeframe: Timeframe, count: number): Promise<Bar[]> {
    this.stats.ratesCalls++;
    return this.guarded(async () => {
      const entry = await this.entryOf(symbol);
      if (!entry) throw new BrokerError('not_found', `OANDA lists no instrument for ${symbol}`);
      const candles = await readLatestCandles(this.http, entry.instrument.name, timeframe, count);
      return barsOfCandles(candles, entry.instrument.displayPrecision);
    });
  }

  // --- order_check and order_send ------------------------------------------------------------

  /**
   * MT5 order_check, from what OANDA says before any order: the instrument's units (minimum,
   * precision, maximum), whether its price is tradeable, the stops' and the pending price's side
   * of the market, the expiry, and the margin the order would take (|units| × price × the
   * instrument's margin rate × the quote-to-home conversion factor) against the margin available.
   */
  orderCheck(request: TradeRequest): Promise<TradeCheckResult> {
    this.stats.orderCheckCalls++;
    return this.guarded(async () => {
      const entry = await this.entryOf(request.symbol);
      const [summary, price] = await Promise.all([
        this.http.get(`${this.accountPath}/summary`, {}, SummaryOnlySchema),
        entry ? this.price(entry.instrument.name) : undefined,
      ]);
      const account = summary.account;
      const result = (retcode: number, comment: string, margin = Number(account.marginUsed)): TradeCheckResult => {
        const equity = Number(account.NAV);
        return {
          retcode,
          comment,
          balance: Number(account.balance),
          equity,
          margin,
          marginFree: equity - margin,
          marginLevel: margin > 0 ? (equity / margin) * 100 : 0,
        };
      };
      if (!entry) return result(RETCODE.INVALID, `OANDA lists no instrument for ${request.symbol}`);
      const units = this.unitsOf(request, entry);
      const { instrument } = entry;
      if (
        !isOnUnitStep(units, instrument.tradeUnitsPrecision) ||
        compareDecimal(units, instrument.minimumTradeSize) < 0 ||
        compareDecimal(units, instrument.maximumOrderUnits) > 0
      ) {
        return result(
          RETCODE.INVALID_VOLUME,
          `${units} units: OANDA trades ${instrument.minimumTradeSize} to ${instrument.maximumOrderUnits} units on a step of 10^-${instrument.tradeUnitsPrecision}`,
        );
      }
      if (!price || price.tradeable === false) return result(RETCODE.MARKET_CLOSED, `${instrument.name} is not tradeable now`);
      const problem = this.priceProblem(request, entry, price) ?? this.expiryProblem(request);
      if (problem) return result(problem.retcode, problem.comment);
      const isBuy = request.type.startsWith('buy');
      const at = Number(request.price ?? (isBuy ? price.asks[0]?.price : price.bids[0]?.price) ?? 0);
      const factor = Number((isBuy ? price.quoteHomeConversionFactors?.positiveUnits : price.quoteHomeConversionFactors?.negativeUnits) ?? 1);
      const required = Number(units) * at * Number(instrument.marginRate) * factor;
      if (required > Number(account.marginAvailable))
        return result(RETCODE.NO_MONEY, `the order needs ${required.toFixed(2)} of margin, ${account.marginAvailable} is available`);
      return result(RETCODE.OK, 'Done', Number(account.marginUsed) + required);
    });
  }

  /**
   * POST /orders, exactly once: a MARKET order (FOK, or IOC for MT5's IOC and RETURN fillings,
   * with `priceBound` when a price and a deviation are given) or a LIMIT / STOP order (GTC, or GTD
   * for MT5's DAY, SPECIFIED and SPECIFIED_DAY), with stopLossOnFill, takeProfitOnFill, and the
   * comment and magic as ClientExtensions of the order and of the trade it opens.
   */
  orderSend(request: TradeRequest): Promise<TradeResult> {
    this.stats.orderSendCalls++;
    return this.guarded(async () => {
      const entry = await this.entryOf(request.symbol);
      if (!entry) return emptyResult(RETCODE.INVALID, `OANDA lists no instrument for ${request.symbol}; not sent`);
      if (request.action === 'pending') {
        const price = await this.priceBeforeSending(entry.instrument.name);
        const problem = this.priceProblem(request, entry, price);
        if (problem) return emptyResult(problem.retcode, `${problem.comment}; not sent`);
      }
      const answer = await this.post(`${this.accountPath}/orders`, { order: this.orderBodyOf(request, entry) });
      return this.resultOfOrder(answer, request, entry);
    });
  }

  private unitsOf(request: TradeRequest, entry: CatalogEntry): string {
    return isDecimalString(request.volume) ? unitsOfLots(request.volume, entry.lot) : request.volume;
  }

  private orderBodyOf(request: TradeRequest, entry: CatalogEntry): Record<string, unknown> {
    const units = this.unitsOf(request, entry);
    const signed = request.type.startsWith('sell') ? `-${units}` : units;
    const extensions = extensionsOf(request.comment, request.magic);
    const order: Record<string, unknown> = {
      instrument: entry.instrument.name,
      units: signed,
      positionFill: 'DEFAULT',
      clientExtensions: extensions,
      tradeClientExtensions: extensions,
      ...(request.sl ? { stopLossOnFill: { price: request.sl, timeInForce: 'GTC' } } : {}),
      ...(request.tp ? { takeProfitOnFill: { price: request.tp, timeInForce: 'GTC' } } : {}),
    };
    if (request.action === 'deal') {
      order.type = 'MARKET';
      order.timeInForce = request.filling === 'IOC' || request.filling === 'RETURN' ? 'IOC' : 'FOK';
      const bound = this.priceBoundOf(request, entry);
      if (bound) order.priceBound = bound;
      return order;
    }
    order.type = request.type.endsWith('limit') ? 'LIMIT' : 'STOP';
    order.price = request.price;
    const expiry = this.expiryMsOf(request);
    if (expiry === undefined) order.timeInForce = 'GTC';
    else Object.assign(order, { timeInForce: 'GTD', gtdTime: new Date(expiry).toISOString() });
    return order;
  }

  /** priceBound: "The worst price that the client is willing to have the Market Order filled at": the price moved by the deviation. */
  private priceBoundOf(request: TradeRequest, entry: CatalogEntry): string | undefined {
    if (!request.price || request.deviation === undefined) return undefined;
    const digits = entry.instrument.displayPrecision;
    const points = priceToPoints(request.price, digits);
    if (points === null) return undefined;
    const bound = request.type === 'buy' ? points + request.deviation : points - request.deviation;
    return (bound / 10 ** digits).toFixed(digits);
  }

  /** When an MT5 time type ends the order (GTD), or undefined for good till cancelled. */
  private expiryMsOf(request: TradeRequest): number | undefined {
    if (request.timeType === 'DAY') return endOfUtcDayMs(this.clock.now());
    if ((request.timeType === 'SPECIFIED' || request.timeType === 'SPECIFIED_DAY') && request.expiration !== undefined)
      return specifiedExpiryMs(request.timeType, request.expiration);
    return undefined;
  }

  private expiryProblem(request: TradeRequest): { retcode: number; comment: string } | undefined {
    if (request.action !== 'pending') return undefined;
    const expiry = this.expiryMsOf(request);
    return expiry !== undefined && expiry <= this.clock.now() ? { retcode: RETCODE.INVALID_EXPIRATION, comment: 'the expiration has passed' } : undefined;
  }

  /** MT5's rules of the stops and a pending price against the market (stops level 0: OANDA sets none). */
  private priceProblem(request: TradeRequest, entry: CatalogEntry, price: ClientPrice | undefined): { retcode: number; comment: string } | undefined {
    if (!price) return { retcode: RETCODE.MARKET_CLOSED, comment: `${entry.instrument.name} has no price` };
    const digits = entry.instrument.displayPrecision;
    const market = {
      bid: quoteToPoints(Number(price.bids[0]?.price ?? price.closeoutBid), digits),
      ask: quoteToPoints(Number(price.asks[0]?.price ?? price.closeoutAsk), digits),
    };
    const side = request.type.startsWith('buy') ? 'buy' : 'sell';
    if (request.action === 'pending') {
      const points = request.price === undefined ? null : priceToPoints(request.price, digits);
      if (points === null) return { retcode: RETCODE.INVALID_PRICE, comment: `price ${String(request.price)} is not a price of ${entry.instrument.name}` };
      const problem = pendingPriceProblem(request.type, points, market, 0);
      if (problem) return { retcode: RETCODE.INVALID_PRICE, comment: problem };
    }
    const base = request.action === 'pending' ? priceToPoints(request.price!, digits)! : side === 'buy' ? market.bid : market.ask;
    for (const leg of ['sl', 'tp'] as const) {
      const value = request[leg];
      if (!value) continue;
      const points = priceToPoints(value, digits);
      const problem = points === null ? `${leg} ${value} is not a price` : stopDistanceProblem(leg, points, side, base, 0);
      if (problem) return { retcode: RETCODE.INVALID_STOPS, comment: problem };
    }
    return undefined;
  }

  /** The answer to POST /orders as an MqlTradeResult. */
  private resultOfOrder(answer: OandaAnswer, request: TradeRequest, entry: CatalogEntry): TradeResult {
    const body = this.tradeBody(answer, OrderAnswerSchema, 'POST orders');
    const refused = refusalOf(body);
    if (refused) return refused;
    const created = body.orderCreateTransaction;
    const fill = body.orderFillTransaction;
    const order = created?.id ?? null;
    if (fill) return { ...this.fillResult(fill, entry.lot, body.orderCancelTransaction !== undefined), order };
    if (body.orderCancelTransaction) return { ...cancelled(body.orderCancelTransaction), order };
    return { ...emptyResult(RETCODE.PLACED, 'Order placed'), order, volume: request.volume, price: request.price ?? null };
  }

  private fillResult(fill: Transaction, lot: LotSize, isPartial: boolean): TradeResult {
    const position = fill.tradeOpened?.tradeID ?? fill.tradesClosed?.[0]?.tradeID ?? fill.tradeReduced?.tradeID ?? null;
    const retcode = isPartial ? RETCODE.DONE_PARTIAL : RETCODE.DONE;
    return {
      ...emptyResult(retcode, retcodeDescription(retcode)),
      deal: fill.id,
      position,
      volume: lotsOfUnits(fill.units ?? '0', lot),
      price: fill.price ?? null,
    };
  }

  // --- positions and orders -------------------------------------------------------------

  /** GET /openTrades: each open trade is a position (its ticket the trade id), in the order they opened. */
  positions(filter: TerminalFilter = {}): Promise<TerminalPosition[]> {
    this.stats.positionsCalls++;
    return this.guarded(async () => {
      const body = await this.http.get(`${this.accountPath}/openTrades`, {}, TradesResponseSchema);
      return body.trades
        .map((t) => this.positionOf(t))
        .filter((p) => isInFilter(filter, p.symbol))
        .sort((a, b) => a.openTime - b.openTime || Number(a.ticket) - Number(b.ticket));
    });
  }

  private positionOf(trade: WireTradeFull): TerminalPosition {
    const extensions = trade.clientExtensions;
    return {
      ticket: trade.id,
      symbol: symbolOfInstrument(trade.instrument),
      side: trade.currentUnits.startsWith('-') ? 'sell' : 'buy',
      volume: lotsOfUnits(trade.currentUnits, this.lotOf(trade.instrument)),
      openPrice: trade.price,
      sl: trade.stopLossOrder?.price ?? null,
      tp: trade.takeProfitOrder?.price ?? null,
      profit: Number(trade.unrealizedPL ?? 0),
      swap: Number(trade.financing ?? 0),
      magic: magicOfTag(extensions?.tag) ?? 0,
      // The trade's client ID is its entry's comment; its comment may be the last close's.
      comment: extensions?.id ?? extensions?.comment ?? '',
      openTime: Date.parse(isoTime(trade.openTime)),
    };
  }

  /** GET /pendingOrders: the LIMIT and STOP entry orders (dependent stops and targets are a position's sl and tp). */
  orders(filter: TerminalFilter = {}): Promise<TerminalOrder[]> {
    this.stats.ordersCalls++;
    return this.guarded(async () => {
      const body = await this.http.get(`${this.accountPath}/pendingOrders`, {}, OrdersResponseSchema);
      return body.orders
        .map((o) => this.pendingOrderOf(o))
        .filter((o): o is TerminalOrder => o !== null && isInFilter(filter, o.symbol))
        .sort((a, b) => a.time - b.time || Number(a.ticket) - Number(b.ticket));
    });
  }

  private pendingOrderOf(order: TradingOrder): TerminalOrder | null {
    const types = ENTRY_ORDER_TYPES[order.type];
    if (!types || !order.instrument || !order.units || !order.price) return null;
    return {
      ticket: order.id,
      symbol: symbolOfInstrument(order.instrument),
      type: order.units.startsWith('-') ? types[1]! : types[0]!,
      volume: lotsOfUnits(order.units, this.lotOf(order.instrument)),
      price: order.price,
      sl: order.stopLossOnFill?.price ?? null,
      tp: order.takeProfitOnFill?.price ?? null,
      magic: magicOfTag(order.clientExtensions?.tag) ?? 0,
      comment: order.clientExtensions?.comment ?? order.clientExtensions?.id ?? '',
      time: Date.parse(isoTime(order.createTime)),
      expiration: order.timeInForce === 'GTD' && order.gtdTime ? Date.parse(isoTime(order.gtdTime)) : null,
    };
  }

  // --- close, modify, cancel ------------------------------------------------------------

  /**
   * Reads the trade (GET /trades/{id}: 10036 when it is closed or unknown, 10038 for more units
   * than it holds, 10014 off the unit step), writes the close's comment and magic on it
   * (PUT /trades/{id}/clientExtensions, so its closing deal is found by that comment), then
   * PUT /trades/{id}/close with `units` ("ALL" for the whole trade), exactly once.
   */
  closePosition(request: ClosePositionRequest): Promise<TradeResult> {
    this.stats.closePositionCalls++;
    return this.guarded(async () => {
      const { volume } = request;
      if (!isDecimalString(volume) || compareDecimal(volume, '0') <= 0)
        return emptyResult(RETCODE.INVALID_VOLUME, `volume ${JSON.stringify(volume)} is not a positive decimal; not sent`);
      const trade = await this.tradeBeforeSending(request.position);
      if (!trade || trade.state !== 'OPEN') return emptyResult(RETCODE.POSITION_CLOSED, `trade ${request.position} is not open at OANDA; not sent`);
      const entry = this.catalog?.get(symbolOfInstrument(trade.instrument));
      const lot = this.lotOf(trade.instrument);
      const units = unitsOfLots(volume, lot);
      const open = trade.currentUnits.replace('-', '');
      if (entry && !isOnUnitStep(units, entry.instrument.tradeUnitsPrecision))
        return emptyResult(RETCODE.INVALID_VOLUME, `${units} units is off ${trade.instrument}'s unit step; not sent`);
      if (compareDecimal(units, open) > 0) return emptyResult(RETCODE.INVALID_CLOSE_VOLUME, `${units} units is above the trade's ${open}; not sent`);
      const specifier = encodeURIComponent(trade.id);
      const note = await this.http.write('PUT', `${this.accountPath}/trades/${specifier}/clientExtensions`, {
        clientExtensions: {
          ...(trade.clientExtensions?.id ? { id: trade.clientExtensions.id } : {}),
          tag: tagOfMagic(request.magic),
          comment: request.comment,
        },
      });
      if (note.status === 404) return emptyResult(RETCODE.POSITION_CLOSED, `trade ${request.position} is not open at OANDA; not closed`);
      if (note.status !== 200) throw this.tradeError(note, 'PUT trades/clientExtensions');
      const answer = await this.put(`${this.accountPath}/trades/${specifier}/close`, { units: compareDecimal(units, open) === 0 ? 'ALL' : units });
      const body = this.tradeBody(answer, OrderAnswerSchema, 'PUT trades/close');
      const refused = refusalOf(body, RETCODE.POSITION_CLOSED);
      if (refused) return refused;
      const order = body.orderCreateTransaction?.id ?? null;
      if (body.orderFillTransaction) return { ...this.fillResult(body.orderFillTransaction, lot, false), order, position: trade.id };
      if (body.orderCancelTransaction) return { ...cancelled(body.orderCancelTransaction), order };
      return { ...emptyResult(RETCODE.ERROR, 'OANDA answered the close with neither a fill nor a cancel'), order };
    });
  }

  /**
   * Reads the trade and the price first (10036 for a closed trade, 10025 when nothing changes,
   * 10016 for a stop already crossed, which OANDA would fill at once), then
   * PUT /trades/{id}/orders with the legs that change: `{ price, timeInForce: "GTC" }`, or null to
   * cancel one ("Specifying null … will cancel").
   */
  modifyPosition(request: ModifyPositionRequest): Promise<TradeResult> {
    this.stats.modifyPositionCalls++;
    return this.guarded(async () => {
      const trade = await this.tradeBeforeSending(request.position);
      if (!trade || trade.state !== 'OPEN') return emptyResult(RETCODE.POSITION_CLOSED, `trade ${request.position} is not open at OANDA; not sent`);
      const current = { sl: trade.stopLossOrder?.price ?? null, tp: trade.takeProfitOrder?.price ?? null };
      const changes = (['sl', 'tp'] as const).filter((leg) => !samePrice(current[leg], request[leg]));
      if (changes.length === 0) return emptyResult(RETCODE.NO_CHANGES, 'the stops are already set so; not sent');
      const entry = this.catalog?.get(symbolOfInstrument(trade.instrument));
      const price = await this.priceBeforeSending(trade.instrument);
      if (entry && price) {
        const digits = entry.instrument.displayPrecision;
        const side = trade.currentUnits.startsWith('-') ? 'sell' : 'buy';
        const close = quoteToPoints(Number(side === 'buy' ? price.bids[0]?.price : price.asks[0]?.price), digits);
        for (const leg of changes) {
          const value = request[leg];
          const points = value === null ? null : priceToPoints(value, digits);
          const problem = value !== null && points === null ? `${leg} ${value} is not a price` : stopDistanceProblem(leg, points, side, close, 0);
          if (problem) return emptyResult(RETCODE.INVALID_STOPS, `${problem}; not sent`);
        }
      }
      const body: Record<string, unknown> = {};
      for (const leg of changes) {
        const value = request[leg];
        body[leg === 'sl' ? 'stopLoss' : 'takeProfit'] = value === null ? null : { price: value, timeInForce: 'GTC' };
      }
      const answer = await this.put(`${this.accountPath}/trades/${encodeURIComponent(trade.id)}/orders`, body);
      if (answer.status === 404) return emptyResult(RETCODE.POSITION_CLOSED, `trade ${request.position} is not open at OANDA`);
      const parsed = this.tradeBody(answer, DependentOrdersAnswerSchema, 'PUT trades/orders');
      const rejected = parsed.stopLossOrderRejectTransaction ?? parsed.takeProfitOrderRejectTransaction;
      if (answer.status !== 200 || rejected) {
        const reason = rejected?.rejectReason ?? parsed.errorCode;
        const retcode = retcodeOfReason(reason);
        return emptyResult(
          retcode === RETCODE.REJECT ? RETCODE.INVALID_STOPS : retcode,
          `OANDA refused the stops: ${reason ?? parsed.errorMessage ?? answer.status}`,
        );
      }
      const filled = parsed.stopLossOrderFillTransaction ?? parsed.takeProfitOrderFillTransaction;
      const comment = filled
        ? `the new ${filled === parsed.stopLossOrderFillTransaction ? 'stop loss' : 'take profit'} filled at once (fill ${filled.id})`
        : 'Done';
      return { ...emptyResult(RETCODE.DONE, comment), position: trade.id };
    });
  }

  /** PUT /orders/{id}/cancel, exactly once: 10009, or 10013 when OANDA has no such pending order (404 ORDER_DOESNT_EXIST). */
  cancelOrder(request: CancelOrderRequest): Promise<TradeResult> {
    this.stats.cancelOrderCalls++;
    return this.guarded(async () => {
      const answer = await this.put(`${this.accountPath}/orders/${encodeURIComponent(request.order)}/cancel`, {});
      const body = this.tradeBody(answer, CancelAnswerSchema, 'PUT orders/cancel');
      if (answer.status === 200 && body.orderCancelTransaction) return { ...emptyResult(RETCODE.DONE, 'Order cancelled'), order: request.order };
      const reason = body.orderCancelRejectTransaction?.rejectReason ?? body.errorCode;
      return emptyResult(
        answer.status === 404 ? RETCODE.INVALID : retcodeOfReason(reason),
        `OANDA did not cancel order ${request.order}: ${reason ?? body.errorMessage ?? answer.status}`,
      );
    });
  }

  /** A read before a trade: failing, it sent nothing, so it fails definite (`unavailable`) even when it timed out. */
  private async beforeSending<T>(read: () => Promise<T>): Promise<T> {
    try {
      return await read();
    } catch (err) {
      if (!(err instanceof BrokerError) || !err.isAmbiguous) throw err;
      if (err.kind === 'disconnected') this.link.set(false);
      throw new BrokerError('unavailable', `OANDA did not answer a read before the trade (${err.message}); nothing was sent`, { cause: err });
    }
  }

  private tradeBeforeSending(tradeId: string): Promise<WireTradeFull | undefined> {
    return this.beforeSending(async () => {
      const answer = await this.http.read(`${this.accountPath}/trades/${encodeURIComponent(tradeId)}`);
      if (answer.status === 404) return undefined;
      if (answer.status !== 200) throw this.tradeError(answer, 'GET trades');
      return parseJsonBody(TradeResponseSchema, answer.text, 'OANDA', 'GET trades').trade;
    });
  }

  private priceBeforeSending(instrument: string): Promise<ClientPrice | undefined> {
    return this.beforeSending(() => this.price(instrument));
  }

  private post(path: string, body: unknown): Promise<OandaAnswer> {
    return this.http.write('POST', path, body);
  }

  private put(path: string, body: unknown): Promise<OandaAnswer> {
    return this.http.write('PUT', path, body);
  }

  /**
   * A trade's answer body: 2xx, 400 and 404 carry transactions (parsed by `schema`); 5xx leaves
   * the outcome open (an ambiguous `timeout`); any other status is its BrokerError.
   */
  private tradeBody<S extends z.ZodType>(answer: OandaAnswer, schema: S, what: string): z.output<S> {
    if (answer.status >= 500) {
      throw new BrokerError('timeout', `OANDA answered ${what} with HTTP ${answer.status}: it may or may not have been carried out`, {
        venueCode: String(answer.status),
      });
    }
    if (answer.status >= 300 && answer.status !== 400 && answer.status !== 404) throw this.tradeError(answer, what);
    try {
      return parseJsonBody(schema, answer.text, 'OANDA', what);
    } catch (err) {
      if (answer.status < 300)
        throw new BrokerError('disconnected', `OANDA answered ${what} with a body that cannot be read: it may have been carried out`, { cause: err });
      return parseJsonBody(schema, '{}', 'OANDA', what);
    }
  }

  private tradeError(answer: OandaAnswer, what: string): BrokerError {
    const err = errorFromResponse(answer.status, answer.text, answer.retryAfterSeconds);
    return new BrokerError(err.kind, `${what}: ${err.message}`, { venueCode: err.venueCode, retryAfterSeconds: err.retryAfterSeconds });
  }

  // --- history ------------------------------------------------------------------------------

  /**
   * The transactions since `fromMs` (GET /transactions?from&to&pageSize=1000, which answers the
   * pages' URLs, then GET each page, /transactions/idrange?from&to), read as a Ledger; orders and
   * trades made before `fromMs` that its fills need are read one by one.
   */
  private async ledger(fromMs: number, toMs: number): Promise<Ledger> {
    const range = await this.http.get(
      `${this.accountPath}/transactions`,
      {
        from: new Date(fromMs).toISOString(),
        // Up to now is OANDA's default ("to … [default=Request Time]"): no instant of our clock, which may run ahead of OANDA's.
        to: toMs >= this.clock.now() ? undefined : new Date(toMs).toISOString(),
        pageSize: String(TRANSACTION_PAGE_SIZE),
      },
      TransactionPagesSchema,
    );
    const transactions: Transaction[] = [];
    for (const page of range.pages) {
      const url = new URL(page);
      const query = Object.fromEntries(url.searchParams.entries());
      const body = await this.http.get(url.pathname.replace(/^.*?(\/v3\/)/, '$1'), query, TransactionsResponseSchema);
      transactions.push(...body.transactions);
    }
    const first = new Ledger(transactions, { lotOf: this.lotOf });
    if (first.missingOrders.size === 0 && first.missingTrades.size === 0) return first;
    const orderExtensions = new Map<string, ClientExtensions | undefined>();
    for (const id of first.missingOrders) orderExtensions.set(id, (await this.readOrNull(`/orders/${id}`, OrderResponseSchema))?.order.clientExtensions);
    const tradeExtensions = new Map<string, ClientExtensions | undefined>();
    for (const id of first.missingTrades) tradeExtensions.set(id, (await this.readOrNull(`/trades/${id}`, TradeResponseSchema))?.trade.clientExtensions);
    return new Ledger(transactions, { lotOf: this.lotOf, orderExtensions, tradeExtensions });
  }

  private async readOrNull<S extends z.ZodType>(path: string, schema: S): Promise<z.output<S> | null> {
    const answer = await this.http.read(`${this.accountPath}${path}`);
    if (answer.status === 404) return null;
    if (answer.status !== 200) throw this.tradeError(answer, `GET ${path}`);
    return parseJsonBody(schema, answer.text, 'OANDA', path);
  }

  /** Orders and deals of the last `historyLookbackMs` whose ClientExtensions comment starts with `commentPrefix` and whose tag carries `magic`, newest first. */
  findByComment(commentPrefix: string, magic: number): Promise<TerminalRecord[]> {
    this.stats.findByCommentCalls++;
    return this.guarded(async () => {
      const now = this.clock.now();
      const ledger = await this.ledger(now - this.historyLookbackMs, Infinity);
      return ledger.records(commentPrefix, magic);
    });
  }

  /** The deals of the ORDER_FILL transactions in [from, to), oldest first. */
  deals(filter: DealFilter): Promise<TerminalDeal[]> {
    this.stats.dealsCalls++;
    return this.guarded(async () => {
      if (filter.to <= filter.from) return [];
      const ledger = await this.ledger(filter.from, filter.to);
      return ledger
        .allDeals()
        .filter((d) => isDealInFilter(filter, d))
        .sort(compareDeals);
    });
  }

  /** GET /summary: balance, NAV as the equity, margin used, margin available; the leverage is 1 / the account's margin rate. */
  accountInfo(): Promise<TerminalAccount> {
    return this.guarded(async () => {
      const { account } = await this.http.get(`${this.accountPath}/summary`, {}, SummaryOnlySchema);
      const rate = account.marginRate === undefined ? 0 : Number(account.marginRate);
      return {
        currency: account.currency,
        balance: Number(account.balance),
        equity: Number(account.NAV),
        margin: Number(account.marginUsed),
        marginFree: Number(account.marginAvailable),
        leverage: rate > 0 ? Math.round(1 / rate) : null,
      };
    });
  }
}

function symbolInfoOf(symbol: string, { instrument, lot }: CatalogEntry): SymbolInfo {
  const [base = '', quote = ''] = instrument.name.split('_');
  const step = instrument.tradeUnitsPrecision > 0 ? `0.${'0'.repeat(instrument.tradeUnitsPrecision - 1)}1` : `1${'0'.repeat(-instrument.tradeUnitsPrecision)}`;
  return {
    symbol,
    description: instrument.displayName,
    digits: instrument.displayPrecision,
    point: 10 ** -instrument.displayPrecision,
    contractSize: lot.unitsPerLot,
    volumeMin: lotsOfUnits(instrument.minimumTradeSize, lot),
    volumeMax: lotsOfUnits(instrument.maximumOrderUnits, lot),
    volumeStep: lotsOfUnits(step, lot),
    // OANDA sets no minimum distance for stops and targets, and freezes nothing.
    stopsLevel: 0,
    freezeLevel: 0,
    fillingModes: ['FOK', 'IOC'],
    expirationModes: ['GTC', 'DAY', 'SPECIFIED', 'SPECIFIED_DAY'],
    tradeMode: 'full',
    currencyBase: base,
    currencyProfit: quote,
    currencyMargin: base,
  };
}

function quoteOf(symbol: string, price: ClientPrice): Quote {
  return {
    symbol,
    bid: Number(price.bids[0]?.price ?? price.closeoutBid),
    ask: Number(price.asks[0]?.price ?? price.closeoutAsk),
    time: Date.parse(isoTime(price.time)),
  };
}

function samePrice(a: string | null, b: string | null): boolean {
  if (a === null || b === null) return a === b;
  return compareDecimal(subtractDecimal(a, b), '0') === 0;
}

/** OANDA's refusal in a trade's answer (an orderRejectTransaction, or a 400/404 errorCode), as its MT5 code; undefined when it carried the request out. */
function refusalOf(body: OrderAnswer, notFound: number = RETCODE.INVALID): TradeResult | undefined {
  const reject = body.orderRejectTransaction;
  if (!reject && !body.errorCode) return undefined;
  const reason = reject?.rejectReason ?? body.errorCode;
  const retcode = reason === 'NO_SUCH_TRADE' || reason === 'TRADE_DOESNT_EXIST' ? notFound : retcodeOfReason(reason);
  return emptyResult(retcode, `OANDA rejected the order: ${reason ?? body.errorMessage ?? 'no reason given'}`);
}

function cancelled(cancel: Transaction): TradeResult {
  return emptyResult(retcodeOfReason(cancel.reason), `OANDA cancelled the order: ${cancel.reason ?? 'no reason given'}`);
}

function emptyResult(retcode: number, comment: string): TradeResult {
  return { retcode, deal: null, order: null, position: null, volume: '0', price: null, bid: null, ask: null, comment, requestId: null };
}
